/**
 * The queue forgets too (docs/erasure.md, "How it runs"), on the local stack: a result the service still
 * lists, with a poll message in the results queue and a copy in the DLQ, is erased with
 * `idv results erase --local`. Its messages are gone from both queues and from the queue journal (no
 * line holds its customerReference or userId), a restart brings none back, and the poll stops enqueuing
 * it: the one poll message left after the erasure retires the service's polling record without storing
 * anything, and the next poll enqueues nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_JOURNAL } from '../../local/queue-journal';
import { IdvClient } from '../../shared/client';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { processQueueRecord } from '../../shared/pipeline/fetch-result';
import { pollAndEnqueue } from '../../shared/pipeline/poll';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { runIdvInProcess } from '../support/cli';
import { clientConfig } from '../support/local-aws';
import { startLocalStore } from '../support/local-store';
import { memoryLogger } from '../support/pipeline-fakes';

const credentials = { clientId: 'queue-erase-client', clientSecret: 'queue-erase-secret' };
const REFERENCE = 'ref-Plantedqueue-4471';
const USER = 'user-Plantedqueue-8812';

/** Opens the local stack of `dataDir` with its queues restored from the journal, as `npm start` does. */
async function openRun(dataDir: string) {
  const local = await startLocalStore('idv-local', { dataDir });
  local.aws.restoreQueues();
  const sqs = new SQSClient(clientConfig(local.aws, 'sqs'));
  return {
    local,
    sqs,
    /** Every message body of a queue (received hidden; the run is closed afterwards). */
    async bodies(url: string): Promise<string[]> {
      const found: string[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 60,
          }),
        );
        if (Messages.length === 0) return found;
        found.push(...Messages.map((m) => m.Body!));
      }
    },
    async close() {
      sqs.destroy();
      await local.close();
    },
  };
}

describe('idv results erase --local: the queues, the DLQ and the poll', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-erase-queues-'));
  let service: RunningSimulator;
  let client: IdvClient;
  let resultId: string;
  let otherId: string;

  beforeAll(async () => {
    service = await startSimulator({ ...credentials, seed: 23, users: [USER, 'user-other-1'] });
    client = new IdvClient({ baseUrl: service.url, environment: 'staging', credentials });
    for (const customerReference of [REFERENCE, 'ref-other-1']) {
      const link = await client.createSecureLink(
        {
          product: 'IDV_STANDARD',
          disableCommunication: true,
          customerReference,
          userId: customerReference === REFERENCE ? USER : 'user-other-1',
        },
        { mockTest: 'APPROVED' },
      );
      const [id] = service.control.resultIdsOf(link.transactionId);
      if (customerReference === REFERENCE) resultId = id!;
      else otherId = id!;
    }
    // The poll puts both results' messages into the queue; a copy of the erased one's sits in the DLQ.
    const run = await openRun(dataDir);
    try {
      const { sqs, local } = run;
      await pollAndEnqueue({
        source: client,
        sqs,
        queueUrl: local.resources.queueUrl,
        logger: memoryLogger().logger,
      });
      const [poll] = (await run.bodies(local.resources.queueUrl)).filter((body) => body.includes(resultId));
      await sqs.send(new SendMessageCommand({ QueueUrl: local.resources.dlqUrl, MessageBody: poll! }));
    } finally {
      await run.close();
    }
    const journal = readFileSync(join(dataDir, QUEUE_JOURNAL), 'utf8');
    expect(journal).toContain(REFERENCE);
    expect(journal).toContain(USER);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('removes its messages from the queue, the DLQ and the journal; a restart brings none back', async () => {
    // Act
    const erased = await runIdvInProcess([
      'results',
      'erase',
      '--result-id',
      resultId,
      '--local',
      '--data-dir',
      dataDir,
      '--principal',
      'queue-test',
    ]);

    // Assess: the answer, the journal's bytes, then what a restart puts back into the queues.
    expect(erased.code, erased.err).toBe(0);
    const answer = JSON.parse(erased.out);
    expect(answer.erased[0]).toMatchObject({ erasedResultId: resultId, state: 'ERASED' });
    // The queue journal's lines are counted with the other journals', inside the one operation.
    expect(answer.erased[0].counts.journalLines).toBeGreaterThanOrEqual(2);
    expect(answer.erased[0].counts.queueMessages).toEqual(expect.any(Number));
    expect(answer.erased[0].left).toBeUndefined();
    const journal = readFileSync(join(dataDir, QUEUE_JOURNAL), 'utf8');
    expect(journal).not.toContain(REFERENCE);
    expect(journal).not.toContain(USER);
    expect(journal).toContain(otherId);
    const run = await openRun(dataDir);
    try {
      const queued = await run.bodies(run.local.resources.queueUrl);
      const dead = await run.bodies(run.local.resources.dlqUrl);
      expect([...queued, ...dead].filter((body) => body.includes(resultId))).toEqual([]);
      expect(queued.filter((body) => body.includes(otherId))).toHaveLength(1);
    } finally {
      await run.close();
    }
  }, 120_000);

  it('the poll stops enqueuing it: its last poll message retires the polling record, storing nothing', async () => {
    // Prepare: the service still lists the erased result.
    const run = await openRun(dataDir);
    const events = new EventBridgeClient(clientConfig(run.local.aws, 'eventBridge'));
    const deps = {
      source: client,
      store: run.local.store,
      publications: run.local.publications,
      publisher: new EventBridgePublisher(events, run.local.resources.eventBusName),
      environment: 'staging' as const,
      retentionDays: 30,
      logger: memoryLogger().logger,
    };
    const listed = async () => (await client.poll()).results.map((record) => record.resultId);
    try {
      expect(await listed()).toContain(resultId);
      const queueUrl = run.local.resources.queueUrl;
      const logger = memoryLogger().logger;

      // Act: a poll, the fetch of what it enqueued for the erased result, then another poll.
      await pollAndEnqueue({ source: client, sqs: run.sqs, queueUrl, logger });
      const first = (await run.bodies(queueUrl)).filter((body) => body.includes(resultId));
      const outcomes = [];
      for (const body of first) {
        outcomes.push(await processQueueRecord(body, deps, { invocationDeadlineMs: Date.now() + 60_000 }));
      }
      await pollAndEnqueue({ source: client, sqs: run.sqs, queueUrl, logger });
      const second = (await run.bodies(queueUrl)).filter((body) => body.includes(resultId));

      // Assess
      expect(outcomes).toEqual(['erased']);
      expect(await listed()).not.toContain(resultId);
      expect(second).toEqual([]);
      expect(await run.local.store.getItem(resultId)).toBeUndefined();
      expect(service.control.stats().resultFetches[resultId]).toBe(1);
    } finally {
      events.destroy();
      await run.close();
    }
  }, 120_000);
});
