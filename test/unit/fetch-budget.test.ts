/**
 * The fetch-result time budget: its consistency rules, the batch runner's cut-off and the client's retry
 * loop ending at a caller's deadline (issue 14 item 5). Clocks and sleeps are fakes: nothing here is timed.
 */
import { describe, expect, it } from 'vitest';
import { ConnectionError, ServerError } from '../../shared/client/errors';
import { type HttpRequest, type TransportOptions, withRetry } from '../../shared/client/http';
import { runBatch } from '../../shared/pipeline/batch-runner';
import {
  budgetProblems,
  claimExpiry,
  concurrencyForRate,
  FETCH_BUDGET,
  minStartMs,
  paceOfContainer,
  worstServiceCallMs,
} from '../../shared/pipeline/fetch-budget';

describe('the fetch-result budget', () => {
  it('is consistent: one record with every retry fits the timeout, a crashed claim expires before redelivery', () => {
    // Act
    const problems = budgetProblems();

    // Assess
    expect(problems).toEqual([]);
    expect(worstServiceCallMs()).toBe(3 * 15_000 + 2 * 10_000);
    expect(
      worstServiceCallMs() + FETCH_BUDGET.afterFetchReserveMs + FETCH_BUDGET.returnReserveMs,
    ).toBeLessThanOrEqual(FETCH_BUDGET.functionTimeoutSeconds * 1000);
    expect(claimExpiry(0)).toBeLessThan(
      FETCH_BUDGET.functionTimeoutSeconds * 1000 * FETCH_BUDGET.visibilityFactor,
    );
  });

  it('names each broken rule', () => {
    // Act
    const problems = budgetProblems({
      ...FETCH_BUDGET,
      functionTimeoutSeconds: 60,
      visibilityFactor: 1,
      recordConcurrency: 9,
    });

    // Assess
    expect(problems).toEqual([
      'the visibility timeout must be at least 6× the function timeout',
      'a record started first needs up to 72000 ms with every retry, more than the 60000 ms timeout',
      'a crashed claimer’s claim must expire before its message becomes visible again',
      'the record concurrency must be between 1 and the batch size',
    ]);
  });
});

describe('runBatch', () => {
  const records = ['a', 'b', 'c', 'd', 'e'].map((messageId) => ({ messageId }));

  it('without a deadline runs every record, at most `recordConcurrency` at once, and reports the failed', async () => {
    // Prepare
    let running = 0;
    let most = 0;
    const handle = async (record: { messageId: string }) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      if (record.messageId === 'c') throw new Error('failed');
    };

    // Act
    const run = await runBatch(records, handle, { budget: FETCH_BUDGET });

    // Assess
    expect(most).toBe(FETCH_BUDGET.recordConcurrency);
    expect(run).toEqual({
      batchItemFailures: [{ itemIdentifier: 'c' }],
      succeeded: 4,
      failed: 1,
      notStarted: 0,
      unfinished: 0,
    });
  });

  it('runs records of the same key one after the other, others beside them', async () => {
    // Prepare: a and b share a key, c has its own.
    const keyed = [{ messageId: 'a' }, { messageId: 'b' }, { messageId: 'c' }];
    const log: string[] = [];
    const handle = async (record: { messageId: string }) => {
      log.push(`start ${record.messageId}`);
      await new Promise((resolve) => setImmediate(resolve));
      log.push(`end ${record.messageId}`);
    };

    // Act
    const run = await runBatch(keyed, handle, {
      budget: FETCH_BUDGET,
      keyOf: (record) => (record.messageId === 'c' ? 'other' : 'same'),
    });

    // Assess
    expect(run.succeeded).toBe(3);
    expect(log.indexOf('start b')).toBeGreaterThan(log.indexOf('end a'));
    expect(log.indexOf('start c')).toBeLessThan(log.indexOf('end a'));
  });

  it('starts nothing with less than the least start time left, and hands each record its deadlines', async () => {
    // Prepare
    const seen: object[] = [];
    const clock = 1_000_000;

    // Act
    const none = await runBatch(records, async () => {}, {
      budget: FETCH_BUDGET,
      remainingMs: () => minStartMs() - 1,
      now: () => clock,
    });
    await runBatch([records[0]!], async (_, deadlines) => seen.push(deadlines), {
      budget: FETCH_BUDGET,
      remainingMs: () => 60_000,
      now: () => clock,
    });

    // Assess
    expect(none).toMatchObject({ notStarted: 5, succeeded: 0 });
    expect(none.batchItemFailures).toHaveLength(5);
    expect(seen).toEqual([
      {
        invocationDeadlineMs: clock + 60_000,
        serviceDeadlineMs: clock + 60_000 - FETCH_BUDGET.returnReserveMs - FETCH_BUDGET.afterFetchReserveMs,
      },
    ]);
  });

  it('returns at the cut-off with a record still running: it and the ones not started are failures', async () => {
    // Prepare: the first record never ends; the budget leaves 20 ms before the return reserve.
    const budget = { ...FETCH_BUDGET, recordConcurrency: 1, returnReserveMs: 0, afterFetchReserveMs: 0 };
    const handle = (record: { messageId: string }) =>
      record.messageId === 'a' ? new Promise<void>(() => {}) : Promise.resolve();

    // Act
    const run = await runBatch(records, handle, { budget, remainingMs: () => 1_020 });

    // Assess
    expect(run).toMatchObject({ succeeded: 0, unfinished: 1, notStarted: 4 });
    expect(run.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('withRetry with a deadline', () => {
  const request: HttpRequest = {
    method: 'GET',
    url: new URL('http://service.test/api/v2/result/r-1'),
    headers: {},
    mayHaveCreated: false,
  };

  function transport(now: { ms: number }, deadlineMs: number) {
    const timeouts: number[] = [];
    const sleeps: number[] = [];
    const options: TransportOptions = {
      fetch: globalThis.fetch,
      timeoutMs: 15_000,
      retry: { ...FETCH_BUDGET.retry, random: () => 0.5 },
      sleep: async (ms) => {
        sleeps.push(ms);
        now.ms += ms;
      },
      now: () => now.ms,
      deadlineMs,
    };
    return { options, timeouts, sleeps };
  }

  it('cuts each attempt’s timeout to the time left and does not wait past the deadline', async () => {
    // Prepare: 503 with Retry-After 4 s; 10 s left.
    const now = { ms: 0 };
    const { options, timeouts, sleeps } = transport(now, 10_000);
    const send = async (_: HttpRequest, o: TransportOptions) => {
      timeouts.push(o.timeoutMs);
      now.ms += 1_000;
      throw new ServerError('unavailable', { status: 503, retryAfterMs: 4_000 });
    };

    // Act / Assess
    await expect(withRetry(request, options, send)).rejects.toBeInstanceOf(ServerError);
    expect(timeouts).toEqual([10_000, 5_000]);
    expect(sleeps).toEqual([4_000]);
  });

  it('sends nothing when the deadline has passed', async () => {
    // Prepare
    const { options } = transport({ ms: 5_000 }, 5_000);
    let sent = 0;

    // Act / Assess
    await expect(
      withRetry(request, options, async () => {
        sent++;
      }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(sent).toBe(0);
  });
});

describe('concurrency and pace from the service rate', () => {
  it.each([
    [1, 2],
    [4, 2],
    [5, 3],
    [10, 5],
    [100, 50],
  ])('%s requests/s needs %s concurrent executions (at least 2, the least maxConcurrency)', (rate, n) => {
    // Act / Assess
    expect(concurrencyForRate(rate)).toBe(n);
  });

  it('sizes from the records each execution runs at once and the seconds per result', () => {
    // Act / Assess
    expect(concurrencyForRate(100, { ...FETCH_BUDGET, recordConcurrency: 4 }, 0.5)).toBe(13);
  });

  it.each([
    [10, 5, 2],
    [25, 3, 8.33],
    [1, 3, 0.33],
    [1, 1000, 0.01],
  ])('%s requests/s over %s containers is %s each, never more than the rate together', (rate, n, pace) => {
    // Act
    const each = paceOfContainer(rate, n);

    // Assess
    expect(each).toBe(pace);
    expect(each * n <= rate || each === 0.01).toBe(true);
  });
});
