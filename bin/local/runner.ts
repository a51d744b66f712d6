import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult, ScheduledEvent } from 'aws-lambda';
import { attachAnalyticsSink } from '../../local/analytics-sink';
import { ConnectionError, fetchAccessToken, IdvClient, UnauthorizedError } from '../../shared/client';
import { type ApiGatewayHandler, startWebhookEndpoint, type WebhookEndpoint } from './api-gateway';
import { createDemoTransaction, demoPlan } from './demo';
import { lambdaContext } from './lambda-context';
import {
  clientConfig,
  createPipelineResources,
  type LocalAws,
  pipelineEnv,
  startLocalAws,
} from './local-aws';
import { dataDirFlag, EventTally, emptySummary, formatEventLine, type RunSummary } from './run-report';
import { type Schedule, scheduledEvent, startSchedule } from './scheduler';
import { queueDepth, SqsEventSource, type SqsHandler } from './sqs-event-source';
import { readLiveStack, STACK_FILE, type StackFile } from './stack-file';

/** Scopes the pipeline functions request (poll and result read). */
export const PIPELINE_SCOPES = ['productapi.poll.read', 'productapi.result.read'] as const;

/** Options of one local run (the flags of `npm start`). */
export interface RunOptions {
  dataDir: string;
  /** Demo transactions to create; only against the simulator unless given explicitly. */
  demo: number;
  /** Pause between demo transactions. */
  demoSpacingMs: number;
  exitWhenDone: boolean;
  once: boolean;
  pollIntervalSeconds: number;
  /** Webhook endpoint port; 0 picks a free one. */
  port: number;
  /** External service instead of the simulator. */
  serviceUrl?: string;
  clientId?: string;
  clientSecret?: string;
  environment: 'staging' | 'production';
  retentionDays: number;
  /** Limit of `--exit-when-done` and `--once`. */
  timeoutSeconds: number;
  /** Simulator: delay before transactions without `mock-test` complete. */
  completionDelayMs: number;
  seed?: number;
  /** Handler log level (Powertools). */
  logLevel: string;
  /** Queue settings of the local stack. */
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
}

/** Where output goes (stdout lines; the summary is always the last). */
export interface RunIo {
  out(line: string): void;
  err(line: string): void;
  /** Resolves when the user asks to stop (Ctrl-C). */
  interrupted: Promise<void>;
}

/** A dependency could not be set up; the message says what to do. */
export class RunDependencyError extends Error {
  override readonly name = 'RunDependencyError';
}

const LOCAL_CLIENT = { clientId: 'local-demo-client', clientSecret: 'local-demo-secret' };
const SIMULATOR_PORT = 4010;

/**
 * Runs the whole pipeline locally: emulators, simulator (or an external service), webhook endpoint,
 * poll schedule and SQS event source around the real handler modules, plus demo transactions. Resolves
 * with the run's summary; throws {@link RunDependencyError} when something it needs cannot start.
 */
export async function runLocal(options: RunOptions, io: RunIo): Promise<RunSummary> {
  const started = Date.now();
  const summary = emptySummary();
  const tally = new EventTally();
  const cleanups: (() => Promise<void>)[] = [];
  const dataDir = resolve(options.dataDir);
  // The printed `idv … --local` hints must name this run's data directory when it is not the default.
  const dirFlag = dataDirFlag(options.dataDir, process.cwd());
  let exit = 'error';

  try {
    mkdirSync(dataDir, { recursive: true });
    const running = readLiveStack(dataDir);
    if (running) {
      throw new RunDependencyError(
        `another local run (pid ${running.pid}) is using ${dataDir}: stop it first, or pass --data-dir DIR`,
      );
    }

    // 1. Emulators and the pipeline's resources.
    let aws: LocalAws;
    try {
      aws = await startLocalAws({ dataDir });
    } catch (error) {
      throw new RunDependencyError(
        `${error instanceof Error ? error.message : error}. If ${dataDir} is damaged, move it away to start fresh.`,
      );
    }
    cleanups.push(() => aws.close());
    const external = options.serviceUrl !== undefined;
    const credentials = external
      ? { clientId: options.clientId ?? '', clientSecret: options.clientSecret ?? '' }
      : LOCAL_CLIENT;
    const resources = await createPipelineResources(aws, {
      credentials,
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
      maxReceiveCount: options.maxReceiveCount,
    });
    const webhookSecret = await readSecret(aws, resources.webhookSecretId);

    // 2. Webhook endpoint first: the simulator needs its URL, the handler needs the simulator's URL.
    let webhookHandler: ApiGatewayHandler | undefined;
    let endpoint: WebhookEndpoint;
    try {
      endpoint = await startWebhookEndpoint({
        port: options.port,
        handler: async (event, context): Promise<APIGatewayProxyResult> => {
          if (!webhookHandler) return { statusCode: 503, body: '{"message":"starting"}' };
          return webhookHandler(event, context);
        },
        context: () => lambdaContext('idv-local-webhook', aws.region, 10_000),
        onResponse: () => {
          summary.webhooks++;
        },
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new RunDependencyError(
          `port ${options.port} is taken: stop the program using it, or pass --port N (--port 0 picks a free one)`,
        );
      }
      throw error;
    }
    cleanups.push(() => endpoint.close());
    const resultWebhookUrl = `${endpoint.url}/webhooks/${webhookSecret}/result`;
    const uploadWebhookUrl = `${endpoint.url}/webhooks/${webhookSecret}/upload`;

    // 3. The service: the simulator, or the external one the flags name.
    let serviceUrl: string;
    let simulator:
      | { url: string; control: { webhooksIdle(): Promise<void> }; close(): Promise<void> }
      | undefined;
    if (external) {
      serviceUrl = options.serviceUrl!;
    } else {
      const { startSimulator } = await import('../../simulator/server');
      const start = (port: number) =>
        startSimulator({
          ...LOCAL_CLIENT,
          port,
          environment: options.environment,
          completionDelayMs: options.completionDelayMs,
          resultWebhookUrl,
          uploadWebhookUrl,
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
        });
      // A fixed port keeps the printed `idv` instructions valid across restarts; any port will do.
      simulator = await start(SIMULATOR_PORT).catch(() => start(0));
      cleanups.push(() => simulator!.close());
      serviceUrl = simulator.url;
    }
    await checkCredentials(serviceUrl, credentials, external);

    // 4. The real handler modules, configured exactly like Lambda: environment first, then import.
    Object.assign(process.env, aws.env(), {
      ...pipelineEnv(resources, {
        serviceBaseUrl: serviceUrl,
        environment: options.environment,
        retentionDays: options.retentionDays,
        scopes: PIPELINE_SCOPES,
      }),
      POWERTOOLS_LOG_LEVEL: options.logLevel,
      // Metrics would print EMF JSON to stdout; CloudWatch is not part of the local run.
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    const [webhookModule, pollModule, fetchModule] = await Promise.all([
      import('../../functions/webhook/handler'),
      import('../../functions/poll/handler'),
      import('../../functions/fetch-result/handler'),
    ]);
    webhookHandler = webhookModule.handler as unknown as ApiGatewayHandler;
    const pollHandler = pollModule.handler as unknown as (
      event: ScheduledEvent,
      context: unknown,
    ) => Promise<unknown>;
    const fetchHandler = fetchModule.handler as unknown as SqsHandler;

    writeFileSync(
      join(dataDir, STACK_FILE),
      JSON.stringify(
        {
          pid: process.pid,
          startedAt: new Date().toISOString(),
          region: aws.region,
          credentials: aws.credentials,
          endpoints: aws.endpoints,
          resources,
        } satisfies StackFile,
        null,
        2,
      ),
    );
    cleanups.push(async () => rmSync(join(dataDir, STACK_FILE), { force: true }));

    aws.events.on((event) => {
      tally.add(event);
      io.out(formatEventLine(event));
    });
    attachAnalyticsSink(aws.events, dataDir, io.err); // the analytics projection (docs/analytics.md)

    // 5. Lambda-like plumbing: SQS event source and poll schedule.
    const sqs = new SQSClient(clientConfig(aws, 'sqs'));
    cleanups.push(async () => sqs.destroy());
    const source = new SqsEventSource({
      sqs,
      queueUrl: resources.queueUrl,
      handler: fetchHandler,
      context: () =>
        lambdaContext('idv-local-fetch-result', aws.region, options.visibilityTimeoutSeconds * 1000),
      region: aws.region,
      onBatch: (outcome) => {
        summary.batches++;
        summary.redeliveries += outcome.failed;
        if (outcome.failed > 0) {
          io.err(`↻ ${outcome.failed} of ${outcome.received} message(s) left for redelivery`);
        }
      },
    });
    const runPoll = async (): Promise<void> => {
      summary.polled++;
      await pollHandler(
        scheduledEvent('idv-local-poll', aws.region),
        lambdaContext('idv-local-poll', aws.region, 60_000),
      );
    };
    const reportError = (what: string) => (error: unknown) =>
      io.err(`${what} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : 'error'}`);

    io.out(`Local pipeline running (data in ${dataDir})`);
    io.out(
      `  service:  ${external ? serviceUrl : `simulator ${serviceUrl} (client id ${LOCAL_CLIENT.clientId})`}`,
    );
    io.out(`  webhooks: ${endpoint.url}/webhooks/<webhook secret>/result  (and …/upload)`);
    io.out(`  events:   ${join(dataDir, 'events.jsonl')}`);
    io.out(
      `  poll every ${options.pollIntervalSeconds}s; queue visibility ${options.visibilityTimeoutSeconds}s, DLQ after ${options.maxReceiveCount} receives`,
    );

    // 6. Demo transactions.
    const created: string[] = [];
    let creating: Promise<void> = Promise.resolve();
    if (options.demo > 0) {
      const client = new IdvClient({
        baseUrl: serviceUrl,
        environment: options.environment,
        credentials,
        scopes: ['productapi.secureidlink.write', 'productapi.idverify.write'],
      });
      const runId = Date.now().toString(36);
      creating = (async () => {
        for (const plan of demoPlan(options.demo, runId)) {
          const transactionId = await createDemoTransaction(client, plan);
          created.push(transactionId);
          summary.created++;
          io.out(
            `+ created    ${plan.kind === 'secureLink' ? 'secure link ' : 'id upload   '} ${plan.product}  ${plan.mockTest ?? 'completes later'}  tx=${transactionId}`,
          );
          if (options.demoSpacingMs > 0) await sleep(options.demoSpacingMs);
        }
      })();
      creating.catch(reportError('creating demo transactions'));
    }

    const timeout = sleep(options.timeoutSeconds * 1000, 'timeout' as const);
    let schedule: Schedule | undefined;
    if (options.once) {
      await creating.catch(() => undefined);
      await simulator?.control.webhooksIdle();
      await runPoll();
      const drained = await Promise.race([
        drain(source),
        timeout,
        io.interrupted.then(() => 'signal' as const),
      ]);
      exit = drained === 'drained' ? 'once' : drained;
    } else {
      source.start();
      cleanups.push(() => source.stop());
      schedule = startSchedule(options.pollIntervalSeconds * 1000, runPoll, reportError('poll'));
      cleanups.push(() => schedule!.stop());
      if (options.demo > 0 && !external && !options.exitWhenDone) {
        io.out('');
        io.out('Create more (another terminal):');
        io.out(
          `  IDV_BASE_URL=${serviceUrl} IDV_CLIENT_ID=${LOCAL_CLIENT.clientId} IDV_CLIENT_SECRET=${LOCAL_CLIENT.clientSecret} \\`,
        );
        io.out('    npm run idv -- secure-link create --product IDV_STANDARD --mock-test APPROVED');
        io.out(`Query them:   npm run idv -- results list --local${dirFlag}`);
        io.out(`              npm run idv -- results get RESULT_ID --local${dirFlag} --out ./result`);
        io.out('Stop:         Ctrl-C');
        io.out('');
      }
      const done = options.exitWhenDone
        ? (async () => {
            await creating;
            while (!created.every((transactionId) => tally.hasStoredTransaction(transactionId)))
              await sleep(200);
            return 'done' as const;
          })()
        : new Promise<never>(() => undefined);
      exit = await Promise.race([done, timeout, io.interrupted.then(() => 'signal' as const)]);
    }
    if (exit === 'timeout') {
      io.err(
        `gave up after ${options.timeoutSeconds}s: ${tally.counts.stored} stored of ${summary.created} created; raise --timeout or look at the DLQ`,
      );
    }
    summary.dlq = await dlqDepth(sqs, resources.dlqUrl);
    if (summary.dlq > 0)
      io.err(
        `! ${summary.dlq} message(s) in the DLQ: inspect, then \`npm run idv -- dlq redrive --local${dirFlag}\``,
      );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    Object.assign(summary, tally.counts, { durationMs: Date.now() - started, exit });
  }
  return summary;
}

/** Processes batches until the queue is empty, in-flight (left for redelivery) messages included. */
async function drain(source: SqsEventSource): Promise<'drained'> {
  for (;;) {
    const outcome = await source.pollOnce();
    if (outcome.received > 0) continue;
    const depth = await source.depth();
    if (depth.visible + depth.inFlight + depth.delayed === 0) return 'drained';
  }
}

async function dlqDepth(sqs: SQSClient, dlqUrl: string): Promise<number> {
  const depth = await queueDepth(sqs, dlqUrl).catch(() => ({ visible: 0, inFlight: 0, delayed: 0 }));
  return depth.visible + depth.inFlight + depth.delayed;
}

async function readSecret(aws: LocalAws, secretId: string): Promise<string> {
  const client = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return SecretString ?? '';
  } finally {
    client.destroy();
  }
}

/** Fails early, with what to do, when the service cannot be reached or refuses the credentials. */
async function checkCredentials(
  baseUrl: string,
  credentials: { clientId: string; clientSecret: string },
  external: boolean,
): Promise<void> {
  if (external && (!credentials.clientId || !credentials.clientSecret)) {
    throw new RunDependencyError(
      '--service-url needs --client-id and --client-secret (the credentials of that environment)',
    );
  }
  try {
    await fetchAccessToken({ baseUrl, ...credentials, scopes: PIPELINE_SCOPES, retry: { maxAttempts: 2 } });
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      throw new RunDependencyError(
        `the service at ${baseUrl} refused the client credentials (401): check --client-id and --client-secret`,
      );
    }
    if (error instanceof ConnectionError) {
      throw new RunDependencyError(
        `cannot reach the service at ${baseUrl}: check --service-url and your network`,
      );
    }
    throw new RunDependencyError(
      `getting an access token from ${baseUrl} failed (${error instanceof Error ? error.name : 'error'}): check the service and its scopes`,
    );
  }
}

function sleep<T = undefined>(ms: number, value?: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value as T), ms).unref());
}
