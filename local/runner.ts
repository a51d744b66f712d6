import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { createDynamoDocumentClient, createS3Client, createSqsClient } from '../shared/aws-clients';
import { DEFAULT_PIPELINE_SCOPES } from '../shared/config';
import { RuleDocumentError } from '../shared/events/rule-document';
import { queueDepth } from '../shared/pipeline/queue';
import { attachAnalyticsSink } from './analytics-sink';
import { type ApiGatewayHandler, startWebhookEndpoint, type WebhookEndpoint } from './api-gateway';
import { clientConfig } from './client-config';
import { createConsole, type LocalConsole } from './console';
import { type DlqWatch, startDlqWatch } from './console-dlq';
import { TraceJournal } from './console-journal';
import { type Demo, startDemo } from './demo-run';
import { finishUnfinishedErasures } from './erasure-resume';
import { LocalRuleSet, loadRuleFiles, ruleMarks } from './event-rules';
import { captureHandlerLogs } from './handler-logs';
import { lambdaContext } from './lambda-context';
import { type LocalAws, startLocalAws } from './local-aws';
import { restrictToOwner } from './owner-only';
import { createPipelineResources, type PipelineResources, pipelineEnv } from './pipeline-resources';
import {
  type LocalModules,
  type LocalSimulator,
  type PipelineHandlers,
  type RunIo,
  type RunOptions,
  SIMULATOR_PORT,
} from './run-contract';
import {
  printBanner,
  printHints,
  reportError,
  reportRestored,
  reportSimulatorRestored,
} from './run-messages';
import {
  dataDirFlag,
  EventTally,
  emptySummary,
  escapedLines,
  formatDlqLine,
  formatEventLine,
  type RunSummary,
} from './run-report';
import { scheduledEvent, startSchedule } from './scheduler';
import {
  checkCredentials,
  newSimulatorAccess,
  RunDependencyError,
  readSecret,
  type SimulatorAccess,
} from './service-access';
import { SqsEventSource } from './sqs-event-source';
import { readStack, writeStack } from './stack-file';

type Cleanup = () => Promise<void>;

/** The state one local run builds up step by step; every step registers what must be undone. */
interface Run {
  readonly options: RunOptions;
  readonly io: RunIo;
  readonly dataDir: string;
  /** ` --data-dir DIR` for the printed `idv … --local` hints, or '' for the default directory. */
  readonly dirFlag: string;
  readonly external: boolean;
  readonly credentials: { clientId: string; clientSecret: string };
  /** The simulator's per-run credentials and `/__sim` secret (unused with --service-url). */
  readonly simulatorAccess: SimulatorAccess;
  readonly summary: RunSummary;
  readonly tally: EventTally;
  readonly cleanups: Cleanup[];
  /** The `--rule` rules every event goes through. */
  rules: LocalRuleSet;
  /** `<dataDir>/trace.jsonl`: the story of each result, for `idv results trace --local` and the console. */
  readonly journal: TraceJournal;
  /** Whether a DLQ entry's result is the deliberate demo failure's (set once that transaction exists). */
  isDemoFailure: (resultId: string) => boolean;
  /** Tells the simulator to serve the deliberate failure's result as it is (set once the demo starts). */
  demoFailureSeen: () => void;
}

/** The webhook endpoint, started before the handler it forwards to exists. */
interface Webhooks {
  endpoint: WebhookEndpoint;
  resultUrl: string;
  uploadUrl: string;
  setHandler(handler: ApiGatewayHandler): void;
  /** Mounts the console on the webhook port. */
  setConsole(console: LocalConsole): void;
}

/** The service the run talks to: the simulator it started, or the external one of `--service-url`. */
interface Service {
  url: string;
  simulator?: LocalSimulator;
}

/** The Lambda-like plumbing around the fetch and poll handlers. */
interface Plumbing {
  sqs: SQSClient;
  source: SqsEventSource;
  dlqWatch: DlqWatch;
  runPoll(): Promise<void>;
}

/**
 * Runs the whole pipeline locally: emulators, simulator (or an external service), webhook endpoint,
 * poll schedule and SQS event source around the real handler modules, plus demo transactions. Resolves
 * with the run's summary; throws {@link RunDependencyError} when something it needs cannot start.
 */
export async function runLocal(
  options: RunOptions,
  rawIo: RunIo,
  modules: LocalModules,
): Promise<RunSummary> {
  const io = escapedLines(rawIo); // lines carry the service's and users' values: none may drive a terminal
  const started = Date.now();
  const run = newRun(options, io);
  let exit = 'error';
  try {
    run.rules = loadRules(run);
    claimDataDir(run);
    const aws = await startEmulators(run);
    const resources = await createPipelineResources(aws, {
      credentials: run.credentials,
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
      maxReceiveCount: options.maxReceiveCount,
    });
    reportRestored(io, aws.restoreQueues());
    // An erasure a kill left ERASING is finished before anything is fetched (docs/erasure.md).
    await finishUnfinishedErasures(aws, resources, run.dataDir, io.err);
    const webhooks = await startWebhooks(run, aws, await readSecret(aws, resources.webhookSecretId));
    const service = await startService(run, modules, webhooks);
    await checkCredentials(service.url, run.credentials, run.external);
    const handlers = await loadHandlers(run, modules, aws, resources, service.url);
    webhooks.setHandler(handlers.webhook);
    aws.events.on((event) => {
      run.tally.add(event);
      run.journal.event(event);
      io.out(formatEventLine(event) + ruleMarks(run.rules.apply(event)));
    });
    attachAnalyticsSink(aws.events, run.dataDir, io.err); // the analytics projection (docs/analytics.md)
    const plumbing = startPlumbing(run, aws, resources, handlers);
    const consolePath = mountConsole(run, aws, resources, plumbing, webhooks);
    const consoleUrl = `${webhooks.endpoint.url}${consolePath}`;
    const simulator = run.external ? undefined : { url: service.url, ...run.simulatorAccess };
    const stack = writeStack(run.dataDir, aws, resources, consoleUrl, simulator);
    run.cleanups.push(async () => rmSync(stack, { force: true })); // step 5: how `idv … --local` finds us
    printBanner(io, options, {
      dataDir: run.dataDir,
      consoleUrl,
      service: run.external
        ? service.url
        : `simulator ${service.url} (client id ${run.credentials.clientId}, this run's own)`,
      webhooksUrl: webhooks.endpoint.url,
      rules: run.rules.rules,
    });
    const demo = beginDemo(run, service);
    const timeout = sleep(options.timeoutSeconds * 1000, 'timeout' as const);
    exit = options.once
      ? await runOnce(run, service, plumbing, demo, timeout)
      : await runUntilStopped(run, service, plumbing, demo, timeout);
    await reportEnd(run, plumbing, resources, exit);
  } finally {
    for (const cleanup of run.cleanups.reverse()) await cleanup().catch(() => undefined);
    Object.assign(run.summary, run.tally.counts, { durationMs: Date.now() - started, exit });
    if (run.rules.rules.length > 0) run.summary.rules = run.rules.counts();
  }
  return run.summary;
}

function newRun(options: RunOptions, io: RunIo): Run {
  const external = options.serviceUrl !== undefined;
  const simulatorAccess = newSimulatorAccess();
  return {
    options,
    io,
    dataDir: resolve(options.dataDir),
    // The printed `idv … --local` hints must name this run's data directory when it is not the default.
    dirFlag: dataDirFlag(options.dataDir, process.cwd()),
    external,
    credentials: external
      ? { clientId: options.clientId ?? '', clientSecret: options.clientSecret ?? '' }
      : { clientId: simulatorAccess.clientId, clientSecret: simulatorAccess.clientSecret },
    simulatorAccess,
    summary: emptySummary(),
    tally: new EventTally(),
    cleanups: [],
    rules: new LocalRuleSet([]),
    journal: new TraceJournal(resolve(options.dataDir)),
    isDemoFailure: () => false,
    demoFailureSeen: () => undefined,
  };
}

/** The `--rule` files, read and checked before anything starts. */
function loadRules(run: Run): LocalRuleSet {
  try {
    return new LocalRuleSet(loadRuleFiles(run.options.ruleFiles ?? [], run.dataDir));
  } catch (error) {
    if (error instanceof RuleDocumentError) throw new RunDependencyError(error.message);
    throw error;
  }
}

/**
 * One run per data directory: refuses when a live run holds it, takes it over (and says so) when the
 * run that held it ended without stopping. The directory can hold real identity documents (with
 * `--service-url`), so everything in it is owner-only.
 */
function claimDataDir(run: Run): void {
  // Owner-only for everything this process creates from here on: emulator files, journals, results.
  process.umask(0o077);
  mkdirSync(run.dataDir, { recursive: true, mode: 0o700 });
  restrictToOwner(run.dataDir);
  const holder = readStack(run.dataDir);
  if (holder?.alive) {
    throw new RunDependencyError(
      `another local run (pid ${holder.stack.pid}) is using ${run.dataDir}: stop it first, or pass --data-dir DIR`,
    );
  }
  if (holder) {
    run.io.err(
      `↺ taking over ${run.dataDir} from a local run that ended without stopping (pid ${holder.stack.pid})`,
    );
  }
}

/** Step 1: the emulators, on the data directory. */
async function startEmulators(run: Run): Promise<LocalAws> {
  let aws: LocalAws;
  try {
    aws = await startLocalAws({ dataDir: run.dataDir });
  } catch (error) {
    throw new RunDependencyError(
      `${error instanceof Error ? error.message : error}. If ${run.dataDir} is damaged, move it away to start fresh.`,
    );
  }
  run.cleanups.push(() => aws.close());
  // What a crash left and the start repaired, one line each (docs/local-run.md, "A crash loses nothing").
  for (const line of aws.repairs) run.io.err(`↺ repaired ${line}`);
  return aws;
}

/** Step 2: the webhook endpoint first: the simulator needs its URL, the handler needs the simulator's URL. */
async function startWebhooks(run: Run, aws: LocalAws, webhookSecret: string): Promise<Webhooks> {
  let webhookHandler: ApiGatewayHandler | undefined;
  let localConsole: LocalConsole | undefined;
  let endpoint: WebhookEndpoint;
  try {
    endpoint = await startWebhookEndpoint({
      port: run.options.port,
      pathSecret: webhookSecret,
      otherRoutes: (req, res, port) => localConsole?.handle(req, res, port) ?? false,
      handler: async (event, context): Promise<APIGatewayProxyResult> => {
        if (!webhookHandler) return { statusCode: 503, body: '{"message":"starting"}' };
        return webhookHandler(event, context);
      },
      context: () => lambdaContext('idv-local-webhook', aws.region, 10_000),
      onResponse: () => {
        run.summary.webhooks++;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new RunDependencyError(
        `port ${run.options.port} is taken: stop the program using it, or pass --port N (--port 0 picks a free one)`,
      );
    }
    throw error;
  }
  run.cleanups.push(() => endpoint.close());
  return {
    endpoint,
    resultUrl: `${endpoint.url}/webhooks/${webhookSecret}/result`,
    uploadUrl: `${endpoint.url}/webhooks/${webhookSecret}/upload`,
    setHandler: (handler) => {
      webhookHandler = handler;
    },
    setConsole: (mounted) => {
      localConsole = mounted;
    },
  };
}

/** Step 3: the service: the simulator, or the external one the flags name. */
async function startService(run: Run, modules: LocalModules, webhooks: Webhooks): Promise<Service> {
  const { options } = run;
  if (run.external) return { url: options.serviceUrl! };
  const start = (port: number) =>
    modules.startSimulator({
      ...run.simulatorAccess,
      port,
      environment: options.environment,
      completionDelayMs: options.completionDelayMs,
      resultWebhookUrl: webhooks.resultUrl,
      uploadWebhookUrl: webhooks.uploadUrl,
      enforceScopes: true,
      // Pending transactions and open links survive a restart (or a kill) of the run.
      stateDir: join(run.dataDir, 'simulator'),
      ...(options.linksAwaitBrowser ? { linksAwaitBrowser: true } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    });
  // A fixed port keeps the printed `idv` instructions valid across restarts; any port will do, unless
  // --simulator-port named one.
  const simulator =
    options.simulatorPort === undefined
      ? await start(SIMULATOR_PORT).catch(() => start(0))
      : await start(options.simulatorPort).catch((error: unknown) => {
          throw new RunDependencyError(
            `the simulator cannot listen on port ${options.simulatorPort} (${(error as NodeJS.ErrnoException).code ?? 'error'}): pass another --simulator-port, or 0 for a free one`,
          );
        });
  run.cleanups.push(() => simulator.close());
  reportSimulatorRestored(run.io, simulator.restored);
  return { url: simulator.url, simulator };
}

/** Step 4: the real handler modules, configured exactly like Lambda: environment first, then import. */
async function loadHandlers(
  run: Run,
  modules: LocalModules,
  aws: LocalAws,
  resources: PipelineResources,
  serviceUrl: string,
): Promise<PipelineHandlers> {
  Object.assign(process.env, aws.env(), {
    ...pipelineEnv(resources, {
      serviceBaseUrl: serviceUrl,
      environment: run.options.environment,
      retentionDays: run.options.retentionDays,
      scopes: DEFAULT_PIPELINE_SCOPES,
      // One process, one pace: every invocation of the run shares the service's whole rate.
      ...(run.options.serviceRate !== undefined && { serviceRequestsPerSecond: run.options.serviceRate }),
    }),
    POWERTOOLS_LOG_LEVEL: run.options.logLevel,
    // The logger writes through the global console, which `captureHandlerLogs` turns into readable lines.
    POWERTOOLS_DEV: 'true',
    // Metrics would print EMF JSON to stdout; CloudWatch is not part of the local run.
    POWERTOOLS_METRICS_DISABLED: 'true',
    // No X-Ray daemon here: the tracer stays a no-op and the X-Ray SDK unloaded (it already is without
    // AWS_EXECUTION_ENV; shared/tracing.ts).
    POWERTOOLS_TRACE_ENABLED: 'false',
  });
  const restore = captureHandlerLogs(run.io.err, (entry) => run.journal.log(entry));
  run.cleanups.push(async () => restore());
  return modules.loadHandlers();
}

/** Step 6: Lambda-like plumbing: the SQS event source and the poll invocation. */
function startPlumbing(
  run: Run,
  aws: LocalAws,
  resources: PipelineResources,
  handlers: PipelineHandlers,
): Plumbing {
  const { options, summary, io } = run;
  const sqs = createSqsClient(undefined, clientConfig(aws, 'sqs'));
  run.cleanups.push(async () => sqs.destroy());
  const source = new SqsEventSource({
    sqs,
    queueUrl: resources.queueUrl,
    concurrency: options.concurrency ?? 1,
    handler: handlers.fetchResult,
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
    onRecord: (record) => run.journal.record(record),
  });
  let demoHinted = false;
  const dlqWatch = startDlqWatch({
    sqs,
    dlqUrl: resources.dlqUrl,
    dataDir: run.dataDir,
    onMove: (entry, earlier) => {
      // The reason and the deliveries come from the trace journal: durable, so a restart keeps them.
      const reason = entry.reason ?? (entry.resultId ? run.journal.lastFailure(entry.resultId) : undefined);
      if (!earlier) run.journal.dlq(entry, reason);
      io.out(formatDlqLine(entry, reason, earlier, run.dirFlag));
      // The webhook's message and the poll's may both carry the deliberate failure there: one hint.
      if (!earlier && entry.resultId && run.isDemoFailure(entry.resultId) && !demoHinted) {
        demoHinted = true;
        run.demoFailureSeen();
        io.out(
          `  demo: this failure was deliberate and the simulator now serves the result as it is: npx --no-install idv dlq redrive --result-id ${entry.resultId} --local${run.dirFlag}`,
        );
      }
    },
  });
  run.cleanups.push(() => dlqWatch.stop());
  const runPoll = async (): Promise<void> => {
    summary.polled++;
    await handlers.poll(
      scheduledEvent('idv-local-poll', aws.region),
      lambdaContext('idv-local-poll', aws.region, 60_000),
    );
  };
  return { sqs, source, dlqWatch, runPoll };
}

/** Step 6b: the console on the webhook port, under a random secret path; returns that path. */
function mountConsole(
  run: Run,
  aws: LocalAws,
  resources: PipelineResources,
  plumbing: Plumbing,
  webhooks: Webhooks,
): string {
  const dynamo = createDynamoDocumentClient(undefined, clientConfig(aws, 'dynamodb'));
  const s3 = createS3Client({ s3ForcePathStyle: true }, undefined, clientConfig(aws, 's3'));
  run.cleanups.push(async () => {
    dynamo.destroy();
    s3.destroy();
  });
  const mounted = createConsole({
    dataDir: run.dataDir,
    dynamo,
    s3,
    sqs: plumbing.sqs,
    tableName: resources.tableName,
    queueUrl: resources.queueUrl,
    dlqUrl: resources.dlqUrl,
    events: () => aws.events.entries(),
    dlq: () => plumbing.dlqWatch.entries(),
    refreshDlq: () => plumbing.dlqWatch.check(),
  });
  webhooks.setConsole(mounted);
  return mounted.path;
}

/** Step 7: the demo transactions, created in the background; the deliberate failure is marked in the run. */
function beginDemo(run: Run, service: Service): Demo {
  const { options, io } = run;
  const demo = startDemo({
    count: options.demo,
    spacingMs: options.demoSpacingMs,
    failure: options.demoFailure === true,
    maxReceiveCount: options.maxReceiveCount,
    environment: options.environment,
    serviceUrl: service.url,
    credentials: run.credentials,
    control: service.simulator?.control,
    out: (line) => io.out(line),
    onCreated: () => {
      run.summary.created++;
    },
    onFailureCreated: (isDemoFailure) => {
      run.isDemoFailure = isDemoFailure;
    },
  });
  demo.creating.catch(reportError(io, 'creating demo transactions'));
  run.demoFailureSeen = demo.failureSeen;
  return demo;
}

/** `--once`: the demo, one poll, drain the queue, exit. */
async function runOnce(
  run: Run,
  service: Service,
  plumbing: Plumbing,
  demo: Demo,
  timeout: Promise<'timeout'>,
): Promise<string> {
  await demo.creating.catch(() => undefined);
  await service.simulator?.control.webhooksIdle();
  await plumbing.runPoll();
  const drained = await Promise.race([
    plumbing.source.drain(),
    timeout,
    run.io.interrupted.then(() => 'signal' as const),
  ]);
  return drained === 'drained' ? 'once' : drained;
}

/** The event source and the poll schedule, until Ctrl-C, the timeout or (`--exit-when-done`) the demo is stored. */
async function runUntilStopped(
  run: Run,
  service: Service,
  plumbing: Plumbing,
  demo: Demo,
  timeout: Promise<'timeout'>,
): Promise<string> {
  const { options, io, tally } = run;
  plumbing.source.start();
  run.cleanups.push(() => plumbing.source.stop());
  const schedule = startSchedule(
    options.pollIntervalSeconds * 1000,
    plumbing.runPoll,
    reportError(io, 'poll'),
  );
  run.cleanups.push(() => schedule.stop());
  if (options.demo > 0 && !run.external && !options.exitWhenDone)
    printHints(
      io,
      { serviceUrl: service.url, ...run.credentials, dirFlag: run.dirFlag },
      options.linksAwaitBrowser,
    );
  // A plain run goes on until Ctrl-C: the timeout limits only a run that is meant to end by itself.
  if (!options.exitWhenDone) return io.interrupted.then(() => 'signal' as const);
  const done = (async () => {
    await demo.creating;
    while (!demo.created.every((transactionId) => tally.hasStoredTransaction(transactionId)))
      await sleep(200);
    return 'done' as const;
  })();
  return Promise.race([done, timeout, io.interrupted.then(() => 'signal' as const)]);
}

/** The closing lines: a timeout's reason, and the DLQ depth with what to do. */
async function reportEnd(
  run: Run,
  plumbing: Plumbing,
  resources: PipelineResources,
  exit: string,
): Promise<void> {
  const { io, summary, tally, options, dirFlag } = run;
  if (exit === 'timeout') {
    io.err(
      `gave up after ${options.timeoutSeconds}s: ${tally.counts.stored} stored of ${summary.created} created; raise --timeout or look at the DLQ`,
    );
  }
  summary.dlq = await dlqDepth(plumbing.sqs, resources.dlqUrl);
  if (summary.dlq > 0)
    io.err(`! ${summary.dlq} message(s) in the DLQ: see \`npx --no-install idv dlq list --local${dirFlag}\``);
}

async function dlqDepth(sqs: SQSClient, dlqUrl: string): Promise<number> {
  const depth = await queueDepth(sqs, dlqUrl).catch(() => ({ visible: 0, inFlight: 0, delayed: 0 }));
  return depth.visible + depth.inFlight + depth.delayed;
}

function sleep<T = undefined>(ms: number, value?: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value as T), ms).unref());
}
