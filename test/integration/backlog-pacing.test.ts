/**
 * A backlog behind the service's rate limit (issue 25, point 4): the simulator answers 429 with
 * `Retry-After` above a low rate; two "containers" (each its own client and pace, as two Lambda
 * execution environments) drain the queue through the real batch loop, store and SQS event source. One
 * 429 holds every record of its container, so no record runs out of attempts: every message succeeds on
 * its first delivery, every result is fetched and stored once, and nothing reaches the DLQ.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../local/lambda-context';
import { SqsEventSource } from '../../local/sqs-event-source';
import { IdvClient } from '../../shared/client/client';
import { RequestPacer } from '../../shared/client/pacer';
import { FETCH_BUDGET } from '../../shared/pipeline/fetch-budget';
import type { ResultMessage } from '../../shared/pipeline/messages';
import { queueDepth, sendMessages } from '../../shared/pipeline/queue';
import { processResultsBatch } from '../../shared/pipeline/results-batch';
import { Publications } from '../../shared/store/publication';
import { ResultStore } from '../../shared/store/result-store';
import { NO_TRACER } from '../../shared/tracing';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import {
  clientConfig,
  createPipelineResources,
  type LocalAws,
  type PipelineResources,
  startLocalAws,
} from '../support/local-aws';
import { FakePublisher, memoryLogger } from '../support/pipeline-fakes';

const CREDENTIALS = { clientId: 'pace-client', clientSecret: 'pace-secret-Qw7' };
const RESULTS = 16;
const RATE = 4;

let aws: LocalAws;
let sim: RunningSimulator;
let resources: PipelineResources;
let sqs: SQSClient;
let s3: S3Client;
let dynamo: DynamoDBDocumentClient;

beforeAll(async () => {
  aws = await startLocalAws();
  // A failed record would come back only after 30 s: the test would run out of time instead of passing.
  resources = await createPipelineResources(aws, { prefix: 'idv-pace', visibilityTimeoutSeconds: 30 });
  sim = await startSimulator({ ...CREDENTIALS, seed: 11 });
  sqs = new SQSClient(clientConfig(aws, 'sqs'));
  s3 = new S3Client(clientConfig(aws, 's3'));
  dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
}, 60_000);

afterAll(async () => {
  await sim?.close();
  sqs?.destroy();
  s3?.destroy();
  dynamo?.destroy();
  await aws?.close();
});

/** Seeds `count` pending results, queues them as the poll does, and drains them with two containers. */
async function drain(count: number, pacePerContainer: number | undefined) {
  sim.control.setFaults(undefined);
  const seeded = new Set(sim.control.seed([{ count, kind: 'vog' }]));
  const reader = new IdvClient({ baseUrl: sim.url, environment: 'staging', credentials: CREDENTIALS });
  const { results } = await reader.poll();
  const messages: ResultMessage[] = results
    .filter((r) => seeded.has(r.resultId))
    .map((r) => ({
      resultId: r.resultId,
      source: 'poll',
      ...(r.transactionId && { transactionId: r.transactionId }),
      ...(r.completed && { completed: r.completed }),
    }));
  await sendMessages(sqs, resources.queueUrl, messages);
  const limitedBefore = sim.control.stats().faults.rateLimit;
  // The account's limit: RATE results per second, a burst of RATE (token requests are not limited here).
  sim.control.setFaults({ rateLimitPerSecond: RATE, paths: ['/api/v2/result'] });
  const publisher = new FakePublisher();
  const store = new ResultStore({ s3, dynamo, bucket: resources.bucketName, table: resources.tableName });
  const publications = new Publications(dynamo, resources.tableName);
  const receives: number[] = [];
  const containers = [0, 1].map(() => {
    const client = new IdvClient({
      baseUrl: sim.url,
      environment: 'staging',
      credentials: CREDENTIALS,
      timeoutMs: FETCH_BUDGET.serviceCallTimeoutMs,
      retry: FETCH_BUDGET.retry,
      pacer: new RequestPacer({ ratePerSecond: pacePerContainer }),
    });
    const deps = {
      source: client,
      store,
      publications,
      publisher,
      environment: 'staging' as const,
      retentionDays: 30,
      logger: memoryLogger().logger,
    };
    return new SqsEventSource({
      sqs,
      queueUrl: resources.queueUrl,
      region: aws.region,
      batchSize: 5,
      waitTimeSeconds: 0,
      context: () => lambdaContext('pace-fetch-result', aws.region, 60_000),
      handler: (event, context) =>
        processResultsBatch(event.Records, {
          deps,
          tracer: NO_TRACER,
          metrics: { addMetric: () => undefined } as never,
          remainingMs: () => context.getRemainingTimeInMillis(),
        }),
      onRecord: (record) => receives.push(record.failed ? -record.receiveCount : record.receiveCount),
    });
  });
  const started = Date.now();
  for (const source of containers) source.start();
  // Up to 25 s for every result to be stored; what is stored by then is what the assertions judge.
  await vi
    .waitFor(() => expect(publisher.stored.length).toBe(messages.length), { timeout: 25_000, interval: 50 })
    .catch(() => undefined);
  const seconds = (Date.now() - started) / 1000;
  await Promise.all(containers.map((source) => source.stop()));
  const stats = sim.control.stats();
  return {
    messages,
    publisher,
    receives,
    seconds,
    fetches: messages.map((m) => stats.resultFetches[m.resultId]),
    limited: stats.faults.rateLimit - limitedBefore,
  };
}

describe('a backlog behind the service rate limit', () => {
  it('is drained after a 429 burst with every result stored once and nothing in the DLQ', async () => {
    // Act: no steady pace, only the service's Retry-After, shared by each container's records.
    const run = await drain(RESULTS, undefined);

    // Assess
    expect(run.publisher.stored.map((d) => d.resultId).sort()).toEqual(
      run.messages.map((m) => m.resultId).sort(),
    );
    expect(run.fetches).toEqual(Array(RESULTS).fill(1));
    expect(run.receives).toEqual(Array(RESULTS).fill(1));
    expect(await queueDepth(sqs, resources.dlqUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    expect(await queueDepth(sqs, resources.queueUrl)).toMatchObject({ visible: 0, inFlight: 0 });
    // The burst was refused, and the drain kept to the rate: RATE at once, then RATE per second.
    expect(
      run.limited,
      'no fetch was refused: no burst reached the service, so nothing was tested',
    ).toBeGreaterThan(0);
    expect(run.seconds).toBeGreaterThanOrEqual((RESULTS - RATE) / RATE - 0.5);
  }, 60_000);

  it('with each container paced at its share of the rate, meets (almost) no 429', async () => {
    // Act: two containers at RATE / 2 each, as the infra derives it (docs/deploy.md).
    const run = await drain(RESULTS, RATE / 2);

    // Assess
    expect(run.fetches).toEqual(Array(RESULTS).fill(1));
    expect(run.receives).toEqual(Array(RESULTS).fill(1));
    expect(await queueDepth(sqs, resources.dlqUrl)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
    // Two timing jitters at most; an unpaced client meets one per record in flight every second.
    expect(run.limited).toBeLessThanOrEqual(2);
  }, 60_000);
});
