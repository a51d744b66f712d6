/** Commands that upload images: `id-verify`, `face-verify`, `face-quality`, `quality`. */
import type { MockTestValue } from '../../shared/api/enums';
import type { IdVerifyInput } from '../../shared/client/client';
import { UsageError } from './errors';
import { compact, list, readInput, required, str } from './flags';
import type { CliCommand, CommandContext } from './types';

/** One uploaded image as the request wants it. */
interface ImageField {
  type: string;
  additionalDocumentType?: string;
  data: string;
}

/**
 * Reads the `--image TYPE=PATH` flags. `ADDITIONAL:DRIVING_LICENSE=PATH` (or `PAPER:X=PATH`) sets the
 * image's `additionalDocumentType`. Type values are checked by the request schema, naming `images[i].type`.
 */
export async function typedImages(ctx: CommandContext, command: string): Promise<ImageField[]> {
  const specs = list(ctx, 'image');
  if (specs.length === 0) throw new UsageError('missing --image TYPE=PATH', command);
  return Promise.all(
    specs.map(async (spec) => {
      const eq = spec.indexOf('=');
      if (eq <= 0 || eq === spec.length - 1) {
        throw new UsageError(
          `--image must be TYPE=PATH (e.g. PASSPORT=passport.jpg), got "${spec}"`,
          command,
        );
      }
      const [type, additionalDocumentType] = spec.slice(0, eq).split(':', 2) as [string, string | undefined];
      const data = (await readInput(ctx, spec.slice(eq + 1), 'image')).toString('base64');
      return additionalDocumentType ? { type, additionalDocumentType, data } : { type, data };
    }),
  );
}

const IMAGE_TYPES_HELP = `TYPE is an upload image type: ADDITIONAL, BSN_STATEMENT, COMPARE, DRIVING_LICENSE, IDENTITY_CARD,
  LIVE, PAPER, PASSPORT, PAYROLL_TAX_STATEMENT, PORTRAIT, RESIDENCE_PERMIT, RTW_DOCUMENT, SIGNATURE,
  WORK_PERMIT. ADDITIONAL:DRIVING_LICENSE=PATH also sets additionalDocumentType.`;

/**
 * `idv id-verify`: upload identity documents (images of at least 640×480, a PDF payroll tax statement;
 * checked before sending).
 */
export const idVerifyCommand: CliCommand = {
  path: ['id-verify'],
  summary: 'upload identity documents (POST /api/v2/idverify)',
  usage:
    'id-verify --product P --image TYPE=PATH [--image TYPE=PATH]… [--transaction-id T] ' +
    '[--customer-reference R] [--user-id U] [--rtw-type RTW_…] [--mock-test VALUE]',
  help: `  --product P               IDV_LITE, IDV_STANDARD, RTW_STANDARD
  --image TYPE=PATH         an image file (JPEG, PNG, WebP, GIF or TIFF) of at least 640×480;
                            PAYROLL_TAX_STATEMENT may also be a PDF (repeatable)
  --transaction-id T        the transactionId from an SDK token, if one was requested
  --customer-reference R    your reference
  --user-id U               a user defined for the account
  --rtw-type T              RTW_NL, RTW_BE, RTW_DE or RTW_UK
  --mock-test VALUE         staging only: APPROVED, APPROVED_EU, APPROVED_NON_EU, APPROVED_RP,
                            DISAPPROVED, TECHNICAL_REJECT
  ${IMAGE_TYPES_HELP}`,
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
      images: await typedImages(ctx, 'id-verify'),
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
  help: `  --transaction-id T   the transactionId of the SDK token
  --image TYPE=PATH    one COMPARE image and at least two LIVE images (repeatable)`,
  options: { 'transaction-id': { type: 'string' }, image: { type: 'string', multiple: true } },
  async run(ctx) {
    return ctx.client().verifyFace({
      transactionId: required(ctx, 'transaction-id', 'face-verify'),
      images: (await typedImages(ctx, 'face-verify')) as IdVerifyInput['images'],
    });
  },
};

/** `idv face-quality`: ICAO check of one face image. */
export const faceQualityCommand: CliCommand = {
  path: ['face-quality'],
  summary: 'check a face image against ICAO (POST /api/v2/facequality)',
  usage: 'face-quality --image PATH [--customer-reference R]',
  help: `  --image PATH             the face image
  --customer-reference R   your reference`,
  options: { image: { type: 'string' }, 'customer-reference': { type: 'string' } },
  async run(ctx) {
    const image = await readInput(ctx, required(ctx, 'image', 'face-quality'), 'image');
    return ctx
      .client()
      .checkFaceQuality(
        compact({ image: image.toString('base64'), customerReference: str(ctx, 'customer-reference') }),
      );
  },
};

/** `idv quality`: are these images good enough to process? */
export const qualityCommand: CliCommand = {
  path: ['quality'],
  summary: 'check whether images are good enough to process (POST /api/v2/quality)',
  usage: 'quality --image PATH [--image PATH]…',
  help: '  --image PATH   an image file (repeatable)',
  options: { image: { type: 'string', multiple: true } },
  async run(ctx) {
    const paths = list(ctx, 'image');
    if (paths.length === 0) throw new UsageError('missing --image PATH', 'quality');
    const images = await Promise.all(
      paths.map(async (p) => (await readInput(ctx, p, 'image')).toString('base64')),
    );
    return ctx.client().checkQuality({ images });
  },
};
