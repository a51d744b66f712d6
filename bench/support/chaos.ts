/**
 * The chaos suite (docs/reliability.md "Chaos suite"): the real handler modules, configured by
 * environment like the local run, against the local AWS emulators and a simulator that injects faults.
 * Results reach the queue by webhook, by the poll (on a schedule plus a backlog of extra polls) and by
 * redrive; two event sources consume the queue at once; fault proxies in front of DynamoDB, S3 and
 * EventBridge crash fetch-result between its steps. Used by `npm run chaos` and by the small version in
 * `npm test` (test/integration/chaos.test.ts).
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult, ScheduledEvent } from 'aws-lambda';
import { type ApiGatewayHandler, startWebhookEndpoint } from '../../local/api-gateway';
import { clientConfig } from '../../local/client-config';
import { lambdaContext } from '../../local/lambda-context';
import { startLocalAws } from '../../local/local-aws';
import { createPipelineResources } from '../../local/pipeline-resources';
import { scheduledEvent } from '../../local/scheduler';
import { SqsEventSource, type SqsHandler } from '../../local/sqs-event-source';
import { IdvClient } from '../../shared/client';
import { ENV } from '../../shared/config';
import { DETAIL_TYPES } from '../../shared/events/names';
import { queueDepth } from '../../shared/pipeline/queue';
import type { ResultItem } from '../../shared/store/item';
import {
  isPublicationKey,
  PUBLICATION_KEY_SUFFIX,
  type PublicationRecord,
  publishedAtOf,
} from '../../shared/store/publication';
import type { FaultOptions } from '../../simulator/faults';
import { startSimulator } from '../../simulator/server';
import { type AwsFaultProxy, type ProxyVerdict, startAwsFaultProxy } from './aws-fault-proxy';
import { benchEnv } from './bench-env';
import { compareBytes } from './chaos-bytes';
import {
  CHAOS_RETENTION_MS,
  type ErasureContext,
  erasedViolations,
  eraseThenRedrive,
  failThenGone,
  sendRedrive,
  storedEvents,
  unaccountedIds,
} from './chaos-redrive';

/** Options of one chaos run. */
export interface ChaosOptions {
  /** Results the service completes (each announced by webhook and poll). */
  results: number;
  /** resultIds the service does not know, announced by webhook (→ UNAVAILABLE). */
  unknown: number;
  /** Results whose fetches fail until the service deletes them, then redriven (→ UNAVAILABLE). @default 2 */
  gone?: number;
  /** Stored results erased on request, then redriven (→ stay erased). @default 2 */
  erased?: number;
  seed: number;
  /** Gives up (and reports what is missing) after this long. */
  timeoutMs: number;
  /** Progress lines (stderr). @default none */
  progress?: (line: string) => void;
}

/** What a run measured. */
export interface ChaosFigures {
  results: number;
  unavailable: number;
  durationMs: number;
  serviceFaults: Record<string, number>;
  crashes: Record<string, number>;
  getsPerResult: { total: number; max: number; mean: number };
  tokenRequests: number;
  eventsPerResult: { max: number; mean: number; moreThanOne: number };
  messagesPerResult: { total: number; max: number; mean: number };
  polls: number;
  redrives: number;
  dlq: number;
  /** Results failed, deleted by the service, then redriven; results erased, then redriven. */
  gone: number;
  erased: number;
  /** Enqueued resultIds that ended nowhere (`idv results reconcile`'s check); empty when none. */
  unaccounted: string[];
  /** Every broken promise, one line each; empty when the run kept them all. */
  violations: string[];
}

const CREDENTIALS = { clientId: 'chaos-client', clientSecret: 'chaos-secret-Qp7' };
const SCOPES = ['productapi.poll.read', 'productapi.result.read', 'productapi.secureidlink.write'];
/** Calls failed per crash: more than the SDK's three attempts, so the handler sees the failure. */
const FAILS_PER_CRASH = 4;
/**
 * Poll schedule. Every poll enqueues every pending record again (issue 14 item 6), so a short interval
 * multiplies messages; 5 s keeps a 1,000-result run within minutes on two cores.
 */
const POLL_INTERVAL_MS = 5000;
/** The steps of fetch-result as the AWS boundary sees them, each crashed before and after it happened. */
const CRASH_POINTS = [
  'BatchGetItem:before',
  'S3:before',
  'S3:after',
  'PutItem:before',
  'PutItem:after',
  'PutEvents:before',
  'PutEvents:after',
  'UpdateItem:before',
  'UpdateItem:after',
] as const;

/** The service's own faults on what the pipeline calls (transactions are created without faults). */
const SERVICE_FAULTS: FaultOptions = {
  serverErrorRate: 0.05,
  rateLimitRate: 0.04,
  retryAfterSeconds: 1,
  slowRate: 0.03,
  slowMs: 1500,
  dropRate: 0.03,
  truncateRate: 0.04,
  paths: ['/api/v2/result', '/api/v2/poll', '/api/v2/oauth'],
};

/** Runs the whole chaos scenario once (one per process: the handler modules read their environment once). */
export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const say = options.progress ?? (() => undefined);
  const started = Date.now();
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const aws = await startLocalAws();
    cleanups.push(() => aws.close());
    const resources = await createPipelineResources(aws, {
      prefix: 'idv-chaos',
      credentials: CREDENTIALS,
      visibilityTimeoutSeconds: 2,
      maxReceiveCount: 25,
    });
    const crashes = crashPlan(options.seed);
    const proxies: Record<string, AwsFaultProxy> = {
      dynamodb: await startAwsFaultProxy(aws.endpoints.dynamodb, crashes.decide),
      s3: await startAwsFaultProxy(aws.endpoints.s3, crashes.decide),
      eventBridge: await startAwsFaultProxy(aws.endpoints.eventBridge, crashes.decide),
      // Counts every SendMessage of the handlers (messages enqueued per result); injects nothing.
      sqs: await startAwsFaultProxy(aws.endpoints.sqs, () => 'forward', { rewriteHost: true }),
    };
    for (const proxy of Object.values(proxies)) cleanups.push(() => proxy.close());

    const secrets = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
    const webhookSecret = (
      await secrets.send(new GetSecretValueCommand({ SecretId: resources.webhookSecretId }))
    ).SecretString!;
    let webhookHandler: ApiGatewayHandler | undefined;
    const endpoint = await startWebhookEndpoint({
      handler: async (event, context): Promise<APIGatewayProxyResult> =>
        webhookHandler ? webhookHandler(event, context) : { statusCode: 503, body: '{}' },
      context: () => lambdaContext('idv-chaos-webhook', aws.region, 10_000),
    });
    cleanups.push(() => endpoint.close());
    const resultWebhookUrl = `${endpoint.url}/webhooks/${webhookSecret}/result`;
    const sim = await startSimulator({
      ...CREDENTIALS,
      seed: options.seed,
      resultWebhookUrl,
      retentionMs: CHAOS_RETENTION_MS,
    });
    cleanups.push(() => sim.close());

    // The handlers' environment, exactly like the local run, but DynamoDB, S3, EventBridge and SQS
    // reached through the proxies.
    Object.assign(process.env, benchEnv(aws, resources, { serviceUrl: sim.url }), {
      AWS_ENDPOINT_URL_DYNAMODB: proxies.dynamodb!.url,
      AWS_ENDPOINT_URL_S3: proxies.s3!.url,
      AWS_ENDPOINT_URL_EVENTBRIDGE: proxies.eventBridge!.url,
      AWS_ENDPOINT_URL_SQS: proxies.sqs!.url,
      POWERTOOLS_LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'SILENT',
      POWERTOOLS_TRACE_ENABLED: 'false',
    });
    // The SDK sends to the host of the queue URL, so the handlers get the queue's URL on the proxy.
    process.env[ENV.resultsQueueUrl] = onHost(resources.queueUrl, proxies.sqs!.url);
    const handlers = await loadHandlers();
    webhookHandler = handlers.webhook;

    // Two consumers of the same queue, like two concurrent Lambda pollers.
    const sqs = new SQSClient(clientConfig(aws, 'sqs'));
    cleanups.push(async () => sqs.destroy());
    const sources = [1, 2].map(
      (n) =>
        new SqsEventSource({
          sqs,
          queueUrl: resources.queueUrl,
          handler: handlers.fetchResult,
          context: () => lambdaContext(`idv-chaos-fetch-result-${n}`, aws.region, 60_000),
          region: aws.region,
          waitTimeSeconds: 1,
        }),
    );
    for (const source of sources) {
      source.start();
      cleanups.push(() => source.stop());
    }
    let polls = 0;
    const poll = async (): Promise<void> => {
      polls++;
      await handlers
        .poll(
          scheduledEvent('idv-chaos-poll', aws.region),
          lambdaContext('idv-chaos-poll', aws.region, 60_000),
        )
        .catch(() => undefined);
    };
    // The 60 s schedule of AWS, scaled down with the rest of the run.
    const schedule = setInterval(() => void poll(), POLL_INTERVAL_MS);
    cleanups.push(async () => clearInterval(schedule));

    // The service's own faults on what the pipeline calls (transactions are created without faults).
    sim.control.setFaults(SERVICE_FAULTS);
    const upstream = new IdvClient({
      baseUrl: sim.url,
      environment: 'staging',
      credentials: CREDENTIALS,
      scopes: SCOPES,
    });
    // First, so that the service's retention passes before any other result exists.
    const gone = await failThenGone({
      sim,
      upstream,
      sqs,
      queueUrl: resources.queueUrl,
      count: options.gone ?? 2,
      seed: options.seed,
      deadline: started + options.timeoutMs,
      say,
    });
    const load = await createLoad(options, {
      upstream,
      sim,
      sqs,
      queueUrl: resources.queueUrl,
      resultWebhookUrl,
      poll,
      say,
    });
    const unknown = [...load.unknown, ...gone];
    const done = { aws, sqs, queueUrl: resources.queueUrl, known: load.known, unknown, say };
    await waitUntilDone(done, started + options.timeoutMs);
    // Stored and announced results erased on request, then redriven: they must stay erased.
    const erasure: ErasureContext = {
      dynamo: DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb'))),
      s3: new S3Client(clientConfig(aws, 's3')),
      sqs,
      queueUrl: resources.queueUrl,
      tableName: resources.tableName,
      bucketName: resources.bucketName,
      markersTableName: resources.pollMarkersTableName,
    };
    cleanups.push(async () => {
      erasure.dynamo.destroy();
      erasure.s3.destroy();
    });
    const erased = load.known.filter((_, i) => i % 5 === 1).slice(0, options.erased ?? 2);
    const eventsBefore = storedEvents(aws.events.entries());
    await eraseThenRedrive(erasure, erased);
    await waitUntilDone(done, started + options.timeoutMs);
    clearInterval(schedule);
    await Promise.all(sources.map((s) => s.stop()));
    await sim.control.webhooksIdle();

    const stats = sim.control.stats();
    sim.control.setFaults(undefined);
    const known = load.known.filter((id) => !erased.includes(id));
    const figures = await measure({
      aws,
      resources,
      sqs,
      upstream,
      known,
      unknown,
      stats,
      proxies,
      polls,
      redrives: load.redrives,
    });
    figures.violations.push(
      ...(await erasedViolations(erasure, erased, eventsBefore, storedEvents(aws.events.entries()))),
    );
    figures.unaccounted = await unaccountedIds({
      ...erasure,
      dlqUrl: resources.dlqUrl,
      sqsProxy: proxies.sqs!,
      alsoEnqueued: [...load.known, ...unknown],
    });
    for (const id of figures.unaccounted) figures.violations.push(`${id}: enqueued, ended nowhere`);
    // `results` counts every result created, the erased ones among them.
    Object.assign(figures, { results: load.known.length, gone: gone.length, erased: erased.length });
    figures.durationMs = Date.now() - started;
    return figures;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/** What the load step needs. */
interface LoadContext {
  upstream: IdvClient;
  sim: Awaited<ReturnType<typeof startSimulator>>;
  sqs: SQSClient;
  queueUrl: string;
  resultWebhookUrl: string;
  poll: () => Promise<void>;
  say: (line: string) => void;
}

/**
 * Creates the results (finished at once by `mock-test`), with a poll backlog, redrives and unknown
 * resultIds announced twice by webhook spread over the run.
 */
async function createLoad(
  options: ChaosOptions,
  { upstream, sim, sqs, queueUrl, resultWebhookUrl, poll, say }: LoadContext,
): Promise<{ known: string[]; unknown: string[]; redrives: number }> {
  const known: string[] = [];
  const unknown = Array.from({ length: options.unknown }, (_, i) => `chaos-unknown-${options.seed}-${i}`);
  let redrives = 0;
  for (let i = 0; i < options.results; i++) {
    const { transactionId } = await upstream.createSecureLink(
      { product: 'IDV_STANDARD', disableCommunication: true },
      { mockTest: i % 3 === 2 ? 'DISAPPROVED' : 'APPROVED' },
    );
    const resultId = sim.control.resultIdsOf(transactionId)[0];
    if (resultId) known.push(resultId);
    // A poll backlog: extra polls between creations, beside the schedule.
    if (i % 100 === 0) void poll();
    // Redrive of some results, as `idv dlq redrive` or an operator would.
    if (resultId && i % 7 === 0) {
      redrives++;
      await sendRedrive(sqs, queueUrl, resultId);
    }
    // Unknown resultIds announced by webhook (twice: duplicates), spread over the run.
    const u = unknown[i];
    if (u !== undefined) {
      for (let n = 0; n < 2; n++) await postWebhook(resultWebhookUrl, u);
    }
    if (i % 100 === 99) say(`created ${i + 1}/${options.results}`);
  }
  for (const u of unknown.slice(options.results)) await postWebhook(resultWebhookUrl, u);

  return { known, unknown, redrives };
}

/** Waits until every result is announced and the queue is empty, or the deadline passes. */
async function waitUntilDone(
  ctx: {
    aws: Awaited<ReturnType<typeof startLocalAws>>;
    sqs: SQSClient;
    queueUrl: string;
    known: string[];
    unknown: string[];
    say: (line: string) => void;
  },
  deadline: number,
): Promise<void> {
  const { aws, sqs, queueUrl, known, unknown, say } = ctx;
  const announced = (): number => {
    const ids = new Set(aws.events.entries().map((e) => (e.detail as { resultId?: string }).resultId));
    return [...known, ...unknown].filter((id) => ids.has(id)).length;
  };
  for (;;) {
    const depth = await queueDepth(sqs, queueUrl);
    const done = announced();
    if (done === known.length + unknown.length && depth.visible + depth.inFlight + depth.delayed === 0) break;
    if (Date.now() > deadline) break;
    say(`announced ${done}/${known.length + unknown.length}, queue ${depth.visible}+${depth.inFlight}`);
    await sleep(2000);
  }
}

interface MeasureInput {
  aws: Awaited<ReturnType<typeof startLocalAws>>;
  resources: Awaited<ReturnType<typeof createPipelineResources>>;
  sqs: SQSClient;
  upstream: IdvClient;
  known: string[];
  unknown: string[];
  stats: ReturnType<Awaited<ReturnType<typeof startSimulator>>['control']['stats']>;
  proxies: Record<string, AwsFaultProxy>;
  polls: number;
  redrives: number;
}

/** Reads back every item, object and event and checks them against what the service served. */
async function measure(input: MeasureInput): Promise<ChaosFigures> {
  const { aws, resources, known, unknown, stats, proxies } = input;
  const violations: string[] = [];
  const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
  const s3 = new S3Client(clientConfig(aws, 's3'));
  const items = new Map<string, Record<string, unknown>>();
  const publications = new Map<string, PublicationRecord>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: resources.tableName,
        ProjectionExpression: 'resultId, #s, eventPublishedAt, publishedAt',
        ExpressionAttributeNames: { '#s': 'status' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const id = String(item.resultId);
      if (isPublicationKey(id)) {
        publications.set(id.slice(0, -PUBLICATION_KEY_SUFFIX.length), item as unknown as PublicationRecord);
        continue;
      }
      // Other records beside the item (a kept polling record `#poll`, an erasure record): `#` never occurs in a resultId.
      if (id.includes('#')) continue;
      if (items.has(id)) violations.push(`${id}: more than one item`);
      items.set(id, item);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  // As `ResultStore.getItem` reads it: the mark lives in the result's publication record.
  for (const [id, item] of items) {
    const publishedAt = publishedAtOf(item as unknown as ResultItem, publications.get(id));
    if (publishedAt) item.eventPublishedAt = publishedAt;
  }

  const events = new Map<string, number>();
  for (const event of aws.events.entries()) {
    const id = (event.detail as { resultId?: string }).resultId ?? '';
    const expected = unknown.includes(id) ? DETAIL_TYPES.resultUnavailable : DETAIL_TYPES.resultStored;
    if (event['detail-type'] === expected) events.set(id, (events.get(id) ?? 0) + 1);
  }
  for (const id of known) {
    const item = items.get(id);
    if (item?.status !== 'STORED') violations.push(`${id}: status ${String(item?.status ?? 'missing')}`);
    else if (!item.eventPublishedAt) violations.push(`${id}: no eventPublishedAt`);
    if (!events.get(id)) violations.push(`${id}: no ${DETAIL_TYPES.resultStored} event`);
    const mismatch = await compareBytes(s3, resources.bucketName, input.upstream, id);
    if (mismatch) violations.push(`${id}: ${mismatch}`);
  }
  for (const id of unknown) {
    const item = items.get(id);
    if (item?.status !== 'UNAVAILABLE') violations.push(`${id}: status ${String(item?.status ?? 'missing')}`);
    else if (!item.eventPublishedAt) violations.push(`${id}: no eventPublishedAt`);
    if (!events.get(id)) violations.push(`${id}: no ${DETAIL_TYPES.resultUnavailable} event`);
  }
  for (const id of items.keys()) {
    if (!known.includes(id) && !unknown.includes(id)) violations.push(`${id}: an item nobody announced`);
  }
  const depth = await queueDepth(input.sqs, resources.dlqUrl);
  const dlq = depth.visible + depth.inFlight + depth.delayed;
  if (dlq > 0) violations.push(`${dlq} message(s) in the DLQ`);
  dynamo.destroy();
  s3.destroy();

  const all = [...known, ...unknown];
  const gets = known.map((id) => stats.resultFetches[id] ?? 0);
  const eventCounts = all.map((id) => events.get(id) ?? 0);
  const crashes: Record<string, number> = {};
  for (const name of ['dynamodb', 's3', 'eventBridge']) {
    for (const [kind, n] of Object.entries(proxies[name]!.injected)) crashes[kind] = n;
  }
  return {
    results: known.length,
    unavailable: unknown.length,
    durationMs: 0,
    serviceFaults: { ...stats.faults },
    crashes,
    getsPerResult: summarize(gets),
    tokenRequests: stats.tokensIssued,
    eventsPerResult: {
      max: Math.max(0, ...eventCounts),
      mean: round(mean(eventCounts)),
      moreThanOne: eventCounts.filter((n) => n > 1).length,
    },
    messagesPerResult: summarize(
      all.map((id) => proxies.sqs!.count('SendMessage', id) + proxies.sqs!.count('SendMessageBatch', id)),
    ),
    polls: input.polls,
    redrives: input.redrives,
    dlq,
    gone: 0,
    erased: 0,
    unaccounted: [],
    violations,
  };
}

/** Which resultIds crash where: a seeded share of all ids, spread over every crash point. */
function crashPlan(seed: number): {
  decide: (call: { operation: string; resultIds: string[] }) => ProxyVerdict;
} {
  const failed = new Map<string, number>();
  const pointOf = (id: string): string | undefined => {
    const h = createHash('sha256').update(`${seed}:${id}`).digest().readUInt32BE(0);
    // Two of three resultIds crash once, at a point picked by the hash; the rest run undisturbed.
    return h % 3 === 0 ? undefined : CRASH_POINTS[(h >>> 8) % CRASH_POINTS.length];
  };
  return {
    decide: ({ operation, resultIds }) => {
      const step = operation.startsWith('S3:') ? 'S3' : operation;
      if (operation === 'S3:GET' || operation === 'S3:HEAD') return 'forward';
      for (const id of resultIds) {
        const point = pointOf(id);
        if (!point?.startsWith(`${step}:`)) continue;
        const n = failed.get(id) ?? 0;
        if (n >= FAILS_PER_CRASH) continue;
        failed.set(id, n + 1);
        return point.endsWith(':after') ? 'after' : 'before';
      }
      return 'forward';
    },
  };
}

interface ChaosHandlers {
  webhook: ApiGatewayHandler;
  poll: (event: ScheduledEvent, context: unknown) => Promise<unknown>;
  fetchResult: SqsHandler;
}

/** The three real handler modules, imported after their environment is set (a Lambda cold start). */
async function loadHandlers(): Promise<ChaosHandlers> {
  const [webhook, poll, fetchResult] = await Promise.all([
    import('../../functions/webhook/handler'),
    import('../../functions/poll/handler'),
    import('../../functions/fetch-result/handler'),
  ]);
  return {
    webhook: webhook.handler as unknown as ChaosHandlers['webhook'],
    poll: poll.handler as unknown as ChaosHandlers['poll'],
    fetchResult: fetchResult.handler as unknown as ChaosHandlers['fetchResult'],
  };
}

async function postWebhook(url: string, resultId: string): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resultId }),
  });
  await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`webhook for ${resultId} answered ${response.status}`);
}

function onHost(url: string, base: string): string {
  const moved = new URL(url);
  const target = new URL(base);
  moved.host = target.host;
  return moved.toString();
}

function summarize(values: number[]): { total: number; max: number; mean: number } {
  return {
    total: values.reduce((a, b) => a + b, 0),
    max: Math.max(0, ...values),
    mean: round(mean(values)),
  };
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The figures as aligned lines (what `npm run chaos` prints). */
export function formatFigures(f: ChaosFigures): string[] {
  const kinds = (r: Record<string, number>) =>
    Object.entries(r)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none';
  return [
    `results                 ${f.results} stored + ${f.unavailable} unavailable (unknown to the service)`,
    `service faults          ${kinds(f.serviceFaults)}`,
    `crashes (AWS proxies)   ${kinds(f.crashes)}`,
    `GETs per result         total ${f.getsPerResult.total}, mean ${f.getsPerResult.mean}, max ${f.getsPerResult.max}`,
    `token requests          ${f.tokenRequests}`,
    `events per result       mean ${f.eventsPerResult.mean}, max ${f.eventsPerResult.max}, ${f.eventsPerResult.moreThanOne} with more than one`,
    `messages per result     total ${f.messagesPerResult.total}, mean ${f.messagesPerResult.mean}, max ${f.messagesPerResult.max}`,
    `polls                   ${f.polls}; redrives ${f.redrives}; DLQ ${f.dlq}`,
    `redrive after 404/erase ${f.gone} failed, then deleted by the service; ${f.erased} erased`,
    `unaccounted (reconcile) ${f.unaccounted.length}`,
    `duration                ${(f.durationMs / 1000).toFixed(1)} s`,
    `violations              ${f.violations.length}`,
  ];
}
