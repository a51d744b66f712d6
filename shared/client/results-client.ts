/**
 * The service client's core: authentication, timeout, retry and parsing, and the endpoints the pipeline
 * functions call (token, poll, result). `IdvClient` (client.ts) adds the endpoints that create
 * transactions.
 */
import type * as z from 'zod/mini';
import {
  KNOWN_SCOPES,
  MOCK_TEST_HEADER,
  type MockTestValue,
  PATHS,
  type ServiceEnvironment,
} from '../api/enums';
import { type Parsed, type PollResponse, parsePollResponse } from '../api/responses';
import type { ErrorTextKeeper } from './error-text';
import {
  IdvError,
  MockTestNotAllowedError,
  ResponseFormatError,
  serviceErrorFields,
  statusWithCode,
  UnauthorizedError,
} from './errors';
import {
  type HttpRequest,
  type HttpResponse,
  parseJsonOrUndefined,
  type StreamingResponse,
  sendOnce,
  sendOnceStreaming,
  sleep,
  type TransportOptions,
  withRetry,
} from './http';
import { InMemoryTokenProvider } from './in-memory-token-provider';
import { fetchAccessToken, serviceUrl } from './oauth';
import type { RequestPacer } from './pacer';
import type { RetryOptions } from './retry';
import { type AccessToken, authorizationOf, type TokenProvider } from './token-provider';
import { validateMockTest, validateResultId } from './validate-ids';

/** Options of `ResultsClient` and `IdvClient`. */
export interface ClientOptions {
  /** Base address of the service environment, e.g. `https://staging.example.invalid`. */
  readonly baseUrl: string;
  /** Which environment `baseUrl` is; the `mock-test` header is refused on production. */
  readonly environment: ServiceEnvironment;
  /** Where access tokens come from; required unless `credentials` is given. */
  readonly tokenProvider?: TokenProvider;
  /** Client credentials; without `tokenProvider` an `InMemoryTokenProvider` is built from them. */
  readonly credentials?: { readonly clientId: string; readonly clientSecret: string };
  /** Scopes requested for tokens. @default every scope of KNOWN_SCOPES */
  readonly scopes?: readonly string[];
  /** Timeout of every HTTP call, body included. @default 15000 */
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryOptions>;
  readonly fetch?: typeof fetch;
  /** Sent as `user-agent`. @default 'idv-pipeline-client' */
  readonly userAgent?: string;
  /** Waits between retries (tests make it instant). @default setTimeout-based */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Keep a printable copy of each error body's `message` and `details` on `ServiceError.serviceText`, for
   * the person who made the request: pass `serviceErrorText` (the CLI does, and prints it). Not for the
   * pipeline: its errors are logged. @default none (nothing of the body is kept)
   */
  readonly keepErrorText?: ErrorTextKeeper;
  /**
   * The pace every request of this client keeps (`pacer.ts`): a steady rate and the service's
   * `Retry-After` shared by all calls in flight. @default none (each call backs off on its own)
   */
  readonly pacer?: RequestPacer;
}

/**
 * Ceiling of a result read whole (`getResultBody`): 256 MiB. A whole body becomes one string to parse, and
 * V8 strings end near 512 MiB; larger results are for `getResultStream`, as the pipeline reads them.
 */
export const MAX_WHOLE_RESULT_BYTES = 256 * 1024 * 1024;

/** Per-call budget of the result reads. */
export interface DeadlineOptions {
  /** Epoch ms by which the call, retries and body included, must end. */
  readonly deadlineMs?: number | undefined;
}

/** One call: what to send and the schema of the answer. */
export interface CallSpec<S extends z.ZodMiniType> {
  readonly deadlineMs?: number | undefined;
  /** Ceiling of a whole-body answer. @default the transport's (`DEFAULT_MAX_BODY_BYTES`) */
  readonly maxBodyBytes?: number | undefined;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly body?: unknown;
  readonly mayHaveCreated: boolean;
  readonly mockTest?: MockTestValue | undefined;
  readonly schema: S;
}

/**
 * The part of the client the pipeline functions need: tokens, `poll` and the result (whole or as a
 * stream), with validation, authentication, timeout, retry and parsing. `IdvClient` adds the endpoints
 * that create transactions; keeping them apart keeps their schemas and the bulk-CSV parser out of the
 * poll and fetch-result bundles.
 */
export class ResultsClient {
  readonly baseUrl: string;
  readonly environment: ServiceEnvironment;
  readonly #tokenProvider: TokenProvider;
  readonly #credentials: ClientOptions['credentials'];
  readonly #scopes: readonly string[];
  readonly #transport: TransportOptions;
  readonly #userAgent: string;

  constructor(options: ClientOptions) {
    if (options.environment !== 'staging' && options.environment !== 'production') {
      throw new IdvError('environment must be "staging" or "production"');
    }
    // Fails early on a malformed base URL instead of at the first call.
    serviceUrl(options.baseUrl, '/');
    this.baseUrl = options.baseUrl;
    this.environment = options.environment;
    this.#credentials = options.credentials;
    this.#scopes = options.scopes ?? KNOWN_SCOPES;
    this.#transport = {
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: options.timeoutMs ?? 15_000,
      retry: options.retry ?? {},
      sleep: options.sleep ?? sleep,
      now: Date.now,
      ...(options.keepErrorText && { keepErrorText: options.keepErrorText }),
      ...(options.pacer && { pacer: options.pacer }),
    };
    this.#userAgent = options.userAgent ?? 'idv-pipeline-client';
    if (options.tokenProvider) {
      this.#tokenProvider = options.tokenProvider;
    } else if (options.credentials) {
      this.#tokenProvider = new InMemoryTokenProvider({
        baseUrl: options.baseUrl,
        clientId: options.credentials.clientId,
        clientSecret: options.credentials.clientSecret,
        scopes: this.#scopes,
        fetch: this.#transport.fetch,
        timeoutMs: this.#transport.timeoutMs,
        ...(options.keepErrorText && { keepErrorText: options.keepErrorText }),
      });
    } else {
      throw new IdvError('the client needs a tokenProvider or credentials');
    }
  }

  /**
   * POST /api/v2/oauth/token (§4.6). With credentials: a new token for `scopes` (default: the client's
   * scopes). Without credentials: the token provider's current token.
   */
  async requestToken(scopes?: readonly string[]): Promise<AccessToken> {
    if (!this.#credentials) {
      if (scopes) throw new IdvError('requestToken(scopes) needs client credentials');
      return this.#tokenProvider.getToken();
    }
    return fetchAccessToken({
      baseUrl: this.baseUrl,
      clientId: this.#credentials.clientId,
      clientSecret: this.#credentials.clientSecret,
      scopes: scopes ?? this.#scopes,
      fetch: this.#transport.fetch,
      timeoutMs: this.#transport.timeoutMs,
      retry: this.#transport.retry,
      ...(this.#transport.keepErrorText && { keepErrorText: this.#transport.keepErrorText }),
    });
  }

  /** GET /api/v2/poll (§4.7): the pending polling records. */
  async poll(): Promise<PollResponse> {
    const response = await this.send({ method: 'GET', path: PATHS.poll, mayHaveCreated: false });
    // "Nothing pending" as 204 or an empty 200 is a reasonable reading of the spec: no records, not an error.
    if (response.body.toString('utf8').trim() === '') return { results: [] };
    const label = `GET ${PATHS.poll}`;
    return checkShape(
      parsePollResponse(jsonBody(response.body, response.status, label)),
      response.status,
      label,
    );
  }

  /**
   * GET /api/v2/result/{resultId} (§4.9): the raw 200 body, read whole (the CLI's `result get`). `deadlineMs`
   * (epoch ms) bounds the call with its retries; a body past `maxBodyBytes` is refused with
   * `ResponseTooLargeError` (stream it with `getResultStream` instead).
   */
  async getResultBody(
    resultId: string,
    options: DeadlineOptions & { readonly maxBodyBytes?: number } = {},
  ): Promise<Buffer> {
    const response = await this.send({
      method: 'GET',
      path: PATHS.result(validateResultId(resultId)),
      mayHaveCreated: false,
      deadlineMs: options.deadlineMs,
      maxBodyBytes: options.maxBodyBytes ?? MAX_WHOLE_RESULT_BYTES,
    });
    return response.body;
  }

  /**
   * GET /api/v2/result/{resultId} (§4.9) as a stream of body chunks, for constant-memory processing. Retried
   * (and a 401 refreshed) only until the body starts; a failure while reading it throws `ConnectionError`.
   * `deadlineMs` (epoch ms) bounds the call, its retries and the reading of the body.
   */
  async getResultStream(resultId: string, options: DeadlineOptions = {}): Promise<AsyncIterable<Uint8Array>> {
    const response = await this.send(
      {
        method: 'GET',
        path: PATHS.result(validateResultId(resultId)),
        mayHaveCreated: false,
        deadlineMs: options.deadlineMs,
      },
      sendOnceStreaming,
    );
    return response.body;
  }

  protected async call<S extends z.ZodMiniType>(spec: CallSpec<S>): Promise<z.output<S>> {
    const response = await this.send(spec);
    return this.parse(spec.schema, response.body, response.status, `${spec.method} ${spec.path}`);
  }

  /** `body` parsed with a response schema; `ResponseFormatError` naming the paths that do not fit. */
  protected parse<S extends z.ZodMiniType>(
    schema: S,
    body: Buffer,
    status: number,
    label: string,
  ): z.output<S> {
    const parsed = schema.safeParse(jsonBody(body, status, label));
    return checkShape(
      parsed.success
        ? { ok: true, value: parsed.data }
        : { ok: false, paths: parsed.error.issues.map((i) => i.path.join('.') || '(body)') },
      status,
      label,
    );
  }

  /** Adds auth and headers, sends with retry, and on a 401 refreshes the token once and tries once more. */
  protected async send(spec: Omit<CallSpec<z.ZodMiniType>, 'schema'>): Promise<HttpResponse>;
  protected async send(
    spec: Omit<CallSpec<z.ZodMiniType>, 'schema'>,
    once: (request: HttpRequest, options: TransportOptions) => Promise<StreamingResponse>,
  ): Promise<StreamingResponse>;
  protected async send(
    spec: Omit<CallSpec<z.ZodMiniType>, 'schema'>,
    once: (request: HttpRequest, options: TransportOptions) => Promise<unknown> = sendOnce,
  ): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#userAgent };
    if (spec.mockTest !== undefined) {
      // Checked before any token request, so a forbidden call leaves no trace on the wire.
      if (this.environment !== 'staging') throw new MockTestNotAllowedError();
      headers[MOCK_TEST_HEADER] = validateMockTest(spec.mockTest);
    }
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    const url = serviceUrl(this.baseUrl, spec.path);
    if (spec.query) url.search = spec.query.toString();
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const send = (token: AccessToken) =>
      withRetry(
        {
          method: spec.method,
          url,
          headers: { ...headers, authorization: authorizationOf(token) },
          ...(body !== undefined && { body }),
          mayHaveCreated: spec.mayHaveCreated,
        },
        spec.deadlineMs === undefined && spec.maxBodyBytes === undefined
          ? this.#transport
          : {
              ...this.#transport,
              ...(spec.deadlineMs !== undefined && { deadlineMs: spec.deadlineMs }),
              ...(spec.maxBodyBytes !== undefined && { maxBodyBytes: spec.maxBodyBytes }),
            },
        once,
      );

    const token = await this.#tokenProvider.getToken();
    try {
      return await send(token);
    } catch (error) {
      // A 401 rejected the token before anything happened, so even a creating request may go again.
      if (!(error instanceof UnauthorizedError)) throw error;
    }
    // A 401 of the token request itself (rejected credentials) comes out of `refresh` with its own message.
    const fresh = await this.#tokenProvider.refresh(token);
    try {
      return await send(fresh);
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      // A brand-new token refused too: no amount of refreshing helps, so say what to check.
      throw new UnauthorizedError(
        `the service refused a freshly issued access token for ${spec.method} ${spec.path} (${statusWithCode(error)} after one refresh): check that the client has the scope for this endpoint`,
        serviceErrorFields(error),
        { cause: error },
      );
    }
  }
}

/** The JSON of a response body; `ResponseFormatError` when it is not JSON. */
function jsonBody(body: Buffer, status: number, label: string): unknown {
  const json = parseJsonOrUndefined(body);
  if (json === undefined) throw new ResponseFormatError(`response of ${label} is not JSON`, status);
  return json;
}

/** The parsed value, or `ResponseFormatError` naming the paths that do not fit (paths only: values may be personal data). */
function checkShape<T>(parsed: Parsed<T>, status: number, label: string): T {
  if (parsed.ok) return parsed.value;
  const paths = [...new Set(parsed.paths)].join(', ');
  throw new ResponseFormatError(`response of ${label} is not the documented shape (${paths})`, status);
}
