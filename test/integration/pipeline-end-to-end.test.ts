/**
 * The results pipeline end to end: the real handler modules against the simulator and the local AWS
 * emulators (dynalite, s3rver, fauxqs, local Secrets Manager and EventBridge), over real connections.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookEndpoint, type WebhookEndpoint } from '../../local/api-gateway';
import { lambdaContext } from '../../local/lambda-context';
import { SqsEventSource } from '../../local/sqs-event-source';
import {
  createDynamoDocumentClient,
  createEventBridgeClient,
  createS3Client,
  createSecretsClient,
} from '../../shared/aws-clients';
import { IdvClient } from '../../shared/client/client';
import { loadFetchResultConfig } from '../../shared/config';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { processMessage } from '../../shared/pipeline/fetch-result';
import { queueDepth } from '../../shared/pipeline/queue';
import { createServiceClient } from '../../shared/pipeline/service-client';
import { getResult, withFullDocument } from '../../shared/queries/results';
import { isPublicationKey, Publications } from '../../shared/store/publication';
import { ResultStore } from '../../shared/store/result-store';
import { SecretsTokenProvider } from '../../shared/token-cache/secrets-token-provider';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { captureOutput, setHandlerEnv, webhookSecretOf } from '../support/handler-env';
import { clientConfig, type LocalAws, type PipelineResources } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { Crash, eventValidators, memoryLogger, type Step } from '../support/pipeline-fakes';

const CREDENTIALS = { clientId: 'it-client', clientSecret: 'it-client-secret-Zq9' };
const SCOPES = [
  'productapi.poll.read',
  'productapi.result.read',
  'productapi.idverify.write',
  'productapi.secureidlink.write',
];

type ApiHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

let local: LocalStore;
let aws: LocalAws;
let sim: RunningSimulator;
let resources: PipelineResources;
let endpoint: WebhookEndpoint;
let webhookSecret: string;
let webhooksOn = true;
let webhookHandler: ApiHandler;
let pollHandler: () => Promise<unknown>;
let fetchHandler: SqsHandler;
let source: SqsEventSource;
let sqs: SQSClient;
let s3: S3Client;
let dynamo: DynamoDBDocumentClient;
let secrets: SecretsManagerClient;
let upstream: IdvClient;
const captured: string[] = [];

/** Creates a transaction whose mocked result is ready at once; returns its transactionId. */
async function newTransaction(
  mockTest: 'APPROVED' | 'DISAPPROVED' | 'APPROVED_RP' = 'APPROVED',
): Promise<string> {
  const { transactionId } = await upstream.createSecureLink(
    { product: 'RTW_PREMIUM', disableCommunication: true, customerReference: `it-${Math.random()}` },
    { mockTest },
  );
  await sim.control.webhooksIdle();
  return transactionId;
}

function resultIdOf(transactionId: string): string {
  const [id] = sim.control.resultIdsOf(transactionId);
  if (!id) throw new Error(`no result for ${transactionId}`);
  return id;
}

/** Runs the fetch-result handler like the event source mapping until the queue is empty. */
async function drain(timeoutMs = 30_000): Promise<void> {
  await vi.waitFor(
    async () => {
      const outcome = await source.pollOnce();
      const depth = await queueDepth(sqs, resources.queueUrl);
      expect({ received: outcome.received, ...depth }, 'the queue drains').toEqual({
        received: 0,
        visible: 0,
        inFlight: 0,
        delayed: 0,
      });
    },
    { timeout: timeoutMs, interval: 300 },
  );
}

/** The item as `idv results get` shows it: with `eventPublishedAt` and every object reference. */
async function item(resultId: string) {
  const deps = { dynamo, s3, tableName: resources.tableName };
  const found = await getResult(deps, resultId);
  return found && withFullDocument(deps, found);
}

async function objectKeys(resultId: string): Promise<string[]> {
  const listed = await s3.send(
    new ListObjectsV2Command({ Bucket: resources.bucketName, Prefix: `results/${resultId}/` }),
  );
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

function eventsFor(resultId: string, detailType: string = DETAIL_TYPES.resultStored) {
  return aws.events
    .entries()
    .filter((e) => e['detail-type'] === detailType && e.detail.resultId === resultId);
}

async function sendToQueue(body: object): Promise<void> {
  await sqs.send(new SendMessageCommand({ QueueUrl: resources.queueUrl, MessageBody: JSON.stringify(body) }));
}

describe('results pipeline (simulator + local AWS)', () => {
  beforeAll(async () => {
    captureOutput(captured);
    local = await startLocalStore('idv-it', {
      resources: { credentials: CREDENTIALS, visibilityTimeoutSeconds: 1, maxReceiveCount: 5 },
    });
    ({ aws, resources, s3, dynamo } = local);
    secrets = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
    webhookSecret = await webhookSecretOf(local);
    // The webhook endpoint exists before the simulator, whose configuration needs its address.
    endpoint = await startWebhookEndpoint({
      handler: async (event) => (webhooksOn ? webhookHandler(event) : { statusCode: 202, body: '{}' }),
      context: () => lambdaContext('webhook', aws.region),
    });
    sim = await startSimulator({
      ...CREDENTIALS,
      seed: 42,
      resultWebhookUrl: `${endpoint.url}/webhooks/${webhookSecret}/result`,
      uploadWebhookUrl: `${endpoint.url}/webhooks/${webhookSecret}/upload`,
    });
    setHandlerEnv(local, {
      serviceBaseUrl: sim.url,
      environment: 'staging',
      retentionDays: 30,
      scopes: SCOPES,
    });
    webhookHandler = (await import('../../functions/webhook/handler')).handler;
    pollHandler = (await import('../../functions/poll/handler')).handler;
    fetchHandler = (await import('../../functions/fetch-result/handler')).handler;

    sqs = new SQSClient(clientConfig(aws, 'sqs'));
    source = new SqsEventSource({
      sqs,
      queueUrl: resources.queueUrl,
      handler: (event) => fetchHandler(event),
      context: () => lambdaContext('fetch-result', aws.region),
      region: aws.region,
      waitTimeSeconds: 0,
    });
    upstream = new IdvClient({
      baseUrl: sim.url,
      environment: 'staging',
      credentials: CREDENTIALS,
      scopes: SCOPES,
    });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await endpoint?.close();
    await sim?.close();
    sqs?.destroy();
    secrets?.destroy();
    await local?.close();
  });

  it('webhook path: simulator webhook → API Gateway event → queue → fetch-result → item, objects, event', async () => {
    // Prepare
    const transactionId = await newTransaction('APPROVED');
    const resultId = resultIdOf(transactionId);

    // Act
    await drain();

    // Assess
    const stored = await item(resultId);
    expect(stored).toMatchObject({
      status: 'STORED',
      transactionId,
      source: 'webhook',
      eventPublishedAt: expect.any(String),
    });
    expect(stored!.completedDay).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const events = eventsFor(resultId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ source: EVENT_SOURCE, eventBusName: resources.eventBusName });
    expect(sim.control.stats().resultFetches[resultId]).toBe(1);
  });

  it('decoded objects are byte-identical to what the simulator served (SHA-256)', async () => {
    // Prepare
    const transactionId = await newTransaction('APPROVED_RP');
    const resultId = resultIdOf(transactionId);
    await drain();

    // Act: the result stays retrievable after the fetch (spec §3), so ask the simulator for it again.
    const served = await upstream.getResult(resultId);
    const stored = await item(resultId);

    // Assess
    const entries = [...(served.images ?? []), ...(served.files ?? [])];
    expect(entries.length).toBeGreaterThan(0);
    const refs = stored!.objects as { key: string; sha256: string; bytes: number }[];
    expect(refs).toHaveLength(entries.length);
    for (const [i, entry] of entries.entries()) {
      const bytes = Buffer.from(entry.data, 'base64');
      const expected = createHash('sha256').update(bytes).digest('hex');
      const object = await s3.send(new GetObjectCommand({ Bucket: resources.bucketName, Key: refs[i]!.key }));
      const body = Buffer.from(await object.Body!.transformToByteArray());
      expect(createHash('sha256').update(body).digest('hex')).toBe(expected);
      expect(refs[i]).toMatchObject({ sha256: expected, bytes: bytes.length });
      expect(object.Metadata?.sha256).toBe(expected);
    }
    expect(await objectKeys(resultId)).toContain(`results/${resultId}/result.json`);
  });

  it('poll path: the scheduled poll finds results whose webhook was lost', async () => {
    // Prepare
    webhooksOn = false;
    const transactionIds = [await newTransaction('DISAPPROVED'), await newTransaction('APPROVED')];
    webhooksOn = true;

    // Act
    await pollHandler();
    await drain();

    // Assess
    for (const transactionId of transactionIds) {
      const resultId = resultIdOf(transactionId);
      expect(await item(resultId)).toMatchObject({ status: 'STORED', source: 'poll', completedKnown: true });
      expect(eventsFor(resultId)).toHaveLength(1);
    }
    expect((await upstream.poll()).results).toEqual([]);
  });

  it('webhook + poll + redelivery of one result → one item, one set of objects, fetched once', async () => {
    // Prepare
    const transactionId = await newTransaction('APPROVED');
    const resultId = resultIdOf(transactionId);

    // Act: both announcements are queued before anything is processed, then a redrive repeats it.
    await pollHandler();
    await drain();
    const keysAfterFirst = await objectKeys(resultId);
    await sendToQueue({ resultId, source: 'redrive' });
    await drain();

    // Assess
    const { Items } = await dynamo.send(new ScanCommand({ TableName: resources.tableName }));
    expect(Items!.filter((i) => i.resultId === resultId)).toHaveLength(1);
    expect(await objectKeys(resultId)).toEqual(keysAfterFirst);
    // Exact: the two announcements are processed one after the other, the second finds it announced.
    expect(eventsFor(resultId)).toHaveLength(1);
    expect(sim.control.stats().resultFetches[resultId]).toBe(1);
  });

  it.each<Step>(['fetch', 'writeObjects', 'putItem', 'publish', 'mark'])(
    'a crash after %s is completed by the redelivery with nothing lost or duplicated',
    async (step) => {
      // Prepare
      webhooksOn = false;
      const resultId = resultIdOf(await newTransaction('APPROVED'));
      webhooksOn = true;
      const config = loadFetchResultConfig();
      const { logger } = memoryLogger();
      const crash = new Crash();
      const dynamo = createDynamoDocumentClient();
      const realStore = new ResultStore({
        s3: createS3Client(config),
        dynamo,
        bucket: config.dataBucketName,
        table: config.resultsTableName,
      });
      const realPublications = new Publications(dynamo, config.resultsTableName);
      const realPublisher = new EventBridgePublisher(createEventBridgeClient(), config.eventBusName);
      const { client } = createServiceClient(config, createSecretsClient(), logger);
      // Each step runs for real, then the crash hits before the next one starts.
      const deps = {
        source: {
          getResultStream: async (id: string) => {
            const b = await client.getResultStream(id);
            crash.at('fetch');
            return b;
          },
        },
        store: {
          bucket: realStore.bucket,
          table: realStore.table,
          readState: (id: string, options?: { erasure?: boolean }) => realStore.readState(id, options),
          storeResult: async (id: string, body: AsyncIterable<Uint8Array>) => {
            const s = await realStore.storeResult(id, body);
            crash.at('writeObjects');
            return s;
          },
          isErased: (id: string) => realStore.isErased(id),
          discardStored: (stored: Parameters<ResultStore['discardStored']>[0]) =>
            realStore.discardStored(stored),
          putStoredItem: async (i: Parameters<ResultStore['putStoredItem']>[0]) => {
            const ok = await realStore.putStoredItem(i);
            crash.at('putItem');
            return ok;
          },
          putUnavailableItem: (i: Parameters<ResultStore['putUnavailableItem']>[0]) =>
            realStore.putUnavailableItem(i),
          putVersionItem: (i: Parameters<ResultStore['putVersionItem']>[0]) => realStore.putVersionItem(i),
          latestOfTransaction: (tx: string, id: string) => realStore.latestOfTransaction(tx, id),
        },
        publications: {
          claim: (...a: Parameters<Publications['claim']>) => realPublications.claim(...a),
          release: (id: string, token: string) => realPublications.release(id, token),
          mark: async (...a: Parameters<Publications['mark']>) => {
            await realPublications.mark(...a);
            crash.at('mark');
          },
        },
        publisher: {
          publishResultStored: async (d: Parameters<EventBridgePublisher['publishResultStored']>[0]) => {
            await realPublisher.publishResultStored(d);
            crash.at('publish');
          },
          publishResultUnavailable: (d: Parameters<EventBridgePublisher['publishResultUnavailable']>[0]) =>
            realPublisher.publishResultUnavailable(d),
          publishDocumentsUploaded: (d: Parameters<EventBridgePublisher['publishDocumentsUploaded']>[0]) =>
            realPublisher.publishDocumentsUploaded(d),
          publishResultChanged: (d: Parameters<EventBridgePublisher['publishResultChanged']>[0]) =>
            realPublisher.publishResultChanged(d),
        },
        environment: config.environment,
        retentionDays: config.retentionDays,
        logger,
      };
      crash.armed = step;

      // Act
      await expect(processMessage({ resultId, source: 'poll' }, deps)).rejects.toThrow(
        `injected crash at ${step}`,
      );
      await sendToQueue({ resultId, source: 'redrive' });
      await drain();

      // Assess
      const stored = await item(resultId);
      expect(stored).toMatchObject({ status: 'STORED', eventPublishedAt: expect.any(String) });
      const keys = await objectKeys(resultId);
      expect(keys).toHaveLength((stored!.objects as unknown[]).length + 1);
      // Exact: only a crash between publish and mark publishes twice (the redelivery cannot know).
      expect(eventsFor(resultId)).toHaveLength(step === 'publish' ? 2 : 1);
    },
  );

  it('a 404 for an announced resultId becomes an UNAVAILABLE item and event, once', async () => {
    // Act
    await sendToQueue({ resultId: 'no-such-result-404', source: 'poll', transactionId: 'tx-unknown' });
    await drain();
    await sendToQueue({ resultId: 'no-such-result-404', source: 'redrive' });
    await drain();

    // Assess
    expect(await item('no-such-result-404')).toMatchObject({
      status: 'UNAVAILABLE',
      reason: 'NOT_FOUND',
      transactionId: 'tx-unknown',
    });
    expect(eventsFor('no-such-result-404', DETAIL_TYPES.resultUnavailable)).toHaveLength(1);
    const depth = await queueDepth(sqs, resources.dlqUrl);
    expect(depth.visible).toBe(0);
  });

  it('a 401 mid-run (tokens revoked) costs exactly one token refresh for the whole batch', async () => {
    // Prepare
    webhooksOn = false;
    const ids = [resultIdOf(await newTransaction()), resultIdOf(await newTransaction())];
    webhooksOn = true;
    sim.control.expireTokens();
    const before = sim.control.stats().tokensIssued;

    // Act
    for (const resultId of ids) await sendToQueue({ resultId, source: 'poll' });
    await drain();

    // Assess
    expect(sim.control.stats().tokensIssued - before).toBe(1);
    for (const resultId of ids) expect(await item(resultId)).toMatchObject({ status: 'STORED' });
  });

  it('an expired cached token is refreshed once and the new one written to the shared cache secret', async () => {
    // Prepare: a new container two hours later sees the cached token as expired.
    const { client } = createServiceClient(
      loadFetchResultConfig(),
      createSecretsClient(),
      memoryLogger().logger,
    );
    await client.poll();
    const later = Date.now() + 2 * 3_600_000;
    const before = sim.control.stats().tokensIssued;
    const provider = new SecretsTokenProvider({
      secrets: createSecretsClient(),
      credentialsSecretId: resources.credentialsSecretId,
      tokenCacheSecretId: resources.tokenCacheSecretId,
      scopes: SCOPES,
      now: () => later,
      fetchToken: async (c, scopes) => {
        const { fetchAccessToken } = await import('../../shared/client/oauth');
        return fetchAccessToken({ baseUrl: sim.url, ...c, scopes, now: () => later });
      },
    });

    // Act
    const first = await provider.getToken();
    const second = await provider.getToken();

    // Assess
    expect(second).toBe(first);
    expect(sim.control.stats().tokensIssued - before).toBe(1);
    const cached = JSON.parse(
      (await secrets.send(new GetSecretValueCommand({ SecretId: resources.tokenCacheSecretId })))
        .SecretString!,
    );
    expect(cached).toMatchObject({ accessToken: first.accessToken, expiresAt: first.expiresAt });
  });

  it('messages that can never succeed fail alone and end in the DLQ; their batch-mates are stored', async () => {
    // Prepare
    webhooksOn = false;
    const resultId = resultIdOf(await newTransaction('APPROVED'));
    webhooksOn = true;
    const record = (messageId: string, body: string) => ({
      messageId,
      receiptHandle: messageId,
      body,
      attributes: {} as never,
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:idv-it-results',
      awsRegion: aws.region,
    });
    const dlqBefore = (await queueDepth(sqs, resources.dlqUrl)).visible;

    // Act: one batch as Lambda hands it over, then the same poison message through the real queue.
    const response = await fetchHandler({
      Records: [
        record('m-1', 'not json'),
        record('m-2', JSON.stringify({ resultId, source: 'poll' })),
        record('m-3', JSON.stringify({ resultId: 'a/b', source: 'poll' })),
      ],
    });
    await sendToQueue({ resultId: '../escape', source: 'redrive' });
    // A poison message goes to the DLQ after its receive count: the slowest drain of the file.
    await drain(50_000);

    // Assess
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m-1', 'm-3']);
    expect(await item(resultId)).toMatchObject({ status: 'STORED', eventPublishedAt: expect.any(String) });
    expect(eventsFor(resultId)).toHaveLength(1);
    expect((await queueDepth(sqs, resources.dlqUrl)).visible).toBe(dlqBefore + 1);
  });

  it('webhook answers: wrong secret → 404, malformed body → 400, nothing enqueued', async () => {
    // Act
    const wrong = await fetch(`${endpoint.url}/webhooks/${'x'.repeat(40)}/result`, {
      method: 'POST',
      body: '{"resultId":"abc"}',
    });
    const bad = await fetch(`${endpoint.url}/webhooks/${webhookSecret}/result`, {
      method: 'POST',
      body: '{"resultId":"a/b"}',
    });
    const depth = await queueDepth(sqs, resources.queueUrl);

    // Assess
    expect(wrong.status).toBe(404);
    expect(await wrong.json()).toEqual({ message: 'Not Found' });
    expect(bad.status).toBe(400);
    expect(depth.visible + depth.inFlight).toBe(0);
  });

  it('every emitted event is valid against its shipped schema and carries no personal data', async () => {
    // Prepare: events of every kind made here, so the test holds when run alone (`-t`).
    for (const outcome of ['APPROVED', 'DISAPPROVED', 'APPROVED_RP'] as const) await newTransaction(outcome);
    await sendToQueue({ resultId: 'no-such-result-schema', source: 'webhook' });
    await drain();
    const validators = eventValidators();
    const events = aws.events.entries();

    // Assess
    expect(events.length).toBeGreaterThan(5);
    for (const event of events) {
      const validate = validators[event['detail-type'] as keyof typeof validators];
      expect(validate, event['detail-type']).toBeDefined();
      expect(validate(event.detail), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it('captured logs and events hold none of the personal data, images, tokens or secrets', async () => {
    // Prepare: results of its own (the test holds when run alone), then the personal data the simulator
    // put into every stored result.
    for (const outcome of ['APPROVED', 'DISAPPROVED'] as const) await newTransaction(outcome);
    await drain();
    const { Items } = await dynamo.send(new ScanCommand({ TableName: resources.tableName }));
    const forbidden = new Set<string>([CREDENTIALS.clientSecret, webhookSecret]);
    const cached = JSON.parse(
      (await secrets.send(new GetSecretValueCommand({ SecretId: resources.tokenCacheSecretId })))
        .SecretString!,
    );
    forbidden.add(cached.accessToken);
    for (const raw of Items ?? []) {
      const stored = raw;
      if (stored.status !== 'STORED' || isPublicationKey(stored.resultId)) continue;
      const served = await upstream.getResult(stored.resultId);
      collectPersonal(served, forbidden);
      for (const entry of [...(served.images ?? []), ...(served.files ?? [])])
        forbidden.add(entry.data.slice(0, 64));
    }
    expect(forbidden.size).toBeGreaterThan(10);

    // Act
    const logs = captured.join('\n');
    const events = JSON.stringify(aws.events.entries());

    // Assess
    expect(logs).toContain('result stored');
    for (const value of forbidden) {
      expect(logs.includes(value), 'a log line holds personal data or a secret').toBe(false);
      expect(events.includes(value), 'an event holds personal data or a secret').toBe(false);
    }
  });
});

/** String leaves of every `data`/`inputData` object of a result (names, numbers, dates of birth, …). */
function collectPersonal(value: unknown, into: Set<string>, inData = false): void {
  if (typeof value === 'string') {
    if (inData && value.length >= 4) into.add(value);
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'images' || key === 'files') continue;
    // Categories, not personal data: the Stored event carries them for analytics (docs/analytics.md).
    if (key === 'documentType' || key === 'issuingStateOrOrganization') continue;
    collectPersonal(child, into, inData || key === 'data' || key === 'inputData');
  }
}
