/** Commands with few flags: `sdk-token`, `vog create`, `reasons`, `facelink-package`, `poll`. */
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SdkTokenInput, VogInput } from '../../shared/client/client';
import { NotFoundError, serviceErrorFields, statusWithCode } from '../../shared/client/errors';
import { UsageError } from './errors';
import { compact, flag, int, list, required, str } from './flags';
import type { CliCommand, CommandContext } from './types';

/** `idv sdk-token`: a token for the capture SDKs; starts a transaction. */
export const sdkTokenCommand: CliCommand = {
  path: ['sdk-token'],
  summary: 'request an SDK token (GET /api/v2/sdk/token)',
  usage:
    'sdk-token --service S [--service S]… [--challenges N] [--customer-reference R] [--validate-watermark]',
  help: `  --service S              FACE_VERIFY, AUTO_CAPTURE or NFC (repeatable)
  --challenges N           number of FACE_VERIFY challenges (service default 2)
  --customer-reference R   your reference
  --validate-watermark     watermark FACE_VERIFY images and check it on upload`,
  options: {
    service: { type: 'string', multiple: true },
    challenges: { type: 'string' },
    'customer-reference': { type: 'string' },
    'validate-watermark': { type: 'boolean' },
  },
  async run(ctx) {
    const services = list(ctx, 'service');
    if (services.length === 0) required(ctx, 'service', 'sdk-token');
    return ctx.client().getSdkToken(
      compact({
        services,
        numberOfChallenges: int(ctx, 'challenges', 'sdk-token'),
        customerReference: str(ctx, 'customer-reference'),
        validateWatermark: flag(ctx, 'validate-watermark'),
      }) as SdkTokenInput,
    );
  },
};

/** `idv vog create`: request a certificate of conduct (VOG). */
export const vogCreateCommand: CliCommand = {
  path: ['vog', 'create'],
  summary: 'request a certificate of conduct (POST /api/v2/vog)',
  usage:
    'vog create --given-names G --surname S --email E --language xx --company C --job-title J ' +
    '--profile N [--profile N]… --profile-type GENERIC|SPECIFIC [--existing-vog] [--customer-reference R] [--user-id U]',
  help: `  --given-names G, --surname S   of the person requesting the VOG
  --email E                      address that receives the link
  --language xx                  two-letter lowercase language code
  --company C, --job-title J     the organisation and the position
  --profile N                    screening profile number (repeatable)
  --profile-type T               GENERIC or SPECIFIC
  --existing-vog                 the person already has a VOG: send the upload link at once
  --customer-reference R, --user-id U`,
  options: {
    'given-names': { type: 'string' },
    surname: { type: 'string' },
    email: { type: 'string' },
    language: { type: 'string' },
    company: { type: 'string' },
    'job-title': { type: 'string' },
    profile: { type: 'string', multiple: true },
    'profile-type': { type: 'string' },
    'existing-vog': { type: 'boolean' },
    'customer-reference': { type: 'string' },
    'user-id': { type: 'string' },
  },
  async run(ctx) {
    const c = 'vog create';
    const profiles = list(ctx, 'profile');
    if (profiles.length === 0) required(ctx, 'profile', c);
    const request = compact({
      givenNames: required(ctx, 'given-names', c),
      surname: required(ctx, 'surname', c),
      emailAddress: required(ctx, 'email', c),
      language: required(ctx, 'language', c),
      vogRequest: {
        companyName: required(ctx, 'company', c),
        jobTitle: required(ctx, 'job-title', c),
        profiles,
        profileType: required(ctx, 'profile-type', c),
      },
      hasExistingVog: flag(ctx, 'existing-vog'),
      customerReference: str(ctx, 'customer-reference'),
      userId: str(ctx, 'user-id'),
    }) as VogInput;
    return ctx.client().createVog(request);
  },
};

/** `idv reasons`: every reject and disapprove reason. */
export const reasonsCommand: CliCommand = {
  path: ['reasons'],
  summary: 'list the reject and disapprove reasons (GET /api/v2/reasons)',
  usage: 'reasons',
  help: '',
  options: {},
  run: (ctx) => ctx.client().getReasons(),
};

/**
 * `idv facelink-package`: the encrypted FaceLink package; the service deletes it after this call, so
 * `--package-out FILE` is opened (mode 0600) before the request: a path that cannot be written must not cost the
 * only copy.
 */
export const faceLinkPackageCommand: CliCommand = {
  path: ['facelink-package'],
  summary: 'retrieve a FaceLink package, once (POST /api/v2/facelinkpackage)',
  usage: 'facelink-package --token T [--package-out FILE]',
  help: `  --token T             the one-time accept token of the activation link
  --package-out FILE    write packageData to FILE (mode 0600, opened before the request) and print the
                        file name instead of the package; without it the package is printed (it is
                        served once). Like --qr-out FILE; --out is a directory everywhere.`,
  options: { token: { type: 'string' }, 'package-out': { type: 'string' } },
  run: async (ctx) => {
    const token = required(ctx, 'token', 'facelink-package');
    const out = str(ctx, 'package-out');
    const file = out === undefined ? undefined : await openOutFile(resolve(ctx.io.cwd, out), out);
    let answer: Awaited<ReturnType<ReturnType<typeof ctx.client>['getFaceLinkPackage']>>;
    try {
      answer = await fetchPackage(ctx, token);
    } catch (error) {
      await file?.close();
      if (file) await unlink(file.path).catch(() => undefined);
      throw error;
    }
    if (!file) return answer;
    const { packageData, ...rest } = answer;
    await file.handle.writeFile(String(packageData ?? ''), 'utf8');
    await file.close();
    return { ...rest, packageFile: file.path };
  },
};

async function openOutFile(path: string, given: string) {
  let handle: FileHandle;
  try {
    handle = await open(path, 'w', 0o600);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    throw new UsageError(
      `cannot write the file of --package-out ${given} (${code}); nothing was fetched`,
      'facelink-package',
    );
  }
  return { handle, path, close: () => handle.close() };
}

function fetchPackage(ctx: CommandContext, token: string) {
  return ctx
    .client()
    .getFaceLinkPackage({ token })
    .catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
      throw new NotFoundError(
        `no FaceLink package for this token (${statusWithCode(error)}): it was already retrieved (a package is served once) ` +
          'or the token is unknown',
        serviceErrorFields(error),
        { cause: error },
      );
    });
}

/** `idv poll`: the pending polling records. */
export const pollCommand: CliCommand = {
  path: ['poll'],
  summary: 'list finished transactions not yet fetched (GET /api/v2/poll)',
  usage: 'poll',
  help: '',
  options: {},
  run: (ctx) => ctx.client().poll(),
};
