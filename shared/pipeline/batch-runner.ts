/**
 * Runs the records of one SQS batch within the invocation's time (docs/pipeline.md, "Time budget"): at most
 * `concurrency` at once, each given a deadline for its service call, none started once too little time is
 * left, and the response returned before the invocation's deadline whatever a record still does. Every
 * record not known to have succeeded is reported in `batchItemFailures`, so SQS redelivers it: none is lost.
 */
import { type FetchBudget, minStartMs } from './fetch-budget';

/** What a record gets to work with. */
export interface RecordDeadlines {
  /** Epoch ms by which its service call must end; undefined without a known invocation deadline. */
  readonly serviceDeadlineMs?: number;
  /** Epoch ms of the invocation's deadline. */
  readonly invocationDeadlineMs?: number;
}

/** Options of {@link runBatch}. */
export interface RunBatchOptions<R = unknown> {
  readonly budget: FetchBudget;
  /** Time left in the invocation (`context.getRemainingTimeInMillis`); without it there is no deadline. */
  readonly remainingMs?: () => number;
  /** Clock (epoch ms). @default Date.now */
  readonly now?: () => number;
  /**
   * Records with the same key (the resultId) run one after the other, never at once: the second then
   * finds the result stored instead of fetching it a second time.
   */
  readonly keyOf?: (record: R) => string | undefined;
}

/** How the batch went: failures in SQS's response shape and what became of each record. */
export interface BatchRun {
  readonly batchItemFailures: { itemIdentifier: string }[];
  readonly succeeded: number;
  readonly failed: number;
  /** Not started: too little time was left. */
  readonly notStarted: number;
  /** Started but still running when the response had to be returned. */
  readonly unfinished: number;
}

/**
 * Processes `records` with `handle`, as described above. `handle` throws for a record that failed; it may
 * keep running after `runBatch` returned (it is then reported as failed, and its own deadlines end it).
 */
export async function runBatch<R extends { readonly messageId: string }>(
  records: readonly R[],
  handle: (record: R, deadlines: RecordDeadlines) => Promise<unknown>,
  options: RunBatchOptions<R>,
): Promise<BatchRun> {
  const { budget } = options;
  const now = options.now ?? Date.now;
  const deadline = options.remainingMs ? now() + options.remainingMs() : undefined;
  const deadlines: RecordDeadlines =
    deadline === undefined
      ? {}
      : {
          invocationDeadlineMs: deadline,
          serviceDeadlineMs: deadline - budget.returnReserveMs - budget.afterFetchReserveMs,
        };
  const state: ('waiting' | 'running' | 'ok' | 'failed' | 'skipped')[] = records.map(() => 'waiting');
  const keys = records.map((record) => options.keyOf?.(record));
  const pending = records.map((_, index) => index);
  const runningKeys = new Set<string>();
  let wake: (() => void)[] = [];
  // Set once the response is decided: a record still running then must not pull another one.
  let stopped = false;
  const worker = async () => {
    while (!stopped && pending.length > 0) {
      // The first record whose key is not running; if every one waits on a running key, wait for an end.
      const at = pending.findIndex((i) => keys[i] === undefined || !runningKeys.has(keys[i]!));
      if (at === -1) {
        await new Promise<void>((resolve) => wake.push(resolve));
        continue;
      }
      const [index] = pending.splice(at, 1) as [number];
      const key = keys[index];
      if (key !== undefined) runningKeys.add(key);
      try {
        await runOne(index);
      } finally {
        if (key !== undefined) runningKeys.delete(key);
        const waiting = wake;
        wake = [];
        for (const resolve of waiting) resolve();
      }
    }
  };
  const runOne = async (index: number) => {
    if (stopped || (deadline !== undefined && deadline - now() < minStartMs(budget))) {
      state[index] = 'skipped';
      return;
    }
    state[index] = 'running';
    try {
      await handle(records[index]!, deadlines);
      state[index] = 'ok';
    } catch {
      state[index] = 'failed';
    }
  };
  const workers = Array.from({ length: Math.min(budget.recordConcurrency, records.length) }, worker);
  const all = Promise.all(workers);
  if (deadline === undefined) {
    await all;
  } else {
    let timer: NodeJS.Timeout | undefined;
    const cutOff = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, deadline - budget.returnReserveMs - now()));
    });
    await Promise.race([all, cutOff]);
    clearTimeout(timer);
  }
  stopped = true;
  const batchItemFailures = records
    .filter((_, i) => state[i] !== 'ok')
    .map((record) => ({ itemIdentifier: record.messageId }));
  const count = (s: (typeof state)[number]) => state.filter((x) => x === s).length;
  return {
    batchItemFailures,
    succeeded: count('ok'),
    failed: count('failed'),
    notStarted: count('skipped') + count('waiting'),
    unfinished: count('running'),
  };
}
