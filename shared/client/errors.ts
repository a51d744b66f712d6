/**
 * Errors of the service client. One base (`IdvError`), one branch for answers of the service
 * (`ServiceError`, subclass chosen by status in `serviceErrorFromResponse`), one for "no answer at all"
 * (`ConnectionError`), and the errors raised before anything is sent.
 *
 * None of these ever carries credentials, tokens, Authorization headers or any text of a response body
 * in its `message` (nor in anything a logger or `JSON.stringify` prints): a body can hold personal data or
 * an echoed request, and errors end up in logs. A service error says the status, the service's numeric
 * `code` and a reason of ours. Only a client built with `keepErrorText` (the `idv` CLI) also keeps a
 * printable copy of the body's `message` and `details` in the non-enumerable `serviceText`, for the person
 * who made the request (./error-text.ts).
 */
import { parseErrorBody } from '../api/responses';
import type { ErrorTextKeeper, ServiceErrorText } from './error-text';

/** Base of every error thrown by the client. */
export class IdvError extends Error {
  override readonly name: string = 'IdvError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Fields common to every answer of the service that was not a success. */
export interface ServiceErrorFields {
  readonly status: number;
  readonly code?: number;
  readonly requestId?: string;
  /** From a `Retry-After` header, in milliseconds from when the answer arrived. */
  readonly retryAfterMs?: number;
  /** The printable copy of the body's `message` and `details` (only with `keepErrorText`). */
  readonly serviceText?: ServiceErrorText;
}

/** The service answered with a non-success status. */
export class ServiceError extends IdvError {
  override readonly name: string = 'ServiceError';
  readonly status: number;
  readonly code?: number;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  /**
   * The service's own words (its `message` and each `details` entry), bounded, printable ASCII and
   * scrubbed, for the person who made the request; only with `keepErrorText`. Non-enumerable, so no logger,
   * `JSON.stringify` or `util.inspect` prints it: read it by name, never log it.
   */
  declare readonly serviceText?: ServiceErrorText;

  constructor(message: string, fields: ServiceErrorFields, options?: { cause?: unknown }) {
    super(message, options);
    this.status = fields.status;
    if (fields.code !== undefined) this.code = fields.code;
    if (fields.requestId !== undefined) this.requestId = fields.requestId;
    if (fields.retryAfterMs !== undefined) this.retryAfterMs = fields.retryAfterMs;
    if (fields.serviceText !== undefined) {
      Object.defineProperty(this, 'serviceText', { value: fields.serviceText, enumerable: false });
    }
  }
}

/**
 * `401, code 16`: the status and the service's numeric `code` (when the body had one), for an error that
 * restates a service answer in other words and must still say what the service said.
 */
export function statusWithCode(error: { readonly status: number; readonly code?: number }): string {
  return error.code === undefined ? String(error.status) : `${error.status}, code ${error.code}`;
}

/**
 * The identifying fields of `error` (status, code, request id), for an error that restates it in words
 * closer to the caller's situation and keeps it as `cause`.
 */
export function serviceErrorFields(error: ServiceError): ServiceErrorFields {
  return {
    status: error.status,
    ...(error.code !== undefined && { code: error.code }),
    ...(error.requestId !== undefined && { requestId: error.requestId }),
    ...(error.serviceText !== undefined && { serviceText: error.serviceText }),
  };
}

/** 400: the service rejected the request (validation, too-small images, not enough live photos, …). */
export class BadRequestError extends ServiceError {
  override readonly name: string = 'BadRequestError';
}

/** 401: the token (or, on the token endpoint, the client credentials) was rejected. */
export class UnauthorizedError extends ServiceError {
  override readonly name: string = 'UnauthorizedError';
}

/** 403: the token lacks a scope or the account may not use the endpoint. */
export class ForbiddenError extends ServiceError {
  override readonly name: string = 'ForbiddenError';
}

/** 404: e.g. a resultId that is unknown or whose data was removed after the retention period. */
export class NotFoundError extends ServiceError {
  override readonly name: string = 'NotFoundError';
}

/**
 * 410: the resource existed and is gone for good, e.g. a result removed after the retention period. A
 * `NotFoundError`, since for every caller it means the same: another implementation of the service may
 * answer 410 where the spec says 404.
 */
export class GoneError extends NotFoundError {
  override readonly name: string = 'GoneError';
}

/** 429: too many requests; `retryAfterMs` is set when the service said how long to wait. */
export class RateLimitError extends ServiceError {
  override readonly name: string = 'RateLimitError';
}

/** 5xx: the service failed. For a POST the request may or may not have taken effect. */
export class ServerError extends ServiceError {
  override readonly name: string = 'ServerError';
}

/** No answer at all: connection refused or reset, DNS failure, or the call timed out. */
export class ConnectionError extends IdvError {
  override readonly name: string = 'ConnectionError';
  /** The call was aborted by the client's timeout. */
  readonly timedOut: boolean;
  /**
   * The request certainly never reached the service (refused connection, unknown host), so even a
   * creating POST is safe to send again. `false` when that cannot be known (reset, timeout).
   */
  readonly notSent: boolean;

  constructor(
    message: string,
    fields: { timedOut: boolean; notSent: boolean },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.timedOut = fields.timedOut;
    this.notSent = fields.notSent;
  }
}

/** A success answer whose body is not JSON or not the documented shape. The body is never included. */
export class ResponseFormatError extends IdvError {
  override readonly name: string = 'ResponseFormatError';
  readonly status: number;

  constructor(message: string, status: number, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
  }
}

/**
 * A success answer larger than the ceiling of a whole-body call (`TransportOptions.maxBodyBytes`): refused
 * once that many bytes arrived (after any decompression), the rest of the download cancelled. Not retried:
 * the same request gets the same answer.
 */
export class ResponseTooLargeError extends ResponseFormatError {
  override readonly name: string = 'ResponseTooLargeError';
  /** The ceiling that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(message: string, status: number, limitBytes: number) {
    super(message, status);
    this.limitBytes = limitBytes;
  }
}

/** One problem of a request, `path` like `images[0].data`. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/** Our own request breaks the spec; nothing was sent. The message lists every issue (`path: message`). */
export class RequestValidationError extends IdvError {
  override readonly name: string = 'RequestValidationError';
  readonly issues: readonly ValidationIssue[];
  /** What was being validated, e.g. `invalid secure link request`. */
  readonly context: string | undefined;

  constructor(issues: readonly ValidationIssue[], context?: string) {
    const list = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    super(context ? `${context}: ${list}` : list);
    this.issues = issues;
    this.context = context;
  }
}

/** The `mock-test` header was asked for against production, where it must never be sent. */
export class MockTestNotAllowedError extends IdvError {
  override readonly name: string = 'MockTestNotAllowedError';

  constructor() {
    super('the mock-test header is only allowed on the staging environment; nothing was sent');
  }
}

/** Our words for the statuses the service uses (spec §7), for the error message. */
const STATUS_REASONS: Readonly<Record<number, string>> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  409: 'conflict',
  410: 'gone',
  413: 'payload too large',
  415: 'unsupported media type',
  422: 'unprocessable',
  429: 'too many requests',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};

/** A reason of ours for `status`: its name, else its class. */
function statusReason(status: number): string {
  const known = STATUS_REASONS[status];
  if (known) return known;
  if (status >= 500 && status <= 599) return 'server error';
  if (status >= 400 && status <= 499) return 'client error';
  return 'unexpected status';
}

/** Headers that may name the request for support; the first present one becomes `requestId`. */
const REQUEST_ID_HEADERS = ['x-request-id', 'x-amzn-requestid', 'x-correlation-id', 'request-id'];

/**
 * Builds the error for a non-success answer: the subclass is chosen by status, `code` comes from the
 * default error body (§7) when it has that shape, `requestId` and `retryAfterMs` from headers. The message
 * is `service answered <status> (<reason of ours>[, code <n>])`: the body's `message` and `details` are
 * never copied into it (only into `serviceText`, with `keepErrorText`), since a service (or a proxy in front of it) may echo submitted data or the request's
 * Authorization header there, and errors end up in logs.
 */
export function serviceErrorFromResponse(
  status: number,
  body: unknown,
  headers: Headers,
  now: () => number = Date.now,
  options: { readonly keepErrorText?: ErrorTextKeeper | undefined } = {},
): ServiceError {
  const errorBody = parseErrorBody(body);
  const text = options.keepErrorText?.(errorBody.message, errorBody.details);
  const fields: ServiceErrorFields = {
    status,
    ...(errorBody.code !== undefined && { code: errorBody.code }),
    ...optional('requestId', firstHeader(headers, REQUEST_ID_HEADERS)),
    ...optional('retryAfterMs', parseRetryAfter(headers.get('retry-after'), now())),
    ...(text && (text.message !== undefined || text.detailsTotal > 0) && { serviceText: text }),
  };
  const code = errorBody.code === undefined ? '' : `, code ${errorBody.code}`;
  const message = `service answered ${status} (${statusReason(status)}${code})`;
  if (status === 400) return new BadRequestError(message, fields);
  if (status === 401) return new UnauthorizedError(message, fields);
  if (status === 403) return new ForbiddenError(message, fields);
  if (status === 404) return new NotFoundError(message, fields);
  if (status === 410) return new GoneError(message, fields);
  if (status === 429) return new RateLimitError(message, fields);
  if (status >= 500 && status <= 599) return new ServerError(message, fields);
  return new ServiceError(message, fields);
}

/**
 * `Retry-After` as milliseconds from `nowMs`: either delta-seconds or an HTTP date (RFC 9110 §10.2.3).
 * `undefined` when absent or unreadable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^[0-9]+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** A request id as services write them (letters, digits, `. _ : -`); anything else is not kept. */
const REQUEST_ID_SHAPE = /^[A-Za-z0-9._:-]{1,128}$/;

function firstHeader(headers: Headers, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headers.get(name)?.trim();
    if (value) return REQUEST_ID_SHAPE.test(value) ? value : undefined;
  }
  return undefined;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
