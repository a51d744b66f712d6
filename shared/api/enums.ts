/**
 * Enumerations of the verification service, letter for letter from the spec (§2.1, §1).
 * Each is a readonly tuple (usable by validators and the simulator) plus its union type.
 */

/** Every product of the service (§1). */
export const PRODUCTS = [
  'FACE_LINK',
  'IDV_LITE',
  'IDV_STANDARD',
  'IDV_PREMIUM',
  'RTW_STANDARD',
  'RTW_PREMIUM',
] as const;
export type Product = (typeof PRODUCTS)[number];

/** Products accepted by POST /api/v2/secureidlink. */
export const SECURE_LINK_PRODUCTS = PRODUCTS;
export type SecureLinkProduct = Product;

/** Products accepted by POST /api/v2/secureidlinks (no FACE_LINK). */
export const BULK_SECURE_LINK_PRODUCTS = [
  'IDV_LITE',
  'IDV_STANDARD',
  'IDV_PREMIUM',
  'RTW_STANDARD',
  'RTW_PREMIUM',
] as const;
export type BulkSecureLinkProduct = (typeof BULK_SECURE_LINK_PRODUCTS)[number];

/** Products accepted by POST /api/v2/idverify. */
export const IDENTITY_UPLOAD_PRODUCTS = ['IDV_LITE', 'IDV_STANDARD', 'RTW_STANDARD'] as const;
export type IdentityUploadProduct = (typeof IDENTITY_UPLOAD_PRODUCTS)[number];

/** Value of every `result` field unless stated otherwise; also the quality result. */
export const RESULT_VALUES = ['UNKNOWN', 'APPROVED', 'DISAPPROVED', 'TECHNICAL_REJECT'] as const;
export type ResultValue = (typeof RESULT_VALUES)[number];

export const RTW_TYPES = ['RTW_NL', 'RTW_BE', 'RTW_DE', 'RTW_UK'] as const;
export type RtwType = (typeof RTW_TYPES)[number];

/** `images[].type` of uploads (idverify, faceverify). */
export const UPLOAD_IMAGE_TYPES = [
  'ADDITIONAL',
  'BSN_STATEMENT',
  'COMPARE',
  'DRIVING_LICENSE',
  'IDENTITY_CARD',
  'LIVE',
  'PAPER',
  'PASSPORT',
  'PAYROLL_TAX_STATEMENT',
  'PORTRAIT',
  'RESIDENCE_PERMIT',
  'RTW_DOCUMENT',
  'SIGNATURE',
  'WORK_PERMIT',
] as const;
export type UploadImageType = (typeof UPLOAD_IMAGE_TYPES)[number];

/** `images[].documentType` in results. */
export const RESULT_IMAGE_DOCUMENT_TYPES = [
  'BSN_STATEMENT',
  'COMPARE',
  'DRIVING_LICENSE',
  'IDENTITY_CARD',
  'LIVE',
  'PAPER',
  'PASSPORT',
  'PORTRAIT',
  'RESIDENCE_PERMIT',
  'RTW_DOCUMENT',
  'SIGNATURE',
  'WORK_PERMIT',
] as const;
export type ResultImageDocumentType = (typeof RESULT_IMAGE_DOCUMENT_TYPES)[number];

export const RESULT_IMAGE_PAGE_TYPES = ['FRONT', 'BACK', 'RESIDENCE_PERMIT_STICKERS', 'ANY'] as const;
export type ResultImagePageType = (typeof RESULT_IMAGE_PAGE_TYPES)[number];

export const RESULT_FILE_DOCUMENT_TYPES = ['TRANSACTION_REPORT', 'PAYROLL_TAX_STATEMENT'] as const;
export type ResultFileDocumentType = (typeof RESULT_FILE_DOCUMENT_TYPES)[number];

/** `communicationModes` of a secure link request. */
export const COMMUNICATION_MODES = ['MODE_EMAIL', 'MODE_SMS', 'MODE_WHATSAPP'] as const;
export type CommunicationMode = (typeof COMMUNICATION_MODES)[number];

export const COMMUNICATION_STATUSES = ['SENT', 'FAILED'] as const;
export type CommunicationStatus = (typeof COMMUNICATION_STATUSES)[number];

export const SDK_SERVICES = ['FACE_VERIFY', 'AUTO_CAPTURE', 'NFC'] as const;
export type SdkService = (typeof SDK_SERVICES)[number];

/** `verificationResult` of sanction list and lost-and-stolen checks. */
export const VERIFICATION_RESULTS = ['NOT_EXECUTED', 'HIT', 'NO_HIT'] as const;
export type VerificationResult = (typeof VERIFICATION_RESULTS)[number];

export const DOCUMENT_SECURITY_FEATURE_VALUES = ['APPROVED', 'NOT_APPLICABLE'] as const;
export type DocumentSecurityFeatureValue = (typeof DOCUMENT_SECURITY_FEATURE_VALUES)[number];

export const VOG_PROFILE_TYPES = ['GENERIC', 'SPECIFIC'] as const;
export type VogProfileType = (typeof VOG_PROFILE_TYPES)[number];

/** Values of the staging-only `mock-test` header (§1). */
export const MOCK_TEST_VALUES = [
  'APPROVED',
  'APPROVED_EU',
  'APPROVED_NON_EU',
  'APPROVED_RP',
  'DISAPPROVED',
  'TECHNICAL_REJECT',
] as const;
export type MockTestValue = (typeof MOCK_TEST_VALUES)[number];

/** Name of the staging-only test header. */
export const MOCK_TEST_HEADER = 'mock-test';

export const ENVIRONMENTS = ['staging', 'production'] as const;
export type ServiceEnvironment = (typeof ENVIRONMENTS)[number];

/** Known OAuth scopes (public sources; the spec does not list them). */
export const KNOWN_SCOPES = [
  'productapi.poll.read',
  'productapi.result.read',
  'productapi.secureidlink.write',
  'productapi.idverify.write',
  'productapi.faceverify.write',
  'productapi.sdk.read',
] as const;

/** Path prefix of every endpoint (§9). */
export const API_PREFIX = '/api/v2';

/** Every path of the service (§4), relative to the base URL. */
export const PATHS = {
  secureLink: `${API_PREFIX}/secureidlink`,
  bulkSecureLinks: `${API_PREFIX}/secureidlinks`,
  faceQuality: `${API_PREFIX}/facequality`,
  faceVerify: `${API_PREFIX}/faceverify`,
  idVerify: `${API_PREFIX}/idverify`,
  oauthToken: `${API_PREFIX}/oauth/token`,
  poll: `${API_PREFIX}/poll`,
  quality: `${API_PREFIX}/quality`,
  result: (resultId: string) => `${API_PREFIX}/result/${encodeURIComponent(resultId)}`,
  faceLinkPackage: `${API_PREFIX}/facelinkpackage`,
  sdkToken: `${API_PREFIX}/sdk/token`,
  vog: `${API_PREFIX}/vog`,
  reasons: `${API_PREFIX}/reasons`,
} as const;

/** Minimum identity-upload image size (§8). */
export const MIN_UPLOAD_WIDTH = 640;
export const MIN_UPLOAD_HEIGHT = 480;

/** Default FACE_VERIFY challenges (§8). */
export const DEFAULT_NUMBER_OF_CHALLENGES = 2;

/** Columns of the bulk secure link CSV, in order (§4.2). */
export const BULK_CSV_COLUMNS = [
  'name',
  'emailAddress',
  'phoneNumber',
  'language',
  'customerReference',
] as const;
