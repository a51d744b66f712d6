/**
 * PutObject of a small blob as one signed HTTP PUT, without the SDK's command stack. A result of 1,000
 * images of 50 KB spent about 1 ms of CPU per image in that stack: serialisation schemas, endpoint rules,
 * checksum and retry middleware, logger filters, the user agent, a signing key derived per request and a
 * copy of the request per step. That was three times what the request itself costs, and every object it
 * made while the request was in flight lived long enough to be promoted, so the old generation filled
 * and was collected again and again (docs/benchmarks.md, "Many images: the direct PutObject").
 *
 * What makes the request right still comes from the client:
 * - **Endpoint**: the client's own endpoint rules, resolved once per bucket (virtual-hosted or path
 *   style, FIPS, dual-stack, a custom endpoint). An endpoint that is not plain SigV4 (S3 Express, a
 *   multi-region access point) is left to the SDK: {@link DirectPut.route} answers undefined, and the
 *   caller sends a `PutObjectCommand`.
 * - **Credentials**: its provider, asked again when the credentials expire within five minutes (the
 *   SDK's own refresh window), and its clock-skew correction.
 * - **Attempts**: its `maxAttempts`.
 *
 * The request is signed here with SigV4 (`signV4`, tested against the SDK's signer). It is sent by the
 * keep-alive HTTP/1.1 client of `http1.ts`, whose pooled connections the PUTs of every result share.
 * The headers are the ones the SDK sends for this PutObject: the content type, the `sha256` metadata,
 * `x-amz-checksum-sha256` (S3 refuses bytes that do not match it) and the same SHA-256 as the signed
 * payload hash.
 *
 * Failures are retried like the SDK retries them: no answer, 5xx, 429 and S3's throttling and timeout
 * codes. Rewriting the same key with the same bytes is harmless. The thrown error names S3's code, the
 * status and the key, and never carries the answer's text.
 */
import { createHash, createHmac } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getEndpointFromInstructions } from '@smithy/core/endpoints';
import { DEFAULT_RETRY_OPTIONS, jitteredBackoff } from '../client/retry';
import { http1Request } from './http1';

/** Most bytes of an error answer read to find its `<Code>` (S3's error documents are a few hundred). */
const MAX_ERROR_BODY_BYTES = 8 * 1024;

/** A request with no byte moving either way for this long is given up (and tried again). */
const IDLE_TIMEOUT_MS = 30_000;

/** S3 error codes worth another attempt besides every 5xx and 429 (the SDK's throttling and transient codes). */
const RETRYABLE_CODES = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'RequestThrottled',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalError',
]);

/** Where one bucket's objects go and how their requests are signed. */
export interface PutRoute {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number | undefined;
  /** The `Host` header: the hostname, with the port when it is not the protocol's default. */
  readonly host: string;
  /** The path before the key, without a trailing slash ('' or '/bucket'). */
  readonly basePath: string;
  readonly signingRegion: string;
  readonly signingName: string;
}

/**
 * A request of the pipeline's own signed client that the service (or the network) refused, after the
 * attempts the client allows: named by the service's code, with the SDK's `$metadata` and `$fault`, and a
 * message that says what failed and how, never what the answer said.
 */
export class DirectRequestError extends Error {
  /** The service's error code when it gave one, else the transport's error name. */
  override readonly name: string;
  readonly $metadata: { httpStatusCode?: number; attempts: number };
  readonly $fault: 'client' | 'server';

  constructor(what: string, code: string, status: number | undefined, attempts: number, cause?: unknown) {
    super(
      `${what} failed${status ? ` with HTTP ${status}` : ''} (${code}) after ${attempts} attempt${attempts === 1 ? '' : 's'}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = code;
    this.$metadata = { ...(status !== undefined && { httpStatusCode: status }), attempts };
    this.$fault = status !== undefined && status < 500 && status !== 429 ? 'client' : 'server';
  }
}

/** A PutObject that S3 (or the network) refused, after the attempts the client allows. */
export class DirectPutError extends DirectRequestError {
  constructor(key: string, code: string, status: number | undefined, attempts: number, cause?: unknown) {
    super(`PutObject of ${key}`, code, status, attempts, cause);
  }
}

/** The credentials SigV4 signs with. */
export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** How long before their expiration the SDK's memoized provider refreshes credentials (5 minutes). */
const CREDENTIALS_REFRESH_MS = 300_000;

/** Whether credentials are to be asked for again: they expire within {@link CREDENTIALS_REFRESH_MS}. */
function expiresSoon(credentials: SigningCredentials): boolean {
  return (
    credentials.expiration !== undefined &&
    credentials.expiration.getTime() - Date.now() < CREDENTIALS_REFRESH_MS
  );
}

/** The pieces of an SDK client's config the direct clients read (all of them on every client's config). */
interface SigningConfig {
  credentials: () => Promise<unknown>;
  maxAttempts: () => Promise<number>;
  systemClockOffset?: number;
}

/**
 * What a direct client takes from an SDK client to sign as it would: its `maxAttempts`, its credentials
 * (asked for again when they expire within five minutes, as the SDK's provider does) and its clock-skew
 * correction.
 */
export class ClientSigner {
  #maxAttempts: number | undefined;
  /** The client's last credentials. */
  #credentials: SigningCredentials | undefined;

  constructor(private readonly client: { config: unknown }) {}

  get #config(): SigningConfig {
    return this.client.config as SigningConfig;
  }

  /** The client's attempts per request (at least 1), read once. */
  async maxAttempts(): Promise<number> {
    this.#maxAttempts ??= Math.max(1, await this.#config.maxAttempts());
    return this.#maxAttempts;
  }

  /** `input`'s headers signed with the client's credentials at its corrected clock. */
  async sign(input: Omit<SignInput, 'credentials' | 'date'>): Promise<Record<string, string>> {
    let credentials = this.#credentials;
    if (!credentials || expiresSoon(credentials)) {
      credentials = this.#credentials = (await this.#config.credentials()) as SigningCredentials;
    }
    return signV4({
      ...input,
      credentials,
      date: new Date(Date.now() + (this.#config.systemClockOffset ?? 0)),
    });
  }
}

/** Signed PUTs of small objects to one bucket through one client. */
export class DirectPut {
  #route: Promise<PutRoute | undefined> | undefined;
  readonly #signer: ClientSigner;

  constructor(
    private readonly s3: S3Client,
    readonly bucket: string,
  ) {
    this.#signer = new ClientSigner(s3);
  }

  /**
   * The bucket's route (resolved on first use with the client's endpoint rules), or undefined when its
   * endpoint is not plain SigV4, so the caller uses the SDK. A failed resolution is tried again next time.
   */
  route(): Promise<PutRoute | undefined> {
    this.#route ??= resolveRoute(this.s3, this.bucket).catch((error: unknown) => {
      this.#route = undefined;
      throw error;
    });
    return this.#route;
  }

  /**
   * Writes `body` under `key` with its content type and SHA-256 (hex). Resolves once S3 stored it;
   * rejects with a {@link DirectPutError} (or the abort's reason) otherwise.
   */
  async put(
    route: PutRoute,
    key: string,
    body: Buffer,
    contentType: string,
    sha256: string,
    signal: AbortSignal,
  ): Promise<void> {
    const maxAttempts = await this.#signer.maxAttempts();
    const path = `${route.basePath}/${encodeKey(key)}`;
    const unsigned = {
      host: route.host,
      'content-type': contentType,
      'content-length': String(body.length),
      'x-amz-meta-sha256': sha256,
      'x-amz-checksum-sha256': Buffer.from(sha256, 'hex').toString('base64'),
    };
    for (let attempt = 1; ; attempt++) {
      signal.throwIfAborted();
      let status: number | undefined;
      let code: string;
      let failure: unknown;
      try {
        const headers = await this.#signer.sign({
          method: 'PUT',
          path,
          headers: unsigned,
          payloadHash: sha256,
          region: route.signingRegion,
          service: route.signingName,
        });
        const answer = await http1Request(route, requestHead(path, headers), body, {
          signal,
          idleTimeoutMs: IDLE_TIMEOUT_MS,
          maxBodyBytes: MAX_ERROR_BODY_BYTES,
        });
        status = answer.status;
        if (status >= 200 && status < 300) return;
        code = errorCode(answer.body.toString('latin1')) ?? `Http${status}`;
      } catch (error) {
        // An abort is the caller's decision: never retried, never wrapped.
        if (signal.aborted) throw signal.reason ?? error;
        // A request that cannot be written fails the same way each time.
        if (error instanceof UnsendableRequestError) throw error;
        failure = error;
        code = transportCode(error);
      }
      const retryable = status === undefined || status >= 500 || status === 429 || RETRYABLE_CODES.has(code);
      if (!retryable || attempt >= maxAttempts) throw new DirectPutError(key, code, status, attempt, failure);
      // Only an abort ends the wait early: the caller gets its reason, as from the request.
      await delay(jitteredBackoff(attempt, DEFAULT_RETRY_OPTIONS), undefined, { signal }).catch(() => {
        throw signal.reason;
      });
    }
  }
}

/** A path or header value HTTP/1.1 cannot carry as it is: never sent, never retried. */
export class UnsendableRequestError extends Error {
  override readonly name = 'UnsendableRequestError';
}

/** Header values this module sends: visible ASCII and spaces, so no value can end the line it is on. */
const HEADER_VALUE = /^[\x20-\x7e]*$/;

/** The request line and headers of a PUT (or `method`), ending in the empty line. */
export function requestHead(
  path: string,
  headers: Readonly<Record<string, string>>,
  method: 'PUT' | 'POST' = 'PUT',
): string {
  if (!/^\/[\x21-\x7e]*$/.test(path))
    throw new UnsendableRequestError('PutObject: the path holds a character HTTP cannot carry');
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (const name in headers) {
    const value = headers[name]!;
    if (!HEADER_VALUE.test(value))
      throw new UnsendableRequestError(`PutObject: the ${name} header holds a character HTTP cannot carry`);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n`;
}

/** The bucket's endpoint and signing names, from the client's endpoint rules. */
async function resolveRoute(s3: S3Client, bucket: string): Promise<PutRoute | undefined> {
  const endpoint = await getEndpointFromInstructions(
    { Bucket: bucket, Key: 'k' },
    PutObjectCommand as never,
    s3.config as never,
  );
  const schemes = endpoint.properties?.['authSchemes'] as
    | { name?: string; signingName?: string; signingRegion?: string }[]
    | undefined;
  const scheme = schemes?.[0];
  const extraHeaders = endpoint.headers && Object.keys(endpoint.headers).length > 0;
  if (scheme?.name !== 'sigv4' || !scheme.signingRegion || extraHeaders) return undefined;
  const url = endpoint.url;
  if (url.search || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  return {
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : undefined,
    host: url.host,
    basePath: url.pathname.replace(/\/+$/, ''),
    signingRegion: scheme.signingRegion,
    signingName: scheme.signingName ?? 's3',
  };
}

/** What {@link signV4} signs. */
export interface SignInput {
  readonly method: string;
  /** The path as sent: encoded once (S3 signs it as it is). No query. */
  readonly path: string;
  /** Lower-case names; every one is signed. */
  readonly headers: Readonly<Record<string, string>>;
  /** SHA-256 of the body (hex), sent as `x-amz-content-sha256` unless `payloadHashHeader` is false. */
  readonly payloadHash: string;
  /** Whether to send `x-amz-content-sha256` (S3 needs it; the JSON services do not). @default true */
  readonly payloadHashHeader?: boolean;
  readonly credentials: SigningCredentials;
  readonly region: string;
  readonly service: string;
  readonly date: Date;
}

/** The last signing key: derived once a day per secret, region and service, as the SDK caches it. */
let signingKeyCache: { scope: string; secret: string; key: HmacKey } | undefined;

/**
 * AWS Signature Version 4 of a request without a query (the SigV4 reference, "Create a signed request"):
 * returns `headers` with `x-amz-date`, `x-amz-content-sha256` (unless left out), the session token if any,
 * and `authorization` added.
 */
export function signV4(input: SignInput): Record<string, string> {
  const amzDate = input.date.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    ...input.headers,
    'x-amz-date': amzDate,
    ...(input.payloadHashHeader !== false && { 'x-amz-content-sha256': input.payloadHash }),
    ...(input.credentials.sessionToken && { 'x-amz-security-token': input.credentials.sessionToken }),
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  let canonicalHeaders = '';
  for (const name of names) canonicalHeaders += `${name}:${headers[name]!.trim().replace(/ +/g, ' ')}\n`;
  const canonicalRequest = `${input.method}\n${input.path}\n\n${canonicalHeaders}\n${signedHeaders}\n${input.payloadHash}`;
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash('sha256').update(canonicalRequest).digest('hex')}`;
  const signature = signingKey(input.credentials.secretAccessKey, scope).sign(stringToSign);
  headers['authorization'] =
    `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

function signingKey(secret: string, scope: string): HmacKey {
  const cached = signingKeyCache;
  if (cached && cached.scope === scope && cached.secret === secret) return cached.key;
  const key = deriveSigningKey(secret, scope);
  signingKeyCache = { scope, secret, key };
  return key;
}

/** The SigV4 signing key of `secret` for `scope` (`date/region/service/aws4_request`): four HMACs. */
export function deriveSigningKey(secret: string, scope: string): HmacKey {
  let key: Buffer | string = `AWS4${secret}`;
  for (const part of scope.split('/')) key = createHmac('sha256', key).update(part).digest();
  return new HmacKey(key as Buffer);
}

/**
 * HMAC-SHA256 under one 32-byte key with its pads computed once (RFC 2104): two plain SHA-256 hashes per
 * message. `createHmac` prepares its key anew on every call, which cost more than the two hashes.
 */
export class HmacKey {
  readonly #inner: Buffer;
  readonly #outer: Buffer;

  constructor(key: Buffer) {
    if (key.length > 64) throw new Error('HmacKey: a key longer than the SHA-256 block must be hashed first');
    this.#inner = Buffer.alloc(64, 0x36);
    this.#outer = Buffer.alloc(64, 0x5c);
    for (let i = 0; i < key.length; i++) {
      this.#inner[i]! ^= key[i]!;
      this.#outer[i]! ^= key[i]!;
    }
  }

  /** The HMAC of `message` (UTF-8), hex. */
  sign(message: string): string {
    const inner = createHash('sha256').update(this.#inner).update(message).digest();
    return createHash('sha256').update(this.#outer).update(inner).digest('hex');
  }
}

/** An object key as S3's REST path carries it: each segment percent-encoded, `/` kept. */
export function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
}

/** S3's `<Code>` of an error document, when it is one plain word. */
export function errorCode(body: string): string | undefined {
  return /<Code>([A-Za-z]{1,64})<\/Code>/.exec(body)?.[1];
}

/** A transport error's code (`ECONNRESET`) or name, when it is one plain word. */
export function transportCode(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  for (const value of [code, name]) {
    if (typeof value === 'string' && /^[A-Za-z_]{1,64}$/.test(value) && value !== 'Error') return value;
  }
  return 'NetworkError';
}
