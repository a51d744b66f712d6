/**
 * Benchmark child of the latency bench (`bench/latency.ts`): the whole local pipeline in one process, as
 * `npm start` runs it — the emulators, the simulator sending result webhooks, the webhook endpoint, the
 * poll on a schedule of `--poll-interval` seconds and the SQS event source, around the real handler
 * modules (imported after the environment is set, as a Lambda cold start reads it).
 *
 * Request `{ type: 'run', path: 'webhook' | 'poll', results, spacingMs, timeoutMs }`: creates `results`
 * transactions that complete at once (`mock-test`), one every `spacingMs`, and answers with each
 * result's latency from the moment the service completed it (`completed` of its poll record, which the
 * stored event carries; the simulator runs on this process's clock) to the moment the local EventBridge
 * accepted its `VerificationResultStored`.
 * With `path: 'poll'` every result webhook is dropped at the endpoint (answered 202, never handed to the
 * handler), so only the poll brings results in. Results missing after `timeoutMs` fail the request.
 * `{ type: 'close' }` stops everything (the parent asks before it ends the process).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, Context, ScheduledEvent } from 'aws-lambda';
import { startWebhookEndpoint } from '../../local/api-gateway';
import { clientConfig } from '../../local/client-config';
import { lambdaContext } from '../../local/lambda-context';
import { startLocalAws } from '../../local/local-aws';
import { createPipelineResources } from '../../local/pipeline-resources';
import { scheduledEvent, startSchedule } from '../../local/scheduler';
import { SqsEventSource, type SqsHandler } from '../../local/sqs-event-source';
import { IdvClient } from '../../shared/client';
import { DETAIL_TYPES } from '../../shared/events/names';
import { startSimulator } from '../../simulator/server';
import { benchEnv } from './bench-env';
import { serveParent } from './child';

const CREDENTIALS = { clientId: 'latency-client', clientSecret: 'latency-secret-Zr4' };
const SCOPES = ['productapi.poll.read', 'productapi.result.read', 'productapi.secureidlink.write'];

/** The answer to a `run` request: one latency per result, in ms, in creation order. */
export interface LatencyAnswer {
  type: 'ran';
  latenciesMs: number[];
  /** Polls the schedule ran during the request. */
  polls: number;
  /** Webhooks the endpoint received (and, on the poll path, dropped). */
  webhooks: number;
}

const pollIntervalSeconds = Number(process.env.BENCH_POLL_INTERVAL_SECONDS ?? 5);
const cleanups: (() => Promise<unknown>)[] = [];
/** Stored events seen, by transactionId: when the service completed the result and when the bus took it. */
const stored = new Map<string, { completed: number; at: number }>();
let dropWebhooks = false;
let webhooks = 0;
let polls = 0;
let upstream: IdvClient;

async function init(): Promise<Record<string, unknown>> {
  const aws = await startLocalAws();
  cleanups.push(() => aws.close());
  aws.events.on((event) => {
    if (event['detail-type'] !== DETAIL_TYPES.resultStored) return;
    const { transactionId, completed } = event.detail;
    if (typeof transactionId !== 'string' || stored.has(transactionId)) return;
    // Every result here carries `completed` (its poll record's, also in the webhook); NaN would fail the run.
    stored.set(transactionId, { completed: Date.parse(String(completed)), at: Date.now() });
  });
  const resources = await createPipelineResources(aws, {
    prefix: 'idv-latency',
    credentials: CREDENTIALS,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 3,
  });
  const secrets = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
  const { SecretString: webhookSecret } = await secrets.send(
    new GetSecretValueCommand({ SecretId: resources.webhookSecretId }),
  );
  secrets.destroy();
  let webhookHandler: ((event: APIGatewayProxyEvent, context: Context) => Promise<unknown>) | undefined;
  const endpoint = await startWebhookEndpoint({
    handler: async (event, context) => {
      webhooks++;
      // A dropped webhook: the service sees it delivered, the pipeline never hears of it.
      if (dropWebhooks || !webhookHandler) return { statusCode: 202, body: '{}' };
      return (await webhookHandler(event, context)) as { statusCode: number; body: string };
    },
    context: () => lambdaContext('idv-latency-webhook', aws.region, 10_000),
  });
  cleanups.push(() => endpoint.close());
  const sim = await startSimulator({
    ...CREDENTIALS,
    completionDelayMs: 0,
    resultWebhookUrl: `${endpoint.url}/webhooks/${webhookSecret}/result`,
  });
  cleanups.push(() => sim.close());
  Object.assign(
    process.env,
    benchEnv(aws, resources, { serviceUrl: sim.url }),
    // Quiet: the handlers' log lines would be the bench's stdout.
    { POWERTOOLS_LOG_LEVEL: process.env.LATENCY_LOG_LEVEL ?? 'SILENT', POWERTOOLS_TRACE_ENABLED: 'false' },
  );
  const [webhook, poll, fetchResult] = await Promise.all([
    import('../../functions/webhook/handler'),
    import('../../functions/poll/handler'),
    import('../../functions/fetch-result/handler'),
  ]);
  webhookHandler = webhook.handler as unknown as typeof webhookHandler;
  const pollHandler = poll.handler as unknown as (
    event: ScheduledEvent,
    context: Context,
  ) => Promise<unknown>;
  const sqs = new SQSClient(clientConfig(aws, 'sqs'));
  cleanups.push(async () => sqs.destroy());
  const source = new SqsEventSource({
    sqs,
    queueUrl: resources.queueUrl,
    handler: fetchResult.handler as unknown as SqsHandler,
    context: () => lambdaContext('idv-latency-fetch-result', aws.region, 60_000),
    region: aws.region,
    waitTimeSeconds: 1,
    // Two invocations at once, as the event source mapping runs several: results arriving while one is
    // stored do not queue behind it.
    concurrency: 2,
  });
  source.start();
  cleanups.push(() => source.stop());
  const schedule = startSchedule(
    pollIntervalSeconds * 1000,
    async () => {
      polls++;
      await pollHandler(
        scheduledEvent('idv-latency-poll', aws.region),
        lambdaContext('idv-latency-poll', aws.region, 60_000),
      );
    },
    () => undefined,
  );
  cleanups.push(async () => schedule.stop());
  upstream = new IdvClient({
    baseUrl: sim.url,
    environment: 'staging',
    credentials: CREDENTIALS,
    scopes: SCOPES,
  });
  return { pollIntervalSeconds };
}

async function run(message: Record<string, unknown>): Promise<LatencyAnswer> {
  const results = Number(message.results);
  const spacingMs = Number(message.spacingMs);
  const timeoutMs = Number(message.timeoutMs);
  dropWebhooks = message.path === 'poll';
  const pollsBefore = polls;
  const webhooksBefore = webhooks;
  const transactions: string[] = [];
  const started = Date.now();
  for (let i = 0; i < results; i++) {
    const { transactionId } = await upstream.createSecureLink(
      { product: 'IDV_STANDARD', disableCommunication: true, customerReference: `latency-${i}` },
      { mockTest: 'APPROVED_EU' },
    );
    transactions.push(transactionId);
    await new Promise((resolve) => setTimeout(resolve, spacingMs));
  }
  const deadline = started + timeoutMs;
  const done = () => transactions.filter((t) => stored.has(t)).length;
  while (done() < transactions.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const latenciesMs = transactions.flatMap((t) => {
    const event = stored.get(t);
    return event && Number.isFinite(event.completed) ? [event.at - event.completed] : [];
  });
  if (latenciesMs.length !== results) {
    throw new Error(
      `${message.path} path: ${latenciesMs.length} of ${results} results stored within ${timeoutMs / 1000} s ` +
        `(${stored.size} stored events in all, ${webhooks - webhooksBefore} webhooks, ${polls - pollsBefore} polls)`,
    );
  }
  return { type: 'ran', latenciesMs, polls: polls - pollsBefore, webhooks: webhooks - webhooksBefore };
}

await serveParent(init, async (message) => {
  if (message.type === 'run') return run(message) as unknown as Record<string, unknown>;
  if (message.type === 'close') {
    // Before the parent ends this process: the emulators' temporary directories go with them.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    return { type: 'closed' };
  }
  throw new Error(`unknown request ${String(message.type)}`);
});
