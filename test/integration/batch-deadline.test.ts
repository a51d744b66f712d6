/**
 * Batches never time out as a whole (issue 14 item 5): the fetch-result batch runner with the real client
 * against a slow simulator and the real store on dynalite/s3rver. Records that cannot finish in the
 * invocation's remaining time come back as batch item failures before the deadline; redelivered later they
 * are stored and announced once each: none is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdvClient } from '../../shared/client/client';
import { runBatch } from '../../shared/pipeline/batch-runner';
import { FETCH_BUDGET, type FetchBudget } from '../../shared/pipeline/fetch-budget';
import { type FetchResultDeps, processQueueRecord } from '../../shared/pipeline/fetch-result';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { FakePublisher, memoryLogger } from '../support/pipeline-fakes';

const CREDENTIALS = { clientId: 'deadline-client', clientSecret: 'deadline-secret-Kp4' };
/** The pipeline's budget with reserves scaled down to a test's seconds. */
const BUDGET: FetchBudget = {
  ...FETCH_BUDGET,
  recordConcurrency: 2,
  returnReserveMs: 300,
  afterFetchReserveMs: 500,
};

let local: LocalStore;
let sim: RunningSimulator;
let client: IdvClient;
const resultIds: string[] = [];

beforeAll(async () => {
  local = await startLocalStore('idv-deadline');
  sim = await startSimulator({ ...CREDENTIALS, seed: 7 });
  client = new IdvClient({
    baseUrl: sim.url,
    environment: 'staging',
    credentials: CREDENTIALS,
    timeoutMs: FETCH_BUDGET.serviceCallTimeoutMs,
    retry: FETCH_BUDGET.retry,
  });
  for (let i = 0; i < 4; i++) {
    const { transactionId } = await client.createSecureLink(
      { product: 'RTW_PREMIUM', disableCommunication: true, customerReference: `deadline-${i}` },
      { mockTest: 'APPROVED' },
    );
    const [id] = sim.control.resultIdsOf(transactionId);
    if (!id) throw new Error('the simulator completed no result');
    resultIds.push(id);
  }
}, 60_000);

afterAll(async () => {
  sim?.control.setFaults(undefined);
  await sim?.close();
  await local?.close();
});

describe('a batch against a slow service (simulator slowRate 1)', () => {
  it('reports what cannot finish as failures before the deadline; the redelivery stores and announces each once', async () => {
    // Prepare: every result request waits 5 s; the invocation has 3 s left.
    const publisher = new FakePublisher();
    const deps: FetchResultDeps = {
      source: client,
      store: local.store,
      publications: local.publications,
      publisher,
      environment: 'staging',
      retentionDays: 7,
      logger: memoryLogger().logger,
    };
    const records = resultIds.map((resultId, i) => ({
      messageId: `m-${i}`,
      body: JSON.stringify({ resultId, source: 'poll' }),
    }));
    const handle = (record: { body: string }, deadlines: object) =>
      processQueueRecord(record.body, deps, deadlines);
    sim.control.setFaults({ slowRate: 1, slowMs: 5_000, paths: ['/api/v2/result'] });
    const remainingMs = 3_000;
    const deadline = Date.now() + remainingMs;

    // Act
    const slow = await runBatch(records, handle, {
      budget: BUDGET,
      remainingMs: () => deadline - Date.now(),
    });
    const returnedAt = Date.now();
    sim.control.setFaults(undefined);
    const redelivered = records.filter((r) =>
      slow.batchItemFailures.some((f) => f.itemIdentifier === r.messageId),
    );
    const retry = await runBatch(redelivered, handle, { budget: BUDGET, remainingMs: () => 30_000 });

    // Assess: nothing finished in time, the two started ones timed out within the budget, two never started.
    expect(returnedAt).toBeLessThan(deadline);
    expect(slow.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m-0', 'm-1', 'm-2', 'm-3']);
    expect(slow).toMatchObject({ succeeded: 0, failed: 2, notStarted: 2, unfinished: 0 });
    expect(retry).toMatchObject({ batchItemFailures: [], succeeded: 4 });
    expect(publisher.stored.map((d) => d.resultId).sort()).toEqual([...resultIds].sort());
    for (const id of resultIds) expect((await local.store.getItem(id))?.eventPublishedAt).toBeDefined();
  }, 60_000);
});
