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
export interface RunBatchOptions {
  readonly budget: FetchBudget;
  /** Time left in the invocation (`context.getRemainingTimeInMillis`); without it there is no deadline. */
  readonly remainingMs?: () => number;
  /** Clock (epoch ms). @default Date.now */
  readonly now?: () => number;
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
  options: RunBatchOptions,
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
  let next = 0;
  // Set once the response is decided: a record still running then must not pull another one.
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < records.length) {
      const index = next++;
      if (deadline !== undefined && deadline - now() < minStartMs(budget)) {
        state[index] = 'skipped';
        continue;
      }
      state[index] = 'running';
      try {
        await handle(records[index]!, deadlines);
        state[index] = 'ok';
      } catch {
        state[index] = 'failed';
      }
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
