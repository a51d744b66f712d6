/**
 * The client's transport: one HTTP exchange with a timeout, mapped to typed errors, and the retry loop
 * around it. Used by the token request and by every endpoint method.
 */

import { scrubSecrets } from '../scrub';
import type { ErrorTextKeeper } from './error-text';
import {
  ConnectionError,
  IdvError,
  ResponseTooLargeError,
  type ServiceError,
  serviceErrorFromResponse,
} from './errors';
import type { RequestPacer } from './pacer';
import { holdOffMs, type RetryOptions, shouldRetry } from './retry';

/** One request as the transport sends it. */
export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** See `RetryInput.mayHaveCreated`. */
  readonly mayHaveCreated: boolean;
}

/** A success answer (2xx), body fully read. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

/**
 * Ceiling of an answer read whole into memory (token, poll, every endpoint but the streamed result):
 * 16 MiB, counted after any decompression. The spec's largest such answer (a bulk link list) is far below.
 */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * How much of an error answer's body is read, for its numeric `code`: 64 KiB. The rest is cancelled
 * unread; the status alone decides the error's type and the retry.
 */
export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;

/** How the transport behaves. */
export interface TransportOptions {
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  readonly retry: Partial<RetryOptions>;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  /**
   * Epoch ms by which the call, retries and body included, must end (a caller's budget, e.g. the time left
   * in a Lambda invocation). Each attempt's timeout is cut to it and no retry waits past it.
   */
  readonly deadlineMs?: number;
  /**
   * Ceiling of a whole-body answer (`sendOnce`), in bytes as delivered (after any decompression). A larger
   * answer is refused with `ResponseTooLargeError`. The streamed result (`sendOnceStreaming`) has none.
   * @default DEFAULT_MAX_BODY_BYTES (16 MiB)
   */
  readonly maxBodyBytes?: number;
  /**
   * Keep a printable copy of an error body's `message` and `details` on the `ServiceError`
   * (`serviceText`), for a person who made the request: pass `serviceErrorText` (the CLI does). Never set
   * where errors are logged. @default none (nothing of the body is kept)
   */
  readonly keepErrorText?: ErrorTextKeeper;
  /**
   * The pace shared by every request of the client (`pacer.ts`): each attempt waits for its gate, and a
   * `Retry-After` of the service holds every request, not only the one that got it. @default none
   */
  readonly pacer?: RequestPacer;
}

/** One read of a body stream. */
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

/** Network error codes that mean the connection was never made, so nothing reached the service. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Default sleep of the retry loop. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends once: 2xx → the response, its body read whole up to `maxBodyBytes`; else a `ServiceError`
 * subclass or a `ConnectionError`. `timeoutMs` bounds the whole exchange, body included.
 */
export async function sendOnce(request: HttpRequest, options: TransportOptions): Promise<HttpResponse> {
  const label = labelOf(request);
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // One time budget for the whole exchange, body included: a service that stalls mid-body also times out.
  const end = Date.now() + options.timeoutMs;
  const left = () => Math.max(0, end - Date.now());
  const exchange = new Exchange(request, options);
  const response = await exchange.open(left(), label);
  if (response.status < 200 || response.status >= 300)
    throw await statusError(response, exchange, left, options);
  const declared = Number(response.headers.get('content-length'));
  if (declared > limit) {
    exchange.stop();
    throw tooLarge(label, response.status, limit);
  }
  let read: { bytes: Buffer; over: boolean };
  try {
    read = await readBody(response.body, limit, left, exchange);
  } catch (error) {
    throw connectionError(error, label, options.timeoutMs);
  }
  if (read.over) throw tooLarge(label, response.status, limit);
  return { status: response.status, headers: response.headers, body: read.bytes };
}

function tooLarge(label: string, status: number, limit: number): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `answer of ${label} is larger than ${limit} bytes; refused, the rest not read`,
    status,
    limit,
  );
}

/** A success answer whose body is still to be read, as a stream of chunks. */
export interface StreamingResponse {
  readonly status: number;
  readonly headers: Headers;
  /**
   * The body. Reading it may throw a `ConnectionError` (interrupted, or no bytes for `timeoutMs`, or the
   * deadline passed); leaving the loop early cancels the request.
   */
  readonly body: AsyncIterable<Uint8Array>;
}

/**
 * Sends once and hands the 2xx body over as a stream. `timeoutMs` bounds the wait for the answer's
 * headers and then every wait for the next chunk, not the whole body: a 1 GB result may take longer than
 * any fixed timeout, but a service that stalls is still noticed. `deadlineMs` bounds it all.
 *
 * No ceiling on the total: the chunks are handed on as they arrive, so memory stays bounded whatever the
 * size. A compressed answer (sent although `identity` was asked for) is inflated by fetch as a stream, in
 * 16-64 KiB chunks with backpressure (measured: a 1 MB gzip bomb read to 300 MB inflated, +54 MB peak RSS;
 * docs/reliability.md). Error answers are read up to `ERROR_BODY_LIMIT_BYTES`.
 */
export async function sendOnceStreaming(
  request: HttpRequest,
  options: TransportOptions,
): Promise<StreamingResponse> {
  const label = labelOf(request);
  const { deadlineMs } = options;
  // Each wait is cut to the deadline, so a body still arriving when the budget ends is abandoned.
  const wait = () =>
    deadlineMs === undefined
      ? options.timeoutMs
      : Math.max(0, Math.min(options.timeoutMs, deadlineMs - options.now()));
  const exchange = new Exchange(request, options);
  const response = await exchange.open(wait(), label);
  if (response.status < 200 || response.status >= 300) {
    const end = Date.now() + wait();
    throw await statusError(response, exchange, () => Math.max(0, end - Date.now()), options);
  }
  // The reader is taken at once: fetch cancels the body of a Response it finds unreachable while the
  // body is unlocked, and a body opened now and read after a claim's round trip (fetch-result) would then
  // end after 0 bytes as if complete (seen after a GC; test/integration/client-deadline-gc.test.ts).
  const reader = response.body?.getReader();
  // A body nobody starts reading (the caller failed first) must not hold its socket until a GC.
  const unread = setTimeout(() => exchange.stop(reader), wait());
  const promised = identityLength(response.headers);
  async function* chunks(): AsyncGenerator<Uint8Array> {
    clearTimeout(unread);
    if (!reader) return;
    let complete = false;
    let received = 0;
    try {
      for (;;) {
        let next: ReadResult;
        try {
          // Checked before the read too: a chunk already buffered would otherwise win the race with a
          // zero timer, and the read would go on past the deadline as long as data keeps coming.
          if (deadlineMs !== undefined && options.now() >= deadlineMs) throw timeoutError();
          if (exchange.stopped) throw timeoutError();
          next = await exchange.read(reader, wait());
          // An end the service did not send (our stop, or fewer bytes than it declared) is no end.
          if (next.done && (exchange.stopped || (promised !== undefined && received !== promised))) {
            throw new Error('the body ended before its declared length');
          }
        } catch (error) {
          const failure = connectionError(error, label, options.timeoutMs);
          failure.message = `${failure.message}; the body was interrupted after ${received} bytes`;
          throw failure;
        }
        if (next.done) {
          complete = true;
          return;
        }
        received += next.value.length;
        yield next.value;
      }
    } finally {
      // Left early (a failure downstream, a timeout): stop the download instead of reading it to the end.
      if (!complete) exchange.stop(reader);
    }
  }
  return { status: response.status, headers: response.headers, body: chunks() };
}

/**
 * The body's length as the service declared it, when the bytes read are the bytes sent (no
 * `content-encoding` other than identity); undefined otherwise.
 */
function identityLength(headers: Headers): number | undefined {
  const encoding = headers.get('content-encoding');
  if (encoding && encoding.trim().toLowerCase() !== 'identity') return undefined;
  const text = headers.get('content-length');
  if (text === null || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

/**
 * One HTTP exchange and the means to end it for sure. Every wait (the headers, each read of the body) is
 * raced against a timer of ours, and a timeout both rejects the wait and cancels the request: on Node 20
 * an aborted signal alone did not stop a body stream once a GC had run (the read went on past the
 * deadline), so the deadline does not rely on it.
 */
class Exchange {
  readonly #request: HttpRequest;
  readonly #options: TransportOptions;
  readonly #controller = new AbortController();
  #body: ReadableStream<Uint8Array> | null = null;

  constructor(request: HttpRequest, options: TransportOptions) {
    this.#request = request;
    this.#options = options;
  }

  /** Sends the request; resolves at the answer's headers. */
  async open(waitMs: number, label: string): Promise<Response> {
    const request = this.#request;
    const fetching = this.#options.fetch(request.url, {
      method: request.method,
      // Asked explicitly: fetch would otherwise ask for gzip/deflate/br and inflate without any ceiling.
      headers: { ...request.headers, 'accept-encoding': 'identity' },
      ...(request.body !== undefined && { body: request.body }),
      signal: this.#controller.signal,
      redirect: 'error',
    });
    try {
      const response = await within(fetching, waitMs, () => {
        this.stop();
        // An answer arriving after all must not keep its socket.
        fetching.then(
          (late) => late.body?.cancel().catch(() => {}),
          () => {},
        );
      });
      this.#body = response.body;
      return response;
    } catch (error) {
      throw connectionError(error, label, this.#options.timeoutMs);
    }
  }

  /** The next chunk, within `waitMs`; at the timer the read is cancelled and the wait rejected. */
  read(reader: ReadableStreamDefaultReader<Uint8Array>, waitMs: number): Promise<ReadResult> {
    return within(reader.read(), waitMs, () => this.stop(reader));
  }

  /** True once `stop` ran: the body's end after it is ours, not the service's. */
  get stopped(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Ends the exchange: aborts the request and cancels the body (which closes the socket). */
  stop(reader?: ReadableStreamDefaultReader<Uint8Array>): void {
    this.#controller.abort(timeoutError());
    if (reader) reader.cancel().catch(() => {});
    else if (this.#body && !this.#body.locked) this.#body.cancel().catch(() => {});
  }
}

/**
 * `promise`, or a `TimeoutError` after `ms` (then `onTimeout` runs). A fresh timer per wait, so no
 * long-lived promise collects a reaction per chunk.
 */
function within<T>(promise: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(timeoutError());
      onTimeout();
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Reads a body whole, at most `limit` bytes: `over` when there was more (the rest is cancelled unread).
 * Every read waits at most `left()`.
 */
async function readBody(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  left: () => number,
  exchange: Exchange,
): Promise<{ bytes: Buffer; over: boolean }> {
  if (!body) return { bytes: Buffer.alloc(0), over: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = false;
  try {
    for (;;) {
      const next = await exchange.read(reader, left());
      if (next.done) {
        complete = true;
        return { bytes: Buffer.concat(chunks, size), over: false };
      }
      if (next.value.length > limit - size) return { bytes: Buffer.concat(chunks, size), over: true };
      chunks.push(next.value);
      size += next.value.length;
    }
  } finally {
    if (!complete) exchange.stop(reader);
  }
}

/**
 * The error for a non-2xx answer. Its body is read up to `ERROR_BODY_LIMIT_BYTES` for the service's
 * `code`; a longer body, one that fails or stalls mid-read, or one that is not JSON changes nothing but
 * the missing code: the status keeps its meaning (404 → NotFoundError, 5xx → ServerError and its retry).
 */
async function statusError(
  response: Response,
  exchange: Exchange,
  left: () => number,
  options: TransportOptions,
): Promise<ServiceError> {
  let body: unknown;
  try {
    const read = await readBody(response.body, ERROR_BODY_LIMIT_BYTES, left, exchange);
    body = read.over ? undefined : parseJsonOrUndefined(read.bytes);
  } catch {
    body = undefined;
  }
  return serviceErrorFromResponse(response.status, body, response.headers, options.now, {
    keepErrorText: options.keepErrorText,
  });
}

/** Origin and path only: the query may hold a customerReference. */
function labelOf(request: HttpRequest): string {
  // The base URL never carries credentials (checked by `serviceUrl`).
  return `${request.method} ${request.url.origin}${request.url.pathname}`;
}

/** The reason of an abort by our own timer: mapped like `AbortSignal.timeout`'s. */
function timeoutError(): Error {
  const error = new Error('timed out');
  error.name = 'TimeoutError';
  return error;
}

/** Sends with the retry policy: repeats only what `shouldRetry` allows, waiting as it says. */
export function sendWithRetry(request: HttpRequest, options: TransportOptions): Promise<HttpResponse> {
  return withRetry(request, options, sendOnce);
}

/**
 * The retry loop around one kind of exchange. With `sendOnceStreaming` only the exchange up to the headers
 * is retried: once the body has started, a failure is the caller's (for fetch-result: a redelivery), never
 * a second silent GET.
 */
export async function withRetry<R>(
  request: HttpRequest,
  options: TransportOptions,
  send: (request: HttpRequest, options: TransportOptions) => Promise<R>,
): Promise<R> {
  const { deadlineMs } = options;
  for (let attempt = 1; ; attempt++) {
    const left = deadlineMs === undefined ? Number.POSITIVE_INFINITY : deadlineMs - options.now();
    if (left <= 0) {
      throw new ConnectionError(
        `no time left for ${request.method} ${request.url.origin}${request.url.pathname} within the caller's budget`,
        { timedOut: true, notSent: true },
      );
    }
    if (options.pacer && !(await options.pacer.acquire(deadlineMs))) {
      throw new ConnectionError(
        `no time left for ${request.method} ${request.url.origin}${request.url.pathname}: the service's pace opens after the caller's budget`,
        { timedOut: true, notSent: true },
      );
    }
    try {
      const budget = deadlineMs === undefined ? Number.POSITIVE_INFINITY : deadlineMs - options.now();
      return await send(request, budget < options.timeoutMs ? { ...options, timeoutMs: budget } : options);
    } catch (error) {
      const hold = holdOffMs(error);
      if (hold !== undefined) options.pacer?.holdOff(hold);
      const decision = shouldRetry(
        { attempt, method: request.method, mayHaveCreated: request.mayHaveCreated, error },
        options.retry,
      );
      if (!decision.retry) throw error;
      // A wait that ends past the budget cannot lead to an answer in time: the caller retries later.
      if (deadlineMs !== undefined && options.now() + decision.delayMs >= deadlineMs) throw error;
      await options.sleep(decision.delayMs);
    }
  }
}

function connectionError(error: unknown, label: string, timeoutMs: number): IdvError {
  if (error instanceof IdvError) return error;
  // The raw failure may hold the request (a fetch wrapper can attach its `Request`, headers included) or
  // a socket: only a scrubbed copy of its names, codes and messages goes into the error.
  const cause = scrubCause(error);
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new ConnectionError(
      `no answer from the service for ${label} within ${timeoutMs} ms`,
      { timedOut: true, notSent: false },
      { cause },
    );
  }
  const code = networkCode(error);
  const detail = code
    ? `${code}${NETWORK_CODE_TEXT[code] ? `: ${NETWORK_CODE_TEXT[code]}` : ''}`
    : innermost(cause);
  const reason = detail ? ` (${detail})` : '';
  return new ConnectionError(
    `no answer from the service for ${label}${reason}`,
    { timedOut: false, notSent: code !== undefined && NOT_SENT_CODES.has(code) },
    { cause },
  );
}

/** Plain words for the network codes a user meets most (wrong host, nothing listening, reset). */
const NETWORK_CODE_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused, is the service running at that address?',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection closed before the answer was complete',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/**
 * Without a system code, the message of the deepest cause says what went wrong (`unexpected redirect`,
 * `bad port`); the top `fetch failed` does not. Short, already scrubbed, else nothing.
 */
function innermost(cause: Error | undefined): string | undefined {
  let deepest: Error | undefined;
  for (let c = cause?.cause; c instanceof Error; c = c.cause) deepest = c;
  const message = deepest?.message;
  return message && message.length <= 120 ? message : undefined;
}

/**
 * A copy of an error chain that keeps only `name`, `message` (credentials redacted) and a string `code`
 * of each `Error` link, at most four deep. Anything else (a `Request`, `Headers`, sockets) is dropped.
 */
export function scrubCause(error: unknown, depth = 0): Error | undefined {
  if (!(error instanceof Error) || depth >= 4) return undefined;
  const inner = scrubCause((error as { cause?: unknown }).cause, depth + 1);
  const copy = new Error(scrubSecrets(error.message), inner ? { cause: inner } : undefined);
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  // The original's frames say where it failed; its first line repeats the message, so it is redacted too.
  if (error.stack) copy.stack = scrubSecrets(error.stack);
  return copy;
}

/** The system error code behind a fetch failure (`TypeError: fetch failed` wraps it in `cause`). */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      current = errors[0];
      continue;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Parses a body as JSON; `undefined` when it is empty or not JSON. */
export function parseJsonOrUndefined(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  return parseJsonText(body.toString('utf8'));
}

/** Parses a text as JSON, a leading byte order mark allowed; `undefined` when it is not JSON. */
export function parseJsonText(text: string): unknown {
  // A UTF-8 byte order mark, which some servers put in front of JSON, is not JSON to JSON.parse.
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
}
