/**
 * Request authentication for the local emulators: every run gets its own random key pair, and every
 * request must carry an AWS Signature Version 4 made with it (the scheme the SDK clients use), so that
 * another user of the machine, who can reach 127.0.0.1 but cannot read the owner-only data directory or
 * the run's environment, is refused. See docs/local-run.md ("Who can reach the local run").
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A key pair of one local run; the secret half never leaves the run's process and its stack file. */
export interface RunCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** A new random key pair (96-bit key id, 240-bit secret). */
export function newRunCredentials(): RunCredentials {
  return {
    accessKeyId: `LOCAL${randomBytes(12).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
}

/** How far `X-Amz-Date` may be from now, as AWS allows. */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;_.-]+),\s*Signature=([0-9a-f]{64})$/;

/** A request's signature as its headers give it, once the key id was found to be this run's. */
export interface SignedRequest {
  readonly date: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
  readonly amzDate: string;
  /** `x-amz-content-sha256` when it is signed (S3): the signature can be checked before the body. */
  readonly payloadHash?: string;
}

/**
 * Looks at a request's headers only (nothing of the body is read): the `Authorization` header must be a
 * SigV4 header naming this run's key id (compared in constant time), signing `host` and a fresh
 * `x-amz-date`. Returns what {@link signatureMatches} needs, or `undefined` to refuse the request.
 * Query-string signatures (presigned URLs) are not accepted.
 */
export function readSignedRequest(
  req: IncomingMessage,
  credentials: RunCredentials,
): SignedRequest | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = AUTHORIZATION.exec(header);
  if (!match) return undefined;
  const [, keyId, date, region, service, signedList, signature] = match as unknown as string[];
  if (!sameSecret(keyId!, credentials.accessKeyId)) return undefined;
  const signedHeaders = signedList!.split(';');
  const amzDate = req.headers['x-amz-date'];
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return undefined;
  if (typeof amzDate !== 'string' || !amzDate.startsWith(date!)) return undefined;
  const time = Date.parse(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  if (!Number.isFinite(time) || Math.abs(Date.now() - time) > MAX_CLOCK_SKEW_MS) return undefined;
  const contentHash = req.headers['x-amz-content-sha256'];
  return {
    date: date!,
    region: region!,
    service: service!,
    signedHeaders,
    signature: signature!,
    amzDate,
    ...(typeof contentHash === 'string' && signedHeaders.includes('x-amz-content-sha256')
      ? { payloadHash: contentHash }
      : {}),
  };
}

/** The SHA-256 of a body as SigV4 puts it in the canonical request. */
export function payloadHashOf(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

/**
 * Recomputes the request's SigV4 signature with this run's secret key and compares it (constant time).
 * `payloadHash` is the signed `x-amz-content-sha256`, or the hash of the body read so far.
 */
export function signatureMatches(
  req: IncomingMessage,
  signed: SignedRequest,
  credentials: RunCredentials,
  payloadHash: string,
): boolean {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const query = queryAt < 0 ? '' : url.slice(queryAt + 1);
  const headerLines: string[] = [];
  for (const name of signed.signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return false;
    const text = Array.isArray(value) ? value.join(',') : value;
    headerLines.push(
      `${name}:${text
        .replace(/[\r\n]/g, ' ')
        .replace(/[ \t]+/g, ' ')
        .trim()}`,
    );
  }
  let canonicalPath: string;
  let canonicalQuery: string;
  try {
    canonicalPath = signed.service === 's3' ? path : doubleEncodedPath(path);
    canonicalQuery = canonicalQueryOf(query);
  } catch {
    return false; // a malformed escape: no SDK signed this
  }
  const canonicalRequest = [
    req.method ?? 'GET',
    canonicalPath,
    canonicalQuery,
    `${headerLines.join('\n')}\n`,
    signed.signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${signed.date}/${signed.region}/${signed.service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    signed.amzDate,
    scope,
    createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
  ].join('\n');
  const expected = createHmac('sha256', signingKey(credentials, scope)).update(stringToSign).digest('hex');
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(signed.signature, 'hex'));
}

/**
 * Signing keys of each run's key pair by scope (date/region/service), as the SDK's signer caches them:
 * deriving one takes four HMACs, and every request of a day to one service shares it. At most
 * {@link MAX_SIGNING_KEYS} per key pair (scopes come from request headers: the cache starts over beyond).
 */
const signingKeys = new WeakMap<RunCredentials, Map<string, Buffer>>();
const MAX_SIGNING_KEYS = 32;

/** The SigV4 signing key of `secret` for `scope` (`date/region/service/aws4_request`): four HMACs. */
function deriveSigningKey(secret: string, scope: string): Buffer {
  let key: Buffer | string = `AWS4${secret}`;
  for (const part of scope.split('/')) key = createHmac('sha256', key).update(part).digest();
  return key as Buffer;
}

function signingKey(credentials: RunCredentials, scope: string): Buffer {
  let keys = signingKeys.get(credentials);
  if (!keys) {
    keys = new Map();
    signingKeys.set(credentials, keys);
  }
  let key = keys.get(scope);
  if (!key) {
    key = deriveSigningKey(credentials.secretAccessKey, scope);
    if (keys.size >= MAX_SIGNING_KEYS) keys.clear();
    keys.set(scope, key);
  }
  return key;
}

/** Compares two secrets in constant time (hashed first, so the length leaks nothing either). */
export function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** RFC 3986 escaping as the SDK's signer does it. */
function escapeUri(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Every service but S3 signs the normalised path, escaped once more. */
function doubleEncodedPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalised = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return escapeUri(normalised).replace(/%2F/g, '/');
}

/** Parameters sorted by escaped name; a parameter without `=` is left out, as the SDK's signer does. */
function canonicalQueryOf(query: string): string {
  if (query === '') return '';
  const byKey = new Map<string, string[]>();
  for (const part of query.split('&')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = escapeUri(decodeURIComponent(part.slice(0, at)));
    if (key.toLowerCase() === 'x-amz-signature') continue;
    const value = `${key}=${escapeUri(decodeURIComponent(part.slice(at + 1)))}`;
    byKey.set(key, [...(byKey.get(key) ?? []), value]);
  }
  return [...byKey.keys()]
    .sort()
    .map((key) => byKey.get(key)!.sort().join('&'))
    .join('&');
}
