/**
 * Requests of AWS's JSON protocols (DynamoDB, EventBridge) as one signed HTTP POST each, without the
 * SDK's command stack: what `direct-put.ts` does for a small PutObject. A result makes five of them (its
 * reads, the claim, the item, the event and the mark), and the stack cost about 1.1 ms of CPU each
 * (docs/benchmarks.md, "The fixed cost of a result").
 *
 * What makes the request right still comes from the client: its endpoint rules (resolved once; an endpoint
 * that is not plain SigV4 is left to the SDK: {@link DirectJson.route} answers undefined), its credentials
 * (asked again when they expire within five minutes) with its clock-skew correction, and its `maxAttempts`.
 * The request is signed by `signV4` and sent by the keep-alive client of `http1.ts`.
 *
 * Failures are retried like the SDK retries them: no answer, 5xx, 429 and the service's throttling codes,
 * with the shared backoff. A failure the service names (`__type`) becomes an error of that name, with the
 * status, and, for DynamoDB's `ConditionalCheckFailedException`, the `Item` it returned (as the SDK gives
 * it). The answer's text is never copied into a message: an item may hold personal data.
 */
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { getEndpointFromInstructions } from '@smithy/core/endpoints';
import { DEFAULT_RETRY_OPTIONS, jitteredBackoff } from '../client/retry';
import { ClientSigner, DirectRequestError, requestHead, transportCode } from './direct-put';
import { http1Request, type Origin } from './http1';

/** Most bytes of an answer kept: DynamoDB's largest (a BatchGetItem) is 16 MB. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** A request with no byte moving either way for this long is given up (and tried again). */
const IDLE_TIMEOUT_MS = 30_000;

/** One JSON protocol: how its requests are named and framed. */
export interface JsonService {
  /** For messages: `DynamoDB`, `EventBridge`. */
  readonly name: string;
  /** `X-Amz-Target` prefix: `DynamoDB_20120810`, `AWSEvents`. */
  readonly targetPrefix: string;
  readonly contentType: 'application/x-amz-json-1.0' | 'application/x-amz-json-1.1';
  /** The signing name when the endpoint rules do not give one. */
  readonly signingName: string;
  /** A command class of the service, for its endpoint rules. */
  readonly endpointCommand: unknown;
  /** Error codes worth another attempt besides every 5xx and 429. */
  readonly retryableCodes: ReadonlySet<string>;
}

/** Where one client's requests go and how they are signed. */
export interface JsonRoute extends Origin {
  readonly host: string;
  readonly path: string;
  readonly signingRegion: string;
  readonly signingName: string;
}

/** A request the service (or the network) refused, after the attempts the client allows. */
export class DirectJsonError extends DirectRequestError {
  /** DynamoDB's item as it was, on a failed condition with `ReturnValuesOnConditionCheckFailure`. */
  readonly Item?: Record<string, unknown>;

  constructor(
    service: string,
    operation: string,
    code: string,
    status: number | undefined,
    attempts: number,
    extra: { item?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(`${service} ${operation}`, code, status, attempts, extra.cause);
    if (extra.item) this.Item = extra.item;
  }
}

/** The client's pieces this module reads. */
interface ClientConfig {
  region: () => Promise<string>;
}

/** Signed JSON requests of one service through one SDK client's configuration. */
export class DirectJson {
  #route: Promise<JsonRoute | undefined> | undefined;
  readonly #signer: ClientSigner;

  constructor(
    private readonly client: { config: unknown },
    readonly service: JsonService,
  ) {
    this.#signer = new ClientSigner(client);
  }

  /** The route (resolved on first use), or undefined when the endpoint needs the SDK. */
  route(): Promise<JsonRoute | undefined> {
    this.#route ??= resolveRoute(this.client.config, this.service).catch((error: unknown) => {
      this.#route = undefined;
      throw error;
    });
    return this.#route;
  }

  /** Sends `operation` with `input` (the service's wire JSON); resolves with the answer's JSON. */
  async call(route: JsonRoute, operation: string, input: unknown): Promise<Record<string, unknown>> {
    const maxAttempts = await this.#signer.maxAttempts();
    const body = Buffer.from(JSON.stringify(input), 'utf8');
    const payloadHash = createHash('sha256').update(body).digest('hex');
    const unsigned = {
      host: route.host,
      'content-type': this.service.contentType,
      'content-length': String(body.length),
      'x-amz-target': `${this.service.targetPrefix}.${operation}`,
    };
    const { name } = this.service;
    for (let attempt = 1; ; attempt++) {
      let status: number | undefined;
      let code: string;
      let failure: unknown;
      let item: Record<string, unknown> | undefined;
      try {
        const headers = await this.#signer.sign({
          method: 'POST',
          path: route.path,
          headers: unsigned,
          payloadHash,
          payloadHashHeader: false,
          region: route.signingRegion,
          service: route.signingName,
        });
        const answer = await http1Request(route, requestHead(route.path, headers, 'POST'), body, {
          signal: NEVER_ABORTED,
          idleTimeoutMs: IDLE_TIMEOUT_MS,
          maxBodyBytes: MAX_ANSWER_BYTES,
        });
        status = answer.status;
        const json = parseAnswer(answer.body);
        if (status >= 200 && status < 300) {
          if (json) return json;
          code = 'MalformedAnswer';
        } else {
          code = errorCode(json) ?? `Http${status}`;
          if (json && typeof json.Item === 'object' && json.Item !== null) {
            item = json.Item as Record<string, unknown>;
          }
        }
      } catch (error) {
        failure = error;
        code = transportCode(error);
      }
      const retryable =
        status === undefined || status >= 500 || status === 429 || this.service.retryableCodes.has(code);
      if (!retryable || attempt >= maxAttempts) {
        throw new DirectJsonError(name, operation, code, status, attempt, {
          ...(item && { item }),
          ...(failure !== undefined && { cause: failure }),
        });
      }
      await delay(jitteredBackoff(attempt, DEFAULT_RETRY_OPTIONS));
    }
  }
}

/** Requests here are never stopped by a caller: their time is bounded by the idle timeout and attempts. */
const NEVER_ABORTED = new AbortController().signal;

/** The answer as a JSON object, or undefined when it is not one. */
function parseAnswer(body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The code of an error answer (`__type`, after its `#`), when it is one plain word. */
export function errorCode(json: Record<string, unknown> | undefined): string | undefined {
  const type = json?.__type ?? json?.code;
  if (typeof type !== 'string') return undefined;
  const code = type.slice(type.lastIndexOf('#') + 1);
  return /^[A-Za-z]{1,100}$/.test(code) ? code : undefined;
}

/** The client's endpoint and signing names, from its endpoint rules. */
async function resolveRoute(config: unknown, service: JsonService): Promise<JsonRoute | undefined> {
  const endpoint = await getEndpointFromInstructions({}, service.endpointCommand as never, config as never);
  const schemes = endpoint.properties?.['authSchemes'] as
    | { name?: string; signingName?: string; signingRegion?: string }[]
    | undefined;
  const scheme = schemes?.[0];
  if (scheme && scheme.name !== 'sigv4') return undefined;
  if (endpoint.headers && Object.keys(endpoint.headers).length > 0) return undefined;
  const url = endpoint.url;
  if (url.search || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  const region = scheme?.signingRegion ?? (await (config as ClientConfig).region());
  return {
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : undefined,
    host: url.host,
    path: url.pathname || '/',
    signingRegion: region,
    signingName: scheme?.signingName ?? service.signingName,
  };
}
