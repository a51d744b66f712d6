/**
 * The one policy for what an AWS batch call leaves undone — keys a BatchGetItem left unprocessed
 * (`batch-get.ts`), entries a SendMessageBatch failed (`../pipeline/queue.ts`): they are asked for again
 * after a capped, jittered backoff, for a bounded number of rounds, and then the caller fails. A failure of
 * the whole call is the SDK's to retry (its own retry strategy), not this policy's.
 */

/** How often, and after which waits, a batch's undone part is sent again. */
export interface BatchRetryPolicy {
  /** Rounds (the first request included) before the call fails. */
  readonly rounds: number;
  /** Backoff before round 2; it doubles each round. */
  readonly baseDelayMs: number;
  /** No wait is longer than this. */
  readonly maxDelayMs: number;
}

/**
 * Eight rounds, 50 ms doubling to a 2 s cap: about 6 s of waiting in all before a call fails — long enough
 * for a throttled table's adaptive capacity or a throttled queue to catch up, short next to a Lambda's
 * timeout.
 */
export const BATCH_RETRY_POLICY: BatchRetryPolicy = { rounds: 8, baseDelayMs: 50, maxDelayMs: 2_000 };

/**
 * The wait before round `round` (1-based; round 1 never waits): "full jitter" over a capped exponential,
 * so that concurrent callers throttled together do not retry together. `random` is in [0, 1).
 */
export function batchRetryBackoffMs(round: number, policy: BatchRetryPolicy, random: number): number {
  if (round <= 1) return 0;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (round - 2));
  return Math.floor(random * ceiling);
}

/** Waits `ms` on the real clock (tests pass a fake one). */
export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
