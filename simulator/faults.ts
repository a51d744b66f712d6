/**
 * Fault injection for reliability work: a share of requests gets a 5xx, a 429 with `Retry-After`, a slow
 * answer, a dropped connection or a truncated body. Every decision comes from a seeded PRNG and every
 * request draws the same number of values, so the same seed and request sequence give the same faults.
 */
import { isJsonObject } from '../shared/json-object';
import { createPrng, deriveSeed, type Prng } from './prng';

/** Shares are probabilities in [0, 1]; everything is off by default. */
export interface FaultOptions {
  /** Share of requests answered 500/502/503 with the default error body. */
  serverErrorRate?: number;
  /** Share of requests answered 429 with `Retry-After`. */
  rateLimitRate?: number;
  /** `Retry-After` seconds of an injected 429. @default 1 */
  retryAfterSeconds?: number;
  /**
   * The account's rate limit, in requests per second: above it a request is answered 429 with the
   * `Retry-After` (whole seconds, at least 1) after which the next one is allowed. A token bucket of
   * `rateLimitBurst` requests refilled at this rate, on the wall clock (not moved by `advanceTime`), so a
   * client that keeps the pace is never refused. The spec states no rate; this is the stand-in.
   * @default none
   */
  rateLimitPerSecond?: number;
  /** Requests the rate limit lets through at once after a quiet spell. @default one second's worth */
  rateLimitBurst?: number;
  /** Share of requests delayed by `slowMs` before being handled normally. */
  slowRate?: number;
  /** Delay of a slow request. @default 2000 */
  slowMs?: number;
  /** Share of requests whose connection is destroyed without an answer. */
  dropRate?: number;
  /** Share of requests whose answer is cut off after half the body. */
  truncateRate?: number;
  /** Only requests whose path starts with one of these are affected. @default every /api/v2 path */
  paths?: string[];
}

/** What to do with one request. `delayMs` applies first, then `action`. */
export interface FaultDecision {
  delayMs: number;
  action: 'none' | 'drop' | 'rateLimit' | 'serverError' | 'truncate';
  /** Status of a `serverError`. */
  status?: number;
  /** `Retry-After` of a `rateLimit`. */
  retryAfterSeconds?: number;
}

/** Counts of injected faults, by kind. */
export interface FaultCounts {
  serverError: number;
  rateLimit: number;
  slow: number;
  drop: number;
  truncate: number;
}

const SERVER_ERROR_STATUSES = [500, 502, 503] as const;

/**
 * The rate limit's token bucket: `burst` tokens at most, refilled at `perSecond`; a request takes one.
 * Returns undefined when the request may pass, else the whole seconds until a token is there.
 */
export class RateLimiter {
  #tokens: number;
  #at: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number,
  ) {
    this.#tokens = burst;
    this.#at = now();
  }

  /** Takes a token, or says how many seconds (at least 1) to wait for one. */
  take(): number | undefined {
    const now = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - this.#tokens) / this.perSecond));
  }
}

/** Checks a rate limit sent to `POST /__sim/faults`; returns the problem, if any. */
export function rateLimitProblem(options: FaultOptions): string | undefined {
  const { rateLimitPerSecond: rate, rateLimitBurst: burst } = options;
  if (rate !== undefined && !(typeof rate === 'number' && rate > 0 && Number.isFinite(rate)))
    return 'rateLimitPerSecond must be a positive number';
  if (burst !== undefined && !(Number.isInteger(burst) && burst >= 1))
    return 'rateLimitBurst must be a whole number of at least 1';
  return undefined;
}

/** Decides the fault of each request from a seeded stream. */
export class FaultInjector {
  private prng: Prng;
  private options: FaultOptions = {};
  private limiter: RateLimiter | undefined;
  readonly counts: FaultCounts = { serverError: 0, rateLimit: 0, slow: 0, drop: 0, truncate: 0 };

  constructor(
    private readonly seed: number,
    private readonly wallClock: () => number = Date.now,
  ) {
    this.prng = createPrng(deriveSeed(seed, 'faults'));
  }

  /** Replaces the fault settings and restarts the seeded stream, so a test run repeats from here. */
  set(options: FaultOptions | undefined): void {
    this.options = { ...(options ?? {}) };
    this.prng = createPrng(deriveSeed(this.seed, 'faults'));
    const rate = this.options.rateLimitPerSecond;
    this.limiter =
      rate === undefined
        ? undefined
        : new RateLimiter(rate, this.options.rateLimitBurst ?? Math.max(1, Math.ceil(rate)), this.wallClock);
  }

  get current(): FaultOptions {
    return { ...this.options };
  }

  /** The fault for a request to `path`. */
  decide(path: string): FaultDecision {
    const o = this.options;
    const active =
      (o.serverErrorRate ?? 0) > 0 ||
      (o.rateLimitRate ?? 0) > 0 ||
      (o.slowRate ?? 0) > 0 ||
      (o.dropRate ?? 0) > 0 ||
      (o.truncateRate ?? 0) > 0;
    if (!active && !this.limiter) return { delayMs: 0, action: 'none' };
    if (o.paths && o.paths.length > 0 && !o.paths.some((p) => path.startsWith(p))) {
      return { delayMs: 0, action: 'none' };
    }
    // Above the account's rate: refused before anything else happens, as a service's gateway does.
    const wait = this.limiter?.take();
    if (wait !== undefined) {
      this.counts.rateLimit++;
      return { delayMs: 0, action: 'rateLimit', retryAfterSeconds: wait };
    }
    if (!active) return { delayMs: 0, action: 'none' };
    // Always draw all values, so whether one fault fires never shifts the stream for the next request.
    const [slow, drop, rate, server, truncate, pick] = [0, 0, 0, 0, 0, 0].map(() => this.prng.next()) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const delayMs = slow < (o.slowRate ?? 0) ? (o.slowMs ?? 2000) : 0;
    if (delayMs > 0) this.counts.slow++;
    if (drop < (o.dropRate ?? 0)) {
      this.counts.drop++;
      return { delayMs, action: 'drop' };
    }
    if (rate < (o.rateLimitRate ?? 0)) {
      this.counts.rateLimit++;
      return { delayMs, action: 'rateLimit', retryAfterSeconds: o.retryAfterSeconds ?? 1 };
    }
    if (server < (o.serverErrorRate ?? 0)) {
      this.counts.serverError++;
      const status = SERVER_ERROR_STATUSES[Math.floor(pick * SERVER_ERROR_STATUSES.length)]!;
      return { delayMs, action: 'serverError', status };
    }
    if (truncate < (o.truncateRate ?? 0)) {
      this.counts.truncate++;
      return { delayMs, action: 'truncate' };
    }
    return { delayMs, action: 'none' };
  }
}

/**
 * A fault of one transaction's results, for a deliberate, explained failure (the local run's demo): the
 * first `fetches` GET /result of any result of the transaction answer wrongly, later ones normally. Match
 * by `transactionId`, or by `customerReference` so the fault can be set before the transaction exists.
 */
export interface ResultFault {
  transactionId?: string;
  customerReference?: string;
  /**
   * `dataNotBase64`: a 200 whose first image `data` is not base64 (the pipeline refuses to store it);
   * `unavailable`: a 503 with the default error body.
   */
  kind: 'dataNotBase64' | 'unavailable';
  /** How many fetches go wrong before the result is served as it is. */
  fetches: number;
}

/** Checks a result fault sent to `POST /__sim/result-faults`; returns the problem, if any. */
export function resultFaultProblem(value: unknown): string | undefined {
  if (!isJsonObject(value)) return 'must be an object';
  const f = value;
  if (f['kind'] !== 'dataNotBase64' && f['kind'] !== 'unavailable')
    return 'kind must be dataNotBase64 or unavailable';
  if (!Number.isInteger(f['fetches']) || (f['fetches'] as number) < 0 || (f['fetches'] as number) > 1000)
    return 'fetches must be a whole number 0–1000';
  const id = f['transactionId'];
  const ref = f['customerReference'];
  if ((id === undefined) === (ref === undefined)) return 'give one of transactionId or customerReference';
  if ((id !== undefined && typeof id !== 'string') || (ref !== undefined && typeof ref !== 'string'))
    return 'transactionId and customerReference must be strings';
  return undefined;
}
