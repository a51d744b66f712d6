/**
 * The client's one retry policy: a pure decision, so it is tested on its own and shared by every call.
 */
import { ConnectionError, RateLimitError, ServerError, ServiceError } from './errors';

/** Tunables of the retry policy. */
export interface RetryOptions {
  /** Attempts in total, the first included. @default 3 */
  readonly maxAttempts: number;
  /** Backoff base: the n-th retry waits up to `baseDelayMs * 2^(n-1)`. @default 200 */
  readonly baseDelayMs: number;
  /** Cap of the exponential backoff. @default 5000 */
  readonly maxDelayMs: number;
  /**
   * Longest `Retry-After` wait the client sits out itself. A longer wait is not shortened (that would send
   * before the service allows it): the client gives up and the error's `retryAfterMs` tells the caller.
   * @default 20000
   */
  readonly maxRetryAfterMs: number;
  /** Source of jitter in [0, 1). @default Math.random */
  readonly random: () => number;
}

/** Defaults of the retry policy. */
export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 20_000,
  random: Math.random,
};

/** What the policy looks at after a failed attempt. */
export interface RetryInput {
  /** Number of the attempt that just failed, starting at 1. */
  readonly attempt: number;
  readonly method: 'GET' | 'POST';
  /**
   * The request creates or consumes something on the service (a transaction, a link, a one-time
   * package), so sending it twice could do it twice. Decides alone whether an ambiguous failure is
   * repeated, whatever the method.
   */
  readonly mayHaveCreated: boolean;
  readonly error: unknown;
}

/** The decision: retry after `delayMs`, or give up (`delayMs` 0). */
export interface RetryDecision {
  readonly retry: boolean;
  readonly delayMs: number;
}

const GIVE_UP: RetryDecision = { retry: false, delayMs: 0 };

/** Decides whether a failed attempt is sent again, and after how long. */
export function shouldRetry(input: RetryInput, options: Partial<RetryOptions> = {}): RetryDecision {
  const opts = { ...DEFAULT_RETRY_OPTIONS, ...options };
  const { attempt, error } = input;
  if (attempt >= opts.maxAttempts) return GIVE_UP;

  // A request is safe to repeat unless it may have created something: a read, or a POST that only checks
  // something (quality). The method alone does not decide: GET /sdk/token starts a transaction.
  const repeatable = !input.mayHaveCreated;
  const retryAfterMs = error instanceof ServiceError ? error.retryAfterMs : undefined;
  const backoff = () => ({ retry: true, delayMs: jitteredBackoff(attempt, opts) });
  // Never earlier than the service asked: a wait beyond the cap is left to the caller (e.g. SQS redelivery).
  const waitAsAsked = (ms: number) => (ms <= opts.maxRetryAfterMs ? { retry: true, delayMs: ms } : GIVE_UP);

  if (error instanceof ConnectionError) {
    // No answer. Refused before sending: nothing reached the service, so even a creating POST is safe.
    if (error.notSent) return backoff();
    // Reset or timed out: the service may have acted on it; only a repeatable request is sent again.
    return repeatable ? backoff() : GIVE_UP;
  }

  if (error instanceof RateLimitError) {
    // 429 means the service refused the request, so nothing was created; honour its wait if given.
    if (retryAfterMs !== undefined) return waitAsAsked(retryAfterMs);
    // Without Retry-After we cannot be sure a proxy did not answer after forwarding a creating POST.
    return repeatable ? backoff() : GIVE_UP;
  }

  if (error instanceof ServerError) {
    // 503 with Retry-After is an explicit "not now": the service did not take the request.
    if (error.status === 503 && retryAfterMs !== undefined) return waitAsAsked(retryAfterMs);
    // Any other 5xx may have happened after something was created: never repeat a creating POST.
    return repeatable ? backoff() : GIVE_UP;
  }

  // 4xx, malformed responses and our own validation errors do not get better by repeating.
  return GIVE_UP;
}

/** Longest hold one `Retry-After` puts on the whole client (`holdOffMs`). */
export const MAX_HOLD_OFF_MS = 60_000;

/**
 * How long every request of the client holds off after `error` (the shared pace, `pacer.ts`), or
 * undefined. Only an explicit wait of the service does: a 429 or a 503 with `Retry-After`. That wait is
 * about the account, not the one request, so the other records in flight wait it out too instead of
 * each drawing its own 429. A 429 without `Retry-After` holds nobody: only its own request backs off.
 */
export function holdOffMs(error: unknown): number | undefined {
  if (!(error instanceof ServiceError) || error.retryAfterMs === undefined) return undefined;
  const held = error instanceof RateLimitError || (error instanceof ServerError && error.status === 503);
  // The header is the service's word, not ours: a wait of days would stall the container for its whole
  // life. Past the cap the next request asks again, and a wait that still stands holds again.
  return held ? Math.min(error.retryAfterMs, MAX_HOLD_OFF_MS) : undefined;
}

/**
 * Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2^(attempt-1))). Also the backoff
 * between the store's BatchGetItem attempts for keys DynamoDB left unprocessed.
 */
export function jitteredBackoff(attempt: number, opts: RetryOptions): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(opts.random() * ceiling);
}
