/**
 * Request field → `idv` flag, so a validation error the client raises (naming spec fields such as
 * `languagePrefix` or `images[0].data`) also names the flag the user typed, with the value it was given
 * for a repeated flag (`images[1].data (--image PASSPORT=small.jpg)`: the file, not an index) and, for a
 * value outside an enum, the closest allowed one (`did you mean IDV_STANDARD?`).
 */

import { closest } from '../../shared/args';
import { RequestValidationError } from '../../shared/client/errors';
import type { FlagValues } from './flag-values';

/** Spec field paths (indices removed) and the flag that sets them; one table, as flag names are shared. */
const FIELD_FLAGS: Readonly<Record<string, string>> = {
  product: '--product',
  name: '--name',
  emailAddress: '--email',
  phoneNumber: '--phone',
  whatsappPhoneNumber: '--whatsapp-phone',
  communicationModes: '--mode',
  languagePrefix: '--language',
  additionalDocuments: '--additional-document',
  customerReference: '--customer-reference',
  userId: '--user-id',
  linkedTransactionId: '--linked-transaction-id',
  rtwType: '--rtw-type',
  mockTest: '--mock-test',
  file: '--csv',
  services: '--service',
  numberOfChallenges: '--challenges',
  validateWatermark: '--validate-watermark',
  disableCommunication: '--disable-communication',
  enableOneTimePassword: '--otp',
  hasExistingVog: '--existing-vog',
  transactionId: '--transaction-id',
  images: '--image',
  image: '--image',
  givenNames: '--given-names',
  surname: '--surname',
  language: '--language',
  'vogRequest.companyName': '--company',
  'vogRequest.jobTitle': '--job-title',
  'vogRequest.profiles': '--profile',
  'vogRequest.profileType': '--profile-type',
  token: '--token',
  resultId: 'RESULT_ID',
};

/** The list index in a field path: `images[1].data` (the client's) or `images.1.data` (the service's). */
function indexOf(path: string): string | undefined {
  const m = /\[([0-9]+)\]|\.([0-9]+)(?=\.|$)/.exec(path);
  return m?.[1] ?? m?.[2];
}

/** The flag behind a field path such as `images[1].type` or `vogRequest.profiles[0]`, if any. */
export function flagOfField(path: string): string | undefined {
  const parts = path.replace(/\[[0-9]+\]/g, '').split('.');
  for (let n = parts.length; n > 0; n--) {
    const flag = FIELD_FLAGS[parts.slice(0, n).join('.')];
    if (flag) return flag;
  }
  return undefined;
}

/**
 * The flag of `path` as the user typed it: with its value for a repeated flag and for `--image`
 * (`--image PASSPORT=a.jpg` for `images[0].data`), else the bare flag; `undefined` when no flag sets the field.
 */
export function typedFlagOfField(path: string, values: FlagValues = {}): string | undefined {
  const flag = flagOfField(path);
  if (!flag?.startsWith('--')) return flag;
  const given = values[flag.slice(2)];
  const index = indexOf(path);
  // A repeated flag (and --image, which names a file) says which value; a single one is plain enough,
  // and so is an issue about the whole list (`images: must contain at least 2 LIVE images`).
  if (!Array.isArray(given) && flag !== '--image') return flag;
  if (Array.isArray(given) && index === undefined) return flag;
  const value = Array.isArray(given) ? given[Number(index ?? 0)] : given;
  return typeof value === 'string' && value.length <= 200 ? `${flag} ${value}` : flag;
}

/**
 * `Invalid option: expected one of "A"|"B"` (zod's enum message) or `must be one of A, B` (the client's
 * own) → the values it allows.
 */
function allowedOf(message: string): string[] | undefined {
  const plain = /^must be one of ([A-Za-z0-9_]+(?:, [A-Za-z0-9_]+)*)$/.exec(message)?.[1];
  if (plain) return plain.split(', ');
  const list = /expected one of (.+)$/.exec(message)?.[1];
  if (!list) return undefined;
  const values = [...list.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  return values.length > 0 ? values : undefined;
}

/** The value typed for the field at `path`, when one flag gives it whole (not an `--image` spec). */
function typedValue(path: string, values: FlagValues): string | undefined {
  const flag = flagOfField(path);
  if (!flag?.startsWith('--') || flag === '--image') return undefined;
  const given = values[flag.slice(2)];
  const index = indexOf(path);
  const value = Array.isArray(given) ? given[Number(index ?? 0)] : given;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The same error with each issue written `path (--flag value): message`, and `(did you mean X?)` after an
 * enum value with a close allowed one; other errors unchanged.
 */
export function withFlagNames(error: unknown, values: FlagValues = {}): unknown {
  if (!(error instanceof RequestValidationError)) return error;
  const issues = error.issues.map((issue) => {
    if (/\(--|\(RESULT_ID\)/.test(issue.path)) return issue;
    const flag = typedFlagOfField(issue.path, values);
    const allowed = allowedOf(issue.message);
    const typed = allowed ? typedValue(issue.path, values) : undefined;
    const guess = typed === undefined ? undefined : closest(typed.toUpperCase(), allowed!);
    const message = allowed
      ? `must be one of ${allowed.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`
      : issue.message;
    return { path: flag ? `${issue.path} (${flag})` : issue.path, message };
  });
  return new RequestValidationError(issues, error.context);
}
