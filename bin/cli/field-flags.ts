/**
 * Request field → `idv` flag, so a validation error the client raises (naming spec fields such as
 * `languagePrefix` or `images[0].data`) also names the flag the user typed.
 */
import { RequestValidationError } from '../../shared/client/errors';

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

/** The flag behind a field path such as `images[1].type` or `vogRequest.profiles[0]`, if any. */
export function flagOfField(path: string): string | undefined {
  const parts = path.replace(/\[[0-9]+\]/g, '').split('.');
  for (let n = parts.length; n > 0; n--) {
    const flag = FIELD_FLAGS[parts.slice(0, n).join('.')];
    if (flag) return flag;
  }
  return undefined;
}

/** The same error with each issue written `path (--flag): message`; other errors unchanged. */
export function withFlagNames(error: unknown): unknown {
  if (!(error instanceof RequestValidationError)) return error;
  const issues = error.issues.map((issue) => {
    const flag = flagOfField(issue.path);
    return flag ? { ...issue, path: `${issue.path} (${flag})` } : issue;
  });
  return new RequestValidationError(issues, error.context);
}
