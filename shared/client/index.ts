/** Public API of the verification service client. */

export { RESULT_ID_PATTERN, RESULT_ID_RULE, resultIdFromJson } from '../api/result-id';
export type {
  BulkSecureLinksInput,
  FaceLinkPackageInput,
  FaceQualityInput,
  FaceVerifyInput,
  IdVerifyInput,
  IdvClientOptions,
  MockTestOptions,
  QualityInput,
  SdkTokenInput,
  SecureLinkInput,
  VogInput,
} from './client';
export { IdvClient } from './client';
export type { ErrorTextKeeper, ServiceErrorDetail, ServiceErrorText } from './error-text';
export { serviceErrorText } from './error-text';
export type { ServiceErrorFields, ValidationIssue } from './errors';
export {
  BadRequestError,
  ConnectionError,
  ForbiddenError,
  GoneError,
  IdvError,
  MockTestNotAllowedError,
  NotFoundError,
  parseRetryAfter,
  RateLimitError,
  RequestValidationError,
  ResponseFormatError,
  ServerError,
  ServiceError,
  serviceErrorFromResponse,
  UnauthorizedError,
} from './errors';
export type { InMemoryTokenProviderOptions } from './in-memory-token-provider';
export { InMemoryTokenProvider } from './in-memory-token-provider';
export type { FetchAccessTokenOptions } from './oauth';
export { fetchAccessToken, serviceUrl } from './oauth';
export { type ClientOptions, ResultsClient } from './results-client';
export type { RetryDecision, RetryInput, RetryOptions } from './retry';
export { DEFAULT_RETRY_OPTIONS, shouldRetry } from './retry';
export type { AccessToken, TokenProvider } from './token-provider';
export { authorizationOf } from './token-provider';
export {
  encodeBulkCsv,
  validateFaceVerifyRequest,
  validateIdVerifyRequest,
  validateRequest,
} from './validate';
export { checkBulkCsv, validateBulkSecureLinksRequest } from './validate-bulk';
export { validateResultId } from './validate-ids';
