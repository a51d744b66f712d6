/**
 * Commands that upload images: `id-verify`, `face-verify`, `face-quality`, `quality`. One `--image` grammar
 * for all four: `[TYPE[:ADDITIONAL_TYPE]=]PATH[,ref=REFERENCE]`.
 */
import type { MockTestValue } from '../../shared/api/enums';
import { UPLOAD_IMAGE_TYPES } from '../../shared/api/enums';
import type { QualityResponse } from '../../shared/api/schemas';
import type { IdVerifyInput } from '../../shared/client/client';
import { UsageError } from './errors';
import { checkedValue, compact, list, readInput, required, str } from './flags';
import type { CliCommand, CommandContext } from './types';

/** One `--image` value, parsed. */
export interface ImageSpec {
  /** The value as typed, for messages. */
  readonly given: string;
  readonly type?: string;
  readonly additionalDocumentType?: string;
  readonly path: string;
  readonly customerReference?: string;
}

/** `TYPE=` or `TYPE:ADDITIONAL_TYPE=` in front of the path: letters and underscores only. */
const TYPE_PREFIX = /^([A-Za-z_]+)(?::([A-Za-z_]+))?=(.*)$/s;
const REF_SUFFIX = ',ref=';

/**
 * Parses `--image [TYPE[:ADDITIONAL_TYPE]=]PATH[,ref=REFERENCE]`. TYPE is checked against the upload
 * image types (a usage error with the closest one); the reference is everything after the first `,ref=`.
 */
export function parseImageSpec(given: string, command: string): ImageSpec {
  const at = given.indexOf(REF_SUFFIX);
  const head = at === -1 ? given : given.slice(0, at);
  const reference = at === -1 ? undefined : given.slice(at + REF_SUFFIX.length);
  if (reference === '') throw new UsageError(`--image ${given}: ref= needs a value`, command);
  const typed = TYPE_PREFIX.exec(head);
  const path = typed ? typed[3]! : head;
  if (path === '') throw new UsageError(`--image ${given}: missing the file after "="`, command);
  const type = typed
    ? checkedValue(typed[1]!, `the TYPE of --image ${given}`, UPLOAD_IMAGE_TYPES, command)
    : undefined;
  return {
    given,
    path,
    ...(type !== undefined && { type }),
    ...(typed?.[2] !== undefined && { additionalDocumentType: typed[2] }),
    ...(reference !== undefined && { customerReference: reference }),
  };
}

/** The `--image` values of the command line, parsed; at least one. */
function imageSpecs(ctx: CommandContext, command: string, usage: string): ImageSpec[] {
  const specs = list(ctx, 'image');
  if (specs.length === 0) throw new UsageError(`missing --image ${usage}`, command);
  return specs.map((spec) => parseImageSpec(spec, command));
}

/** The file of a spec, base64. */
async function imageData(ctx: CommandContext, spec: ImageSpec): Promise<string> {
  return (await readInput(ctx, spec.path, 'image')).toString('base64');
}

/** One uploaded image as the request wants it. */
interface ImageField {
  type?: string;
  additionalDocumentType?: string;
  customerReference?: string;
  data: string;
}

/**
 * Reads the `--image [TYPE=]PATH[,ref=R]` flags of an upload; `ADDITIONAL:DRIVING_LICENSE=PATH` (or
 * `PAPER:X=PATH`) sets the image's `additionalDocumentType`. With `typed` (face verify, whose images are
 * COMPARE or LIVE) TYPE is required; an identity upload takes untyped images, as §4.5 does.
 */
export async function uploadImages(
  ctx: CommandContext,
  command: string,
  options: { readonly typed: boolean },
): Promise<ImageField[]> {
  const specs = imageSpecs(ctx, command, options.typed ? 'TYPE=PATH' : '[TYPE=]PATH');
  for (const spec of specs) {
    if (options.typed && spec.type === undefined) {
      throw new UsageError(
        `--image ${spec.given}: ${command} needs the image type, TYPE=PATH (e.g. LIVE=${spec.path})`,
        command,
      );
    }
  }
  return Promise.all(
    specs.map(async (spec) =>
      compact({
        type: spec.type,
        additionalDocumentType: spec.additionalDocumentType,
        customerReference: spec.customerReference,
        data: await imageData(ctx, spec),
      }),
    ),
  );
}

/** Quality checks have no per-image reference: `,ref=` there is a mistake, not something to drop. */
function refusePerImageReference(specs: readonly ImageSpec[], command: string, instead: string): void {
  const withRef = specs.find((s) => s.customerReference !== undefined);
  if (withRef) {
    throw new UsageError(
      `--image ${withRef.given}: ${command} has no per-image reference${instead}`,
      command,
    );
  }
}

const IMAGE_HELP = `--image [TYPE[:ADDITIONAL_TYPE]=]PATH[,ref=REFERENCE] is the same on every command:
  TYPE is an upload image type: ADDITIONAL, BSN_STATEMENT, COMPARE, DRIVING_LICENSE, IDENTITY_CARD,
  LIVE, PAPER, PASSPORT, PAYROLL_TAX_STATEMENT, PORTRAIT, RESIDENCE_PERMIT, RTW_DOCUMENT, SIGNATURE,
  WORK_PERMIT (ADDITIONAL:DRIVING_LICENSE=PATH also sets additionalDocumentType); ,ref=REFERENCE sets
  that image's customerReference (id-verify, face-verify).`;

/**
 * `idv id-verify`: upload identity documents (images of at least 640×480, a PDF payroll tax statement;
 * checked before sending).
 */
export const idVerifyCommand: CliCommand = {
  path: ['id-verify'],
  summary: 'upload identity documents (POST /api/v2/idverify)',
  usage:
    'id-verify --product P --image [TYPE=]PATH[,ref=R] [--image …]… [--transaction-id T] ' +
    '[--customer-reference R] [--user-id U] [--rtw-type RTW_…] [--mock-test VALUE]',
  help: `  --product P               IDV_LITE, IDV_STANDARD, RTW_STANDARD
  --image [TYPE=]PATH[,ref=R] an image file (JPEG, PNG, WebP, GIF or TIFF) of at least
                            640×480; PAYROLL_TAX_STATEMENT may also be a PDF; without TYPE the
                            image is sent untyped (the identity document); ref= is that image's
                            customerReference (repeatable)
  --transaction-id T        the transactionId from an SDK token, if one was requested
  --customer-reference R    your reference of the transaction
  --user-id U               a user defined for the account
  --rtw-type T              RTW_NL, RTW_BE, RTW_DE or RTW_UK
  --mock-test VALUE         staging only: APPROVED, APPROVED_EU, APPROVED_NON_EU, APPROVED_RP,
                            DISAPPROVED, TECHNICAL_REJECT
${IMAGE_HELP}`,
  options: {
    product: { type: 'string' },
    image: { type: 'string', multiple: true },
    'transaction-id': { type: 'string' },
    'customer-reference': { type: 'string' },
    'user-id': { type: 'string' },
    'rtw-type': { type: 'string' },
    'mock-test': { type: 'string' },
  },
  async run(ctx) {
    const request = compact({
      product: required(ctx, 'product', 'id-verify'),
      images: await uploadImages(ctx, 'id-verify', { typed: false }),
      transactionId: str(ctx, 'transaction-id'),
      customerReference: str(ctx, 'customer-reference'),
      userId: str(ctx, 'user-id'),
      rtwType: str(ctx, 'rtw-type'),
    }) as IdVerifyInput;
    const mockTest = str(ctx, 'mock-test') as MockTestValue | undefined;
    return ctx.client().verifyIdentity(request, mockTest === undefined ? {} : { mockTest });
  },
};

/** `idv face-verify`: upload the selfie challenges (one COMPARE, at least two LIVE). */
export const faceVerifyCommand: CliCommand = {
  path: ['face-verify'],
  summary: 'upload face verify images (POST /api/v2/faceverify)',
  usage: 'face-verify --transaction-id T --image COMPARE=PATH --image LIVE=PATH --image LIVE=PATH…',
  help: `  --transaction-id T        the transactionId of the SDK token
  --image TYPE=PATH[,ref=R] one COMPARE image and at least two LIVE images (repeatable); ref= is that
                            image's customerReference
${IMAGE_HELP}`,
  options: { 'transaction-id': { type: 'string' }, image: { type: 'string', multiple: true } },
  async run(ctx) {
    return ctx.client().verifyFace({
      transactionId: required(ctx, 'transaction-id', 'face-verify'),
      images: (await uploadImages(ctx, 'face-verify', { typed: true })) as IdVerifyInput['images'],
    });
  },
};

/** `idv face-quality`: ICAO check of one face image. */
export const faceQualityCommand: CliCommand = {
  path: ['face-quality'],
  summary: 'check a face image against ICAO (POST /api/v2/facequality)',
  usage: 'face-quality --image [TYPE=]PATH [--customer-reference R]',
  help: `  --image [TYPE=]PATH      the face image (a TYPE is accepted and not sent: the check has none)
  --customer-reference R   your reference
${IMAGE_HELP}`,
  options: { image: { type: 'string', multiple: true }, 'customer-reference': { type: 'string' } },
  async run(ctx) {
    const specs = imageSpecs(ctx, 'face-quality', '[TYPE=]PATH');
    if (specs.length > 1)
      throw new UsageError('face-quality checks one image: pass --image once', 'face-quality');
    refusePerImageReference(specs, 'face-quality', ' (use --customer-reference R)');
    return ctx.client().checkFaceQuality(
      compact({
        image: await imageData(ctx, specs[0]!),
        customerReference: str(ctx, 'customer-reference'),
      }),
    );
  },
};

/** One image's verdict of `idv quality`. */
interface ImageVerdict {
  readonly image: string;
  readonly result: QualityResponse['result'];
  readonly message?: string;
}

/**
 * `idv quality`: are these images good enough to process? The service answers one result over all images;
 * when that is not APPROVED and there are several, each image is checked alone too (a check is safe to
 * repeat) so the answer says which one failed.
 */
export const qualityCommand: CliCommand = {
  path: ['quality'],
  summary: 'check whether images are good enough to process (POST /api/v2/quality), per image',
  usage: 'quality --image [TYPE=]PATH [--image [TYPE=]PATH]…',
  help: `  --image [TYPE=]PATH   an image file (repeatable; a TYPE is accepted and not sent: the check has none)
Prints the overall result and message, and "images": each image's own result. When the overall result
is not APPROVED and there are several images, each is checked alone as well (one more request each).
${IMAGE_HELP}`,
  options: { image: { type: 'string', multiple: true } },
  async run(ctx) {
    const specs = imageSpecs(ctx, 'quality', '[TYPE=]PATH');
    refusePerImageReference(specs, 'quality', '');
    const images = await Promise.all(specs.map((spec) => imageData(ctx, spec)));
    const client = ctx.client();
    const overall = await client.checkQuality({ images });
    const alone =
      images.length === 1 || overall.result === 'APPROVED'
        ? images.map(() => overall)
        : await Promise.all(images.map((image) => client.checkQuality({ images: [image] })));
    const verdicts: ImageVerdict[] = alone.map((answer, i) => ({
      image: specs[i]!.given,
      result: answer.result,
      ...(typeof answer.message === 'string' && { message: answer.message }),
    }));
    return { ...overall, images: verdicts };
  },
};
