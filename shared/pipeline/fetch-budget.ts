/**
 * The fetch-result function's time budget in one place (docs/pipeline.md, "Time budget"): the infra takes
 * the function timeout, batch size and batching window from here, the handler its record concurrency and
 * reserves, the service client its timeout and retry caps. `budgetProblems` states the rules that keep
 * them consistent; the infra tests check the synthesized stack against them.
 */

/** The figures of the budget. */
export interface FetchBudget {
  /** Lambda timeout of fetch-result. */
  readonly functionTimeoutSeconds: number;
  /** Visibility timeout of the results queue as a multiple of the function timeout (AWS: at least 6). */
  readonly visibilityFactor: number;
  /** Records per invocation (event source batch size). */
  readonly batchSize: number;
  /** Longest wait of the event source to fill a batch (0: none). */
  readonly maxBatchingWindowSeconds: number;
  /** Records processed at once within an invocation (each streams; memory stays bounded per record). */
  readonly recordConcurrency: number;
  /** Timeout of one service exchange (headers, then every wait for the next body chunk). */
  readonly serviceCallTimeoutMs: number;
  /** The client's retry caps for the pipeline (`RetryOptions`). */
  readonly retry: {
    readonly maxAttempts: number;
    readonly baseDelayMs: number;
    readonly maxDelayMs: number;
    readonly maxRetryAfterMs: number;
  };
  /** Kept after the service call for result.json, the item, the claim, the event and the mark. */
  readonly afterFetchReserveMs: number;
  /** Kept at the end of the invocation to return the batch response and flush metrics. */
  readonly returnReserveMs: number;
  /**
   * Added to the invocation's deadline to make a publication claim's expiry: covers clock differences
   * between Lambda hosts. After the deadline the claimer cannot be running any more.
   */
  readonly claimMarginMs: number;
}

/** The pipeline's budget. Worst service call: 3 × 15 s + 2 × 10 s = 65 s, within the 90 s timeout. */
export const FETCH_BUDGET: FetchBudget = {
  functionTimeoutSeconds: 90,
  visibilityFactor: 6,
  batchSize: 5,
  maxBatchingWindowSeconds: 0,
  recordConcurrency: 2,
  serviceCallTimeoutMs: 15_000,
  // A Retry-After beyond 10 s is not sat out in the function: the message is redelivered instead.
  retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 5_000, maxRetryAfterMs: 10_000 },
  afterFetchReserveMs: 5_000,
  returnReserveMs: 2_000,
  claimMarginMs: 10_000,
};

/**
 * Seconds one result is expected to take in fetch-result on AWS (service call, S3, DynamoDB, the event):
 * what sizes the function's concurrency from the service's rate. Small results take less, results of
 * tens of MB more; 1 s errs towards more concurrency, which costs nothing when idle (each container keeps
 * its share of the rate, so more containers never means more than the rate).
 */
export const EXPECTED_SECONDS_PER_RESULT = 1;

/**
 * Concurrent executions fetch-result needs to keep up with `ratePerSecond` results per second: each runs
 * `recordConcurrency` records at once at {@link EXPECTED_SECONDS_PER_RESULT} each, so
 * `ceil(rate × seconds / recordConcurrency)`, at least 2 (the least `maxConcurrency` of an SQS event
 * source). docs/deploy.md, "Service rate and concurrency".
 */
export function concurrencyForRate(
  ratePerSecond: number,
  budget: FetchBudget = FETCH_BUDGET,
  secondsPerResult = EXPECTED_SECONDS_PER_RESULT,
): number {
  return Math.max(2, Math.ceil((ratePerSecond * secondsPerResult) / budget.recordConcurrency));
}

/**
 * One container's share of the service's rate when `concurrency` run at once: `rate / concurrency`,
 * rounded down to 0.01 request per second, so together they stay within the rate.
 */
export function paceOfContainer(ratePerSecond: number, concurrency: number): number {
  return Math.max(0.01, Math.floor((ratePerSecond / concurrency) * 100) / 100);
}

/** Longest a service call with all its retries can take: every attempt timing out, every wait at its cap. */
export function worstServiceCallMs(budget: FetchBudget = FETCH_BUDGET): number {
  const { maxAttempts, maxDelayMs, maxRetryAfterMs } = budget.retry;
  return (
    maxAttempts * budget.serviceCallTimeoutMs + (maxAttempts - 1) * Math.max(maxDelayMs, maxRetryAfterMs)
  );
}

/**
 * Least remaining time for a record to be started: the reserves plus one second for the service. A record
 * started later could not even make its first exchange; it is returned as a batch item failure instead.
 */
export function minStartMs(budget: FetchBudget = FETCH_BUDGET): number {
  return budget.returnReserveMs + budget.afterFetchReserveMs + 1_000;
}

/** Epoch ms of a publication claim's expiry for an invocation ending at `deadlineMs`. */
export function claimExpiry(deadlineMs: number, budget: FetchBudget = FETCH_BUDGET): number {
  return deadlineMs + budget.claimMarginMs;
}

/** Each rule the budget breaks, in words (empty when consistent). */
export function budgetProblems(budget: FetchBudget = FETCH_BUDGET): string[] {
  const problems: string[] = [];
  const timeoutMs = budget.functionTimeoutSeconds * 1000;
  const visibilityMs = timeoutMs * budget.visibilityFactor;
  const oneRecordMs = worstServiceCallMs(budget) + budget.afterFetchReserveMs + budget.returnReserveMs;
  if (budget.visibilityFactor < 6)
    problems.push('the visibility timeout must be at least 6× the function timeout');
  if (oneRecordMs > timeoutMs) {
    problems.push(
      `a record started first needs up to ${oneRecordMs} ms with every retry, more than the ${timeoutMs} ms timeout`,
    );
  }
  // A message is in flight from the poller's receive: batching window, then the invocation.
  const inFlightMs = budget.maxBatchingWindowSeconds * 1000 + timeoutMs;
  if (inFlightMs + budget.claimMarginMs >= visibilityMs) {
    problems.push('a crashed claimer’s claim must expire before its message becomes visible again');
  }
  if (budget.recordConcurrency < 1 || budget.recordConcurrency > budget.batchSize) {
    problems.push('the record concurrency must be between 1 and the batch size');
  }
  if (budget.batchSize < 1 || budget.batchSize > 10) {
    problems.push('the batch size must be between 1 and 10 (an SQS queue without a batching window)');
  }
  return problems;
}
