/**
 * Backlog bench (issue 25, point 4): how a backlog of pending results drains when the service answers 429
 * above a rate. 10,000 finished transactions of mixed sizes are queued at once (as after an outage, or the
 * first poll of a busy account), the simulator refuses requests above `--rate` per second with 429 and
 * `Retry-After`, and the real `functions/fetch-result/handler.ts` drains the queue in `--containers`
 * processes at once, each fed by the local SQS event source and paced at its share of the rate
 * (`IDV_SERVICE_REQUESTS_PER_SECOND`), as the event source mapping's concurrent executions on AWS.
 *
 * Processes: this one (the emulators, the queue load and the checks), `support/backlog-service.ts` (the
 * simulator), and one `support/backlog-worker.ts` per container.
 *
 * Checks (the bench fails otherwise, since the figures would lie): every result stored and announced
 * exactly once, nothing left in the queue, nothing in the DLQ.
 *
 * `npx tsx bench/backlog.ts [--backlog N] [--rate R] [--containers N] [--unpaced]` (`--help` lists them)
 */
import { pathToFileURL } from 'node:url';
import { SQSClient } from '@aws-sdk/client-sqs';
import { clientConfig } from '../local/client-config';
import { IdvClient } from '../shared/client/client';
import { DEFAULT_PIPELINE_SCOPES } from '../shared/config';
import { DETAIL_TYPES } from '../shared/events/names';
import { paceOfContainer } from '../shared/pipeline/fetch-budget';
import type { ResultMessage } from '../shared/pipeline/messages';
import { queueDepth, sendMessages } from '../shared/pipeline/queue';
import type { SeedGroup } from '../simulator/types';
import { BACKLOG_FLAGS, type BenchValues, countFlag, optionsOrExit, parseBenchArgs } from './support/args';
import type { BacklogWorkerFigures } from './support/backlog-worker';
import { benchEnv } from './support/bench-env';
import { type Child, startChild } from './support/child';
import { BENCH_CREDENTIALS } from './support/credentials';
import { startBenchStage } from './support/stage';
import { formatTable, mib, round } from './support/stats';

/** What the backlog bench runs. */
export interface BacklogBenchOptions {
  /** Pending results queued at once. */
  backlog: number;
  /** The service's rate limit, requests per second. */
  rate: number;
  /** fetch-result containers draining at once (the event source mapping's maximum concurrency). */
  containers: number;
  /**
   * Containers without a steady pace: only a 429's `Retry-After` holds them (what the pipeline does
   * without `IDV_SERVICE_REQUESTS_PER_SECOND`). Shows the 429 path at scale.
   */
  unpaced?: boolean;
  log?: (line: string) => void;
}

/**
 * Defaults: 10,000 results at 25 per second, about seven minutes. The whole local stack spends 45–55 ms of
 * CPU per result (handler, emulators, simulator: docs/benchmarks.md), so 2 cores carry at most ~40 results/s:
 * a higher limit would measure the machine, not the drain at the service's pace.
 */
export const DEFAULT_BACKLOG_OPTIONS: BacklogBenchOptions = { backlog: 10_000, rate: 25, containers: 4 };

/**
 * The size mix, as shares of the backlog: most results tiny (a VOG request's result: no images, a few
 * KB), some of a passport check (0.5 MB), a few of a premium right-to-work check (about 2 MB).
 */
export const BACKLOG_MIX: readonly (Omit<SeedGroup, 'count'> & { share: number; label: string })[] = [
  { label: 'VOG (no images)', share: 0.97, kind: 'vog' },
  {
    label: 'IDV_STANDARD passport',
    share: 0.025,
    kind: 'secureLink',
    product: 'IDV_STANDARD',
    mockTest: 'APPROVED_EU',
  },
  { label: 'RTW_PREMIUM', share: 0.005, kind: 'secureLink', product: 'RTW_PREMIUM', mockTest: 'APPROVED' },
];

/** The figures of one drain. */
export interface BacklogFigures {
  backlog: number;
  mix: { label: string; count: number }[];
  /** The service's rate limit (requests per second) and each container's pace. */
  allowedRate: number;
  containers: number;
  /** Each container's steady pace; undefined with `--unpaced` (Retry-After holds only). */
  pacePerContainer: number | undefined;
  /** From the containers' start to the last result announced. */
  drainSeconds: number;
  achievedRate: number;
  /** achievedRate / allowedRate (target ≥ 0.9). */
  rateShare: number;
  /** 429s the service answered during the drain. */
  rateLimited: number;
  invocations: number;
  /** Records reported as batch item failures (each redelivered) and records delivered more than once. */
  failedRecords: number;
  redeliveredRecords: number;
  /** Highest fetches of one result at the service (1: each fetched once). */
  maxFetchesPerResult: number;
  /** CPU per result: the containers (handler), this process (the emulators), the simulator. */
  cpuMsPerResult: number;
  emulatorCpuMsPerResult: number;
  serviceCpuMsPerResult: number;
  /** Highest RSS of one container, and its growth over the container's RSS before the drain. */
  containerRssPeakBytes: number;
  containerRssGrowthBytes: number;
  serviceRssPeakBytes: number;
  /** Seconds to seed the service and queue the backlog (not part of the drain). */
  setupSeconds: number;
  checks: { stored: number; announcedTwice: number; missing: number; queueLeft: number; dlq: number };
}

/** Seeds, queues and drains the backlog; throws when a result is lost, announced twice or in the DLQ. */
export async function runBacklogBench(options: BacklogBenchOptions): Promise<BacklogFigures> {
  const log = options.log ?? (() => undefined);
  const stage = await startBenchStage('support/backlog-service.ts', {
    prefix: 'idv-backlog',
    // A failed record comes back after this, not after the stack's 9 minutes: slower, never lost.
    visibilityTimeoutSeconds: 30,
  });
  const { service, serviceUrl, aws, resources, cleanups } = stage;
  const workers: Child[] = [];
  try {
    const sqs = new SQSClient(clientConfig(aws, 'sqs'));
    cleanups.push(async () => sqs.destroy());

    const setupStarted = Date.now();
    const mix = mixOf(options.backlog);
    log(`backlog: seeding ${options.backlog} finished transactions (${mixLine(mix)})`);
    await service.request({ type: 'seed', groups: mix.map(({ label: _, ...group }) => group) });
    // Queued as the poll function queues them: one message per polling record.
    const reader = new IdvClient({
      baseUrl: serviceUrl,
      environment: 'staging',
      credentials: BENCH_CREDENTIALS,
      scopes: DEFAULT_PIPELINE_SCOPES,
    });
    const { results } = await reader.poll();
    const messages: ResultMessage[] = results.map((record) => ({
      resultId: record.resultId,
      source: 'poll',
      ...(record.transactionId && { transactionId: record.transactionId }),
      ...(record.product && { product: record.product }),
      ...(record.customerReference && { customerReference: record.customerReference }),
      ...(record.completed && { completed: record.completed }),
    }));
    if (messages.length !== options.backlog)
      throw new Error(`poll listed ${messages.length} of ${options.backlog} results`);
    const chunk = Math.ceil(messages.length / 4);
    await Promise.all(
      [0, 1, 2, 3].map((i) =>
        sendMessages(sqs, resources.queueUrl, messages.slice(i * chunk, (i + 1) * chunk)),
      ),
    );
    const setupSeconds = (Date.now() - setupStarted) / 1000;

    const pace = options.unpaced ? undefined : paceOfContainer(options.rate, options.containers);
    const env = benchEnv(aws, resources, { serviceUrl, serviceRequestsPerSecond: pace });
    for (let i = 0; i < options.containers; i++)
      workers.push(startChild('support/backlog-worker.ts', { env }));
    cleanups.push(...workers.map((worker) => () => worker.close()));
    await Promise.all(workers.map((worker) => worker.ready));

    // The account's limit from here on: every service request above the rate is refused with 429.
    await service.request({ type: 'limit', rate: options.rate });
    const before = await service.request<{ rateLimited: number; cpuMs: number }>({ type: 'stats' });
    const mainCpu = process.cpuUsage();
    log(
      `backlog: ${messages.length} queued in ${round(setupSeconds)} s; draining with ${options.containers} containers at ${pace ?? 'no steady pace, Retry-After only,'}/s each (limit ${options.rate}/s)`,
    );
    const stored = () =>
      aws.events.entries().filter((event) => event['detail-type'] === DETAIL_TYPES.resultStored);
    const started = Date.now();
    await Promise.all(workers.map((worker) => worker.request({ type: 'start' })));
    // Stalled: nothing announced for this long (a failed record is back after 30 s).
    const stallMs = 90_000;
    let lastCount = 0;
    let lastProgress = Date.now();
    let lastLog = Date.now();
    let drainedAt = started;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const count = stored().length;
      if (count > lastCount) {
        lastCount = count;
        lastProgress = Date.now();
        drainedAt = lastProgress;
      }
      if (count >= messages.length) break;
      if (Date.now() - lastProgress > stallMs)
        throw new Error(`backlog stalled at ${count} of ${messages.length}`);
      if (Date.now() - lastLog >= 10_000) {
        lastLog = Date.now();
        const seconds = (lastLog - started) / 1000;
        log(`backlog: ${count} stored after ${round(seconds)} s (${round(count / seconds)}/s)`);
      }
    }
    const figures = await Promise.all(
      workers.map((worker) => worker.request<BacklogWorkerFigures>({ type: 'stop' })),
    );
    const drainSeconds = (drainedAt - started) / 1000;
    const mainCpuMs = (process.cpuUsage(mainCpu).user + process.cpuUsage(mainCpu).system) / 1000;
    const stats = await service.request<{
      cpuMs: number;
      rateLimited: number;
      maxFetchesPerResult: number;
      rssPeakBytes: number;
    }>({ type: 'stats' });
    const depth = await queueDepth(sqs, resources.queueUrl);
    const dlq = await queueDepth(sqs, resources.dlqUrl);

    const announced = new Map<string, number>();
    for (const event of stored()) {
      const resultId = (event.detail as { resultId?: string }).resultId ?? '';
      announced.set(resultId, (announced.get(resultId) ?? 0) + 1);
    }
    const checks = {
      stored: announced.size,
      announcedTwice: [...announced.values()].filter((n) => n > 1).length,
      missing: messages.filter((m) => !announced.has(m.resultId)).length,
      queueLeft: depth.visible + depth.inFlight + depth.delayed,
      dlq: dlq.visible + dlq.inFlight + dlq.delayed,
    };
    const sum = (pick: (f: BacklogWorkerFigures) => number) => figures.reduce((n, f) => n + pick(f), 0);
    const achievedRate = messages.length / drainSeconds;
    const result: BacklogFigures = {
      backlog: messages.length,
      mix: mix.map(({ label, count }) => ({ label, count })),
      allowedRate: options.rate,
      containers: options.containers,
      pacePerContainer: pace,
      drainSeconds: round(drainSeconds),
      achievedRate: round(achievedRate),
      rateShare: round(achievedRate / options.rate, 3),
      rateLimited: stats.rateLimited - before.rateLimited,
      invocations: sum((f) => f.invocations),
      failedRecords: sum((f) => f.failed),
      redeliveredRecords: sum((f) => f.redelivered),
      maxFetchesPerResult: stats.maxFetchesPerResult,
      cpuMsPerResult: round(sum((f) => f.cpuMs) / messages.length),
      emulatorCpuMsPerResult: round(mainCpuMs / messages.length),
      serviceCpuMsPerResult: round((stats.cpuMs - before.cpuMs) / messages.length),
      containerRssPeakBytes: Math.max(...figures.map((f) => f.rssPeakBytes)),
      containerRssGrowthBytes: Math.max(...figures.map((f) => f.rssPeakBytes - f.rssBaselineBytes)),
      serviceRssPeakBytes: stats.rssPeakBytes,
      setupSeconds: round(setupSeconds),
      checks,
    };
    if (checks.missing > 0 || checks.announcedTwice > 0 || checks.queueLeft > 0 || checks.dlq > 0) {
      throw new Error(
        `backlog bench: results lost, announced twice or in the DLQ: ${JSON.stringify(checks)}`,
      );
    }
    return result;
  } finally {
    await stage.close();
  }
}

/** The mix's counts for a backlog of `total`: the rarer kinds rounded, the tiny ones the rest. */
function mixOf(total: number): (SeedGroup & { label: string })[] {
  const [first, ...rest] = BACKLOG_MIX;
  const counts = rest.map((g) => ({ ...g, count: Math.round(total * g.share) }));
  const firstCount = total - counts.reduce((n, g) => n + g.count, 0);
  return [{ ...first!, count: firstCount }, ...counts]
    .filter((g) => g.count > 0)
    .map(({ share: _, ...group }) => group);
}

function mixLine(mix: readonly { label: string; count: number }[]): string {
  return mix.map((g) => `${g.count} ${g.label}`).join(', ');
}

/** The figures as a table. */
export function backlogTable(figures: BacklogFigures): string {
  return formatTable(
    [
      'results',
      'limit/s',
      'containers × pace/s',
      'drain s',
      'results/s',
      'of limit',
      '429s',
      'failed/redelivered',
      'DLQ',
      'CPU ms/result (handler+emulators+service)',
      'container RSS MiB (+growth)',
      'service RSS MiB',
    ],
    [
      [
        figures.backlog,
        figures.allowedRate,
        `${figures.containers} × ${figures.pacePerContainer ?? 'unpaced'}`,
        figures.drainSeconds,
        figures.achievedRate,
        `${round(figures.rateShare * 100)} %`,
        figures.rateLimited,
        `${figures.failedRecords}/${figures.redeliveredRecords}`,
        figures.checks.dlq,
        `${figures.cpuMsPerResult}+${figures.emulatorCpuMsPerResult}+${figures.serviceCpuMsPerResult}`,
        `${mib(figures.containerRssPeakBytes)} (+${mib(figures.containerRssGrowthBytes)})`,
        mib(figures.serviceRssPeakBytes),
      ],
    ],
  );
}

/** The checks line under the table. */
export function backlogChecks(figures: BacklogFigures): string {
  const { checks } = figures;
  return (
    `checks: ${checks.stored} of ${figures.backlog} stored and announced once (${checks.missing} missing, ` +
    `${checks.announcedTwice} twice), ${checks.queueLeft} left in the queue, ${checks.dlq} in the DLQ; ` +
    `at most ${figures.maxFetchesPerResult} fetch per result; mix ${mixLine(figures.mix)}; setup ${figures.setupSeconds} s`
  );
}

/** Help lines of the backlog bench's flags (also in `npm run bench -- --help`). */
export const BACKLOG_FLAGS_HELP = `  --backlog N       pending results queued at once (default ${DEFAULT_BACKLOG_OPTIONS.backlog})
  --rate R          the service's rate limit, requests per second; 429 with Retry-After above it
                    (default ${DEFAULT_BACKLOG_OPTIONS.rate})
  --containers N    fetch-result containers draining at once, each at rate / N (default ${DEFAULT_BACKLOG_OPTIONS.containers})
  --unpaced         containers without a steady pace: only a 429's Retry-After holds them`;

/** `npx tsx bench/backlog.ts --help`. */
export const BACKLOG_USAGE = `Usage: npx tsx bench/backlog.ts [flags]

The backlog bench (see docs/benchmarks.md). Flags:
${BACKLOG_FLAGS_HELP}
  -h, --help        show this help`;

/** Options from the parsed flags (`BACKLOG_FLAGS`) over the defaults; a bad value is a usage error. */
export function backlogOptionsFromValues(values: BenchValues): BacklogBenchOptions {
  return {
    backlog: countFlag(values, 'backlog', DEFAULT_BACKLOG_OPTIONS.backlog, 100_000),
    rate: countFlag(values, 'rate', DEFAULT_BACKLOG_OPTIONS.rate, 10_000),
    containers: countFlag(values, 'containers', DEFAULT_BACKLOG_OPTIONS.containers, 32),
    ...(values['unpaced'] === true && { unpaced: true }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = optionsOrExit(
    parseBenchArgs(process.argv.slice(2), BACKLOG_FLAGS, backlogOptionsFromValues),
    'bench/backlog',
    BACKLOG_USAGE,
  );
  const figures = await runBacklogBench({ ...options, log: console.error });
  console.log(backlogTable(figures));
  console.log(backlogChecks(figures));
  console.log(JSON.stringify(figures, null, 2));
}
