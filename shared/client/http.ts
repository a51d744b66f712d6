/**
 * The client's transport: one HTTP exchange with a timeout, mapped to typed errors, and the retry loop
 * around it. Used by the token request and by every endpoint method.
 */
import { ConnectionError, IdvError, serviceErrorFromResponse } from './errors';
import { type RetryOptions, shouldRetry } from './retry';

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
}

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

/** Sends once: 2xx → the response, else a `ServiceError` subclass or a `ConnectionError`. */
export async function sendOnce(request: HttpRequest, options: TransportOptions): Promise<HttpResponse> {
  // Origin and path only: the base URL never carries credentials (checked by `serviceUrl`) and the query
  // is left out because it may hold a customerReference.
  const label = `${request.method} ${request.url.origin}${request.url.pathname}`;
  // One signal for the whole exchange, body included: a service that stalls mid-body also times out.
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: Response;
  let body: Buffer;
  try {
    response = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined && { body: request.body }),
      signal,
      redirect: 'error',
    });
    body = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    throw connectionError(error, label, options.timeoutMs);
  }
  if (response.status >= 200 && response.status < 300) {
    return { status: response.status, headers: response.headers, body };
  }
  const error = serviceErrorFromResponse(
    response.status,
    parseJsonOrUndefined(body),
    response.headers,
    options.now,
  );
  throw error;
}

/** A success answer whose body is still to be read, as a stream of chunks. */
export interface StreamingResponse {
  readonly status: number;
  readonly headers: Headers;
  /**
   * The body. Reading it may throw a `ConnectionError` (interrupted, or no bytes for `timeoutMs`); leaving
   * the loop early cancels the request.
   */
  readonly body: AsyncIterable<Uint8Array>;
}

/**
 * Sends once and hands the 2xx body over as a stream. `timeoutMs` bounds the wait for the answer's
 * headers and then every wait for the next chunk, not the whole body: a 1 GB result may take longer than
 * any fixed timeout, but a service that stalls is still noticed. Error answers are read whole (small).
 */
export async function sendOnceStreaming(
  request: HttpRequest,
  options: TransportOptions,
): Promise<StreamingResponse> {
  const label = `${request.method} ${request.url.origin}${request.url.pathname}`;
  const controller = new AbortController();
  // Each wait is cut to the deadline, so a body still arriving when the budget ends is abandoned.
  const wait = () =>
    options.deadlineMs === undefined
      ? options.timeoutMs
      : Math.max(0, Math.min(options.timeoutMs, options.deadlineMs - options.now()));
  let timer = setTimeout(() => controller.abort(timeoutError()), wait());
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(timeoutError()), wait());
  };
  let response: Response;
  try {
    response = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined && { body: request.body }),
      signal: controller.signal,
      redirect: 'error',
    });
  } catch (error) {
    clearTimeout(timer);
    throw connectionError(error, label, options.timeoutMs);
  }
  if (response.status < 200 || response.status >= 300) {
    let body: Buffer;
    try {
      rearm();
      body = Buffer.from(await response.arrayBuffer());
    } catch (error) {
      throw connectionError(error, label, options.timeoutMs);
    } finally {
      clearTimeout(timer);
    }
    throw serviceErrorFromResponse(
      response.status,
      parseJsonOrUndefined(body),
      response.headers,
      options.now,
    );
  }
  rearm();
  const stream = response.body;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    if (!stream) return;
    const reader = stream.getReader();
    let complete = false;
    let received = 0;
    try {
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
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
        rearm();
        yield next.value;
      }
    } finally {
      clearTimeout(timer);
      if (!complete) {
        // Left early (a failure downstream): stop the download instead of reading it to the end.
        controller.abort();
        await reader.cancel().catch(() => {});
      }
    }
  }
  return { status: response.status, headers: response.headers, body: chunks() };
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
    try {
      return await send(request, left < options.timeoutMs ? { ...options, timeoutMs: left } : options);
    } catch (error) {
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

/** `Bearer …`/`Basic …` credentials as they could appear in a message of a fetch wrapper. */
const CREDENTIAL_RE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

/**
 * A copy of an error chain that keeps only `name`, `message` (credentials redacted) and a string `code`
 * of each `Error` link, at most four deep. Anything else (a `Request`, `Headers`, sockets) is dropped.
 */
export function scrubCause(error: unknown, depth = 0): Error | undefined {
  if (!(error instanceof Error) || depth >= 4) return undefined;
  const inner = scrubCause((error as { cause?: unknown }).cause, depth + 1);
  const copy = new Error(
    error.message.replace(CREDENTIAL_RE, '$1 [redacted]'),
    inner ? { cause: inner } : undefined,
  );
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  // The original's frames say where it failed; its first line repeats the message, so it is redacted too.
  if (error.stack) copy.stack = error.stack.replace(CREDENTIAL_RE, '$1 [redacted]');
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
