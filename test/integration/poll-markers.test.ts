/**
 * The poll does not multiply work: a backlog of pending records polled every minute yields one message
 * per result per visibility window (enqueue markers in DynamoDB, dynalite here; fauxqs as the queue).
 * Figures printed; published in docs/reliability.md.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PollResponse } from '../../shared/api/schemas';
import { DynamoEnqueueMarkers } from '../../shared/pipeline/enqueue-markers';
import { pollAndEnqueue } from '../../shared/pipeline/poll';
import { BATCH_RETRY_POLICY } from '../../shared/store/batch-retry';
import { clientConfig, type PipelineResources } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { memoryLogger } from '../support/pipeline-fakes';
import { drainQueue } from '../support/queue-drain';

const WINDOW_SECONDS = 300;
const BACKLOG = 60;
const T0 = Date.parse('2026-08-11T08:00:00.000Z');

let local: LocalStore;
let resources: PipelineResources;
let sqs: SQSClient;
let dynamo: DynamoDBDocumentClient;

function backlog(prefix: string, completedMs = T0 - 60_000): { poll(): Promise<PollResponse> } {
  const results = Array.from({ length: BACKLOG }, (_, i) => ({
    resultId: `${prefix}-${i}`,
    transactionId: `tx-${prefix}-${i}`,
    completed: new Date(completedMs).toISOString(),
  }));
  return { poll: async () => ({ results }) as PollResponse };
}

/** Receives and deletes every message; returns how many each resultId got. */
async function drainCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { resultId } of await drainQueue<{ resultId: string }>(sqs, resources.queueUrl))
    counts.set(resultId, (counts.get(resultId) ?? 0) + 1);
  return counts;
}

function markers(): DynamoEnqueueMarkers {
  return new DynamoEnqueueMarkers({
    client: dynamo,
    tableName: resources.pollMarkersTableName,
    windowSeconds: WINDOW_SECONDS,
  });
}

async function pollAt(
  prefix: string,
  atMs: number,
  withMarkers: boolean,
  queueUrl = resources.queueUrl,
  completedMs?: number,
) {
  return pollAndEnqueue({
    source: backlog(prefix, completedMs),
    sqs,
    queueUrl,
    logger: memoryLogger().logger,
    now: () => new Date(atMs),
    send: { policy: { ...BATCH_RETRY_POLICY, rounds: 1 } },
    ...(withMarkers && { markers: markers() }),
  });
}

describe('poll enqueue markers (dynalite + fauxqs)', () => {
  beforeAll(async () => {
    local = await startLocalStore('idv-markers', { resources: { visibilityTimeoutSeconds: 30 } });
    ({ resources, dynamo } = local);
    sqs = new SQSClient(clientConfig(local.aws, 'sqs'));
  }, 60_000);

  afterAll(async () => {
    sqs?.destroy();
    await local?.close();
  });

  it('a backlog polled every minute for 5 minutes yields 1 message per result; the next window 1 more', async () => {
    // Act: five polls inside one window, then one just after it.
    const summaries = [];
    for (let minute = 0; minute < 5; minute++) summaries.push(await pollAt('b', T0 + minute * 60_000, true));
    const inWindow = await drainCounts();
    summaries.push(await pollAt('b', T0 + (WINDOW_SECONDS + 1) * 1000, true));
    const nextWindow = await drainCounts();
    // The same backlog without markers, for comparison.
    for (let minute = 0; minute < 5; minute++) await pollAt('n', T0 + minute * 60_000, false);
    const unmarked = await drainCounts();

    // Assess
    const perResult = (counts: Map<string, number>) => [...new Set(counts.values())];
    process.stderr.write(
      `poll markers: ${BACKLOG} pending results polled 5× in one ${WINDOW_SECONDS} s window → ` +
        `${[...inWindow.values()].reduce((a, b) => a + b, 0)} messages (per result ${perResult(inWindow)}); ` +
        `without markers ${[...unmarked.values()].reduce((a, b) => a + b, 0)} (per result ${perResult(unmarked)})\n`,
    );
    expect(inWindow.size).toBe(BACKLOG);
    expect(perResult(inWindow)).toEqual([1]);
    expect(nextWindow.size).toBe(BACKLOG);
    expect(perResult(nextWindow)).toEqual([1]);
    expect(perResult(unmarked)).toEqual([5]);
    expect(summaries.map((s) => [s.enqueued, s.alreadyEnqueued])).toEqual([
      [BACKLOG, 0],
      [0, BACKLOG],
      [0, BACKLOG],
      [0, BACKLOG],
      [0, BACKLOG],
      [BACKLOG, 0],
    ]);
  });

  it('two polls at once (an overlapping run) still enqueue each result once', async () => {
    // Act
    await Promise.all([pollAt('c', T0, true), pollAt('c', T0 + 1, true)]);
    const counts = await drainCounts();

    // Assess
    expect(counts.size).toBe(BACKLOG);
    expect([...new Set(counts.values())]).toEqual([1]);
  });

  it('a send that fails gives the markers back: the next poll enqueues every result', async () => {
    // Prepare
    const missingQueue = `${resources.queueUrl}-missing`;

    // Act
    const failed = pollAt('d', T0, true, missingQueue);
    await expect(failed).rejects.toThrow();
    const retry = await pollAt('d', T0 + 60_000, true);
    const counts = await drainCounts();

    // Assess
    expect(retry).toMatchObject({ enqueued: BACKLOG, alreadyEnqueued: 0 });
    expect([...new Set(counts.values())]).toEqual([1]);
    expect(counts.size).toBe(BACKLOG);
  });

  it('a record announced again with a later completed inside the window is enqueued again, once', async () => {
    // Act: the first announcement, its repeat, then the service's changed verdict (a later completed)
    // twice, all inside one window.
    await pollAt('e', T0, true);
    await pollAt('e', T0 + 60_000, true);
    const first = await drainCounts();
    const changed = await pollAt('e', T0 + 120_000, true, resources.queueUrl, T0 + 90_000);
    const repeat = await pollAt('e', T0 + 180_000, true, resources.queueUrl, T0 + 90_000);
    const second = await drainCounts();

    // Assess
    expect([...new Set(first.values())]).toEqual([1]);
    expect(changed).toMatchObject({ enqueued: BACKLOG, alreadyEnqueued: 0 });
    expect(repeat).toMatchObject({ enqueued: 0, alreadyEnqueued: BACKLOG });
    expect(second.size).toBe(BACKLOG);
    expect([...new Set(second.values())]).toEqual([1]);
  });
});
