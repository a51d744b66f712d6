/**
 * HTTP plumbing of the simulator: the default error body (§7) and its codes, request validation with
 * the shared schemas, route declarations, and sending JSON (including results whose pooled image data is
 * spliced in as cached bytes, and the truncation fault).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from 'zod/mini';
import type { KNOWN_SCOPES } from '../shared/api/enums';
import type { VerificationResultDocument } from '../shared/api/schemas';
import { jsonStringBytes } from './images';
import { stripUnknownFields } from './tolerant';

/** An error answer: the status and the default error body (§7), plus any headers. */
export interface ApiError {
  status: number;
  code: number;
  message: string;
  details?: unknown[];
  headers?: Record<string, string>;
}

/** Default error body codes (gRPC status numbers, as the service uses). */
export const CODE = {
  invalidArgument: 3,
  notFound: 5,
  permissionDenied: 7,
  resourceExhausted: 8,
  failedPrecondition: 9,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  unauthenticated: 16,
} as const;

/** Thrown by handlers; the dispatcher answers it with the default error body. */
export class HttpError extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
    this.name = 'HttpError';
  }
}

export const unauthorized = (): HttpError =>
  new HttpError({ status: 401, code: CODE.unauthenticated, message: 'Unauthorized' });
export const notFound = (): HttpError =>
  new HttpError({ status: 404, code: CODE.notFound, message: 'NotFound' });
export const unavailable = (): HttpError =>
  new HttpError({ status: 503, code: CODE.unavailable, message: 'Unavailable' });
export const badRequest = (field: string, message: string): HttpError =>
  new HttpError({
    status: 400,
    code: CODE.invalidArgument,
    message: `Invalid request: ${field} ${message}`,
    details: [{ field, message }],
  });

/**
 * Validates with a shared schema, read tolerantly: fields the schema does not define are dropped first
 * (and passed to `onIgnored`), as a server ignores what it does not use. A failure is a 400 naming each
 * field, never echoing values.
 */
export function validate<S extends z.ZodMiniType>(
  schema: S,
  input: unknown,
  onIgnored?: (fields: string[]) => void,
): z.infer<S> {
  const ignored: string[] = [];
  const parsed = schema.safeParse(stripUnknownFields(schema, input, ignored));
  if (ignored.length > 0) onIgnored?.(ignored);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({
    field: i.path.length > 0 ? i.path.join('.') : '(body)',
    message: i.message,
    code: i.code,
  }));
  throw new HttpError({
    status: 400,
    code: CODE.invalidArgument,
    message: `Invalid request: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`,
    details,
  });
}

/**
 * Body limits. Nothing is read before the route has authenticated the request: then at most
 * `PREAUTH_BODY_BYTES` (enough for an OAuth token request's body), the rest never (401 and the
 * connection closed). An authenticated request reads what its route needs: `DEFAULT_BODY_BYTES` for a
 * JSON request without images, `UPLOAD_BODY_BYTES` for the image uploads (the spec states no image or
 * request size; 64 MiB holds several large base64 images), `BULK_BODY_BYTES` for a bulk CSV.
 */
export const PREAUTH_BODY_BYTES = 4 * 1024;
export const DEFAULT_BODY_BYTES = 64 * 1024;
export const UPLOAD_BODY_BYTES = 64 * 1024 * 1024;
export const BULK_BODY_BYTES = 16 * 1024 * 1024;

/** What a handler gets. */
export interface RouteContext {
  req: IncomingMessage;
  url: URL;
  body: unknown;
  params: string[];
}

export type Handler = (ctx: RouteContext) => unknown | Promise<unknown>;

/** One endpoint: method, path pattern, how it authenticates, and its handler. */
export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  auth: 'basic' | 'bearer' | 'none';
  /** OAuth scope a Bearer token needs (when scopes are enforced); none: any live token. */
  scope?: KnownScope;
  /**
   * Largest body the route reads once the request is authenticated (larger: 413).
   * @default DEFAULT_BODY_BYTES, enough for any request without images
   */
  maxBodyBytes?: number;
  handler: Handler;
}

/** A scope of `KNOWN_SCOPES`. */
export type KnownScope = (typeof KNOWN_SCOPES)[number];

/** 403 for a token without the scope the endpoint needs (gRPC 7, PERMISSION_DENIED). */
export const permissionDenied = (scope: string): HttpError =>
  new HttpError({
    status: 403,
    code: CODE.permissionDenied,
    message: 'PermissionDenied',
    details: [{ requiredScope: scope }],
  });

/** A pattern matching exactly `path`. */
export function exact(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
}

/** `decodeURIComponent`, or the input when it is not valid percent-encoding. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A response body already serialised as JSON, in pieces. */
export class JsonParts {
  constructor(readonly parts: Buffer[]) {}
}

const PLACEHOLDER_NONCE = randomBytes(8).toString('hex');
const PLACEHOLDER_RE = new RegExp(`"__sim_image_${PLACEHOLDER_NONCE}_(\\d+)__"`, 'g');

/**
 * Serialises a result with its (pooled, multi-megabyte) image data spliced in as cached bytes: plain
 * `JSON.stringify` would scan every base64 character on every request. The nonce keeps placeholders from
 * colliding with caller-supplied strings such as a customerReference.
 */
export function serializeResult(doc: VerificationResultDocument): JsonParts {
  const images = doc.images ?? [];
  const stripped = {
    ...doc,
    images: images.map((img, k) => ({ ...img, data: `__sim_image_${PLACEHOLDER_NONCE}_${k}__` })),
  };
  const json = JSON.stringify(stripped);
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of json.matchAll(PLACEHOLDER_RE)) {
    parts.push(Buffer.from(json.slice(last, m.index), 'utf8'));
    parts.push(jsonStringBytes(images[Number(m[1])]!.data));
    last = m.index + m[0].length;
  }
  parts.push(Buffer.from(json.slice(last), 'utf8'));
  return new JsonParts(parts);
}

/** Sends `payload` as JSON; `truncate` promises the full length, sends half and cuts the connection. */
export function sendJson(res: ServerResponse, status: number, payload: unknown, truncate = false): void {
  const body =
    payload instanceof JsonParts ? Buffer.concat(payload.parts) : Buffer.from(JSON.stringify(payload));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(body.length) });
  if (truncate) {
    // Promise the full length, send half, then cut the connection: the client sees a short body.
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
    return;
  }
  res.end(body);
}

/** Sends the default error body (§7) with the error's status and headers. */
export function sendError(res: ServerResponse, error: ApiError, truncate = false): void {
  for (const [k, v] of Object.entries(error.headers ?? {})) res.setHeader(k, v);
  sendJson(
    res,
    error.status,
    { code: error.code, message: error.message, details: error.details ?? [] },
    truncate,
  );
}
