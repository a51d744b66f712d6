/**
 * The cost section of `npm run bench` (docs/benchmarks.md, "Full cost per 1,000 results"): for each
 * size profile the full cost per 1,000 results of the pipeline beside its naive peer, both measured in
 * the same run (`bench/sizes.ts`), under production's settings from cdk.json and the assumptions printed
 * with them; and the tracing A/B — the same handler with X-Ray tracing on (a sampled trace header per
 * result, a local UDP listener as the daemon) and off, alternating, so the CPU tracing costs is measured.
 */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseEnvironmentConfig } from '../../infra/config';
import { DEFAULT_LATE_READS_PER_OBJECT, S3_STORAGE_PRICES } from '../../shared/storage-plan';
import type { BundleFigures } from '../bundles';
import { runSizeBench, SIZE_PROFILES, type SizeFigures, type SizeProfile } from '../sizes';
import type { WebhookBenchResult } from '../webhook';
import {
  type CostAssumptions,
  type FullCost,
  fullCost,
  type ResultShape,
  storageOptions,
} from './cost-model';
import { PRICE_SOURCES, PRICES, type RequestCounts } from './prices';
import { formatTable, mib, round } from './stats';
import { newTraceHeader } from './trace-header';

/** Figures of other benches of the same run the cost uses, when they ran. */
export interface RunFigures {
  /** CPU of the webhook handler per accepted request (ms), from the webhook bench. */
  webhookCpuMs?: number;
  /** Cold import of the fetch-result bundle (ms), from the bundle bench. */
  fetchResultImportMs?: number;
}

/** Production's settings (cdk.json) that the cost depends on. */
function production() {
  const cdkJson = JSON.parse(
    readFileSync(fileURLToPath(new URL('../../cdk.json', import.meta.url)), 'utf8'),
  ) as {
    context: { environments: Record<string, unknown> };
  };
  return parseEnvironmentConfig('production', cdkJson.context.environments['production']);
}

/**
 * The assumptions of the cost: production's configuration, this run's webhook CPU and bundle import
 * time when measured, and stated figures for what a bench here cannot see.
 */
export function costAssumptions(run: RunFigures): { assumptions: CostAssumptions; notes: string[] } {
  const config = production();
  const traced = (['webhook', 'fetch-result'] as const).filter((f) => config.tracing[f] === 'active').length;
  const vcpu = Math.min(1, config.fetchResultMemoryMb / 1769);
  // INIT is the bundle's import and the clients' set-up, CPU-bound: this machine's import time at the
  // function's vCPU share (an upper bound: Lambda gives INIT the same share or more).
  const initSeconds = round((run.fetchResultImportMs ?? 140) / 1000 / vcpu, 2);
  const storageClasses = config.storageClasses;
  const assumptions: CostAssumptions = {
    retentionDays: config.retentionDays,
    logRetentionDays: config.logRetentionDays,
    memoryMb: config.fetchResultMemoryMb,
    resultsPerSecond: 0.1,
    tracedFunctions: traced,
    coldStartShare: 0.05,
    initSeconds,
    pollEnqueueShare: 0.1,
    webhookCpuMs: round(run.webhookCpuMs ?? 1, 2),
    webhookWaitMs: 15,
    waf: config.webhookProtection !== false,
    bucketKeys: true,
    storageClasses,
    // docs/storage.md, "Reads": a downstream system and a reviewer read each object on its first day;
    // later reads are what production's plan assumes (cdk.json), or the plan's default.
    earlyReadsPerObject: 2,
    lateReadsPerObject:
      storageClasses === false ? DEFAULT_LATE_READS_PER_OBJECT : storageClasses.lateReadsPerObject,
    erasedShare: 0.01,
    erasedAtDay: 30,
    eventBytes: 1024,
    platformLogBytes: 700,
    webhookLogBytes: 400,
    accessLogBytes: 450,
  };
  const notes = [
    `production in cdk.json: retention ${config.retentionDays} days, logs ${config.logRetentionDays} days, fetch-result ${config.fetchResultMemoryMb} MB, WAF ${assumptions.waf ? 'on' : 'off'}, X-Ray active on ${traced} of webhook/fetch-result; S3 Bucket Keys on (infra/constructs/data-bucket.ts)`,
    `measured in this run: fetch-result (and the naive peer) time, CPU, peak RSS, requests, log bytes; webhook CPU ${assumptions.webhookCpuMs} ms/request${run.webhookCpuMs === undefined ? ' (not measured in this run: assumed)' : ''}; INIT ${initSeconds} s = import ${run.fetchResultImportMs ?? '140 (assumed)'} ms / ${vcpu.toFixed(3)} vCPU`,
    `storage: ${storageClasses === false ? 'storageClasses false (every object in S3 Standard)' : `storageClasses ${JSON.stringify(storageClasses)} (shared/storage-plan.ts)`}; the naive peer keeps every object in S3 Standard; both read the same: ${assumptions.earlyReadsPerObject} full reads of each object on its first day, ${assumptions.lateReadsPerObject} later (docs/storage.md); ${assumptions.erasedShare} of results erased on day ${assumptions.erasedAtDay}; S3 prices of ${S3_STORAGE_PRICES.date} (${S3_STORAGE_PRICES.source}); data transfer out of the region not counted (readers in the region)`,
    `assumed: ${assumptions.resultsPerSecond} results/s (X-Ray samples all up to 1/s, then 5 %; Firehose batches), ${assumptions.coldStartShare} of results on a cold fetch-result, ${assumptions.pollEnqueueShare} also enqueued by the poll, a ${assumptions.webhookWaitMs} ms SendMessage, ${assumptions.eventBytes} B events, ${assumptions.platformLogBytes} B of Lambda platform records per invocation, ${assumptions.webhookLogBytes} B webhook log, ${assumptions.accessLogBytes} B access log line`,
  ];
  return { assumptions, notes };
}

/** One profile's cost: the pipeline and its naive peer. */
export interface ProfileCost {
  profile: string;
  bodyBytes: number;
  shape: ResultShape;
  pipeline: FullCost;
  naive?: FullCost;
}

function shapeOf(row: SizeFigures): ResultShape {
  const profile = SIZE_PROFILES.find((p) => p.name === row.profile);
  return {
    images: row.images,
    imageBytes: profile?.imageBytes ?? Math.floor((row.bodyBytes * 0.75) / Math.max(1, row.images)),
  };
}

/** The full cost of each measured profile. */
export function profileCosts(rows: readonly SizeFigures[], a: CostAssumptions): ProfileCost[] {
  const costs: ProfileCost[] = [];
  for (const row of rows) {
    if (!row.ok || !row.store || !row.requests) continue;
    const cold: RequestCounts = row.coldStartRequests ?? {};
    const shape = shapeOf(row);
    const pipeline = fullCost(
      {
        ms: row.store.ms,
        cpuMs: row.store.cpuMs,
        peakRssBytes: row.store.peakRssBytes,
        requests: row.requests,
        logBytes: row.logBytes ?? 0,
        itemBytes: row.itemBytes ?? 0,
        indexesWritten: row.indexesWritten ?? 0,
      },
      shape,
      a,
      cold,
    );
    const naive =
      row.naive &&
      fullCost(
        {
          ms: row.naive.ms,
          cpuMs: row.naive.cpuMs,
          peakRssBytes: row.naive.peakRssBytes,
          requests: row.naive.requests,
          logBytes: row.naive.logBytes,
          itemBytes: row.naive.itemBytes,
          indexesWritten: 0,
        },
        shape,
        // The naive peer's bucket: every object in S3 Standard for the whole retention.
        { ...a, storageClasses: false },
        cold,
      );
    costs.push({ profile: row.profile, bodyBytes: row.bodyBytes, shape, pipeline, ...(naive && { naive }) });
  }
  return costs;
}

const SHORT: Record<string, string> = {
  'Lambda fetch-result': 'Lambda',
  'Lambda cold starts (INIT)': 'INIT',
  'Webhook (API Gateway, WAF, Lambda)': 'webhook',
  SQS: 'SQS',
  DynamoDB: 'DynamoDB',
  'S3 requests': 'S3 req',
  'S3 storage': 'S3 store',
  'S3 transitions': 'S3 trans',
  'S3 reads': 'S3 reads',
  KMS: 'KMS',
  'Secrets Manager': 'SM',
  'EventBridge (events, archive)': 'EB',
  'Analytics (Firehose, transform)': 'analytics',
  'CloudWatch Logs': 'logs',
  'X-Ray': 'X-Ray',
};

const money = (usd: number) => (usd >= 0.1 ? round(usd, 3) : Number(usd.toPrecision(2)));

/** The table: per profile the pipeline and the naive peer, USD per 1,000 results by service. */
export function costTable(costs: readonly ProfileCost[]): string {
  const services = Object.keys(SHORT);
  const rows: (string | number)[][] = [];
  for (const c of costs) {
    for (const [who, cost] of [
      ['pipeline', c.pipeline],
      ['naive', c.naive],
    ] as const) {
      if (!cost) continue;
      const by = new Map(cost.lines.map((l) => [l.service, l.usd]));
      rows.push([
        who === 'pipeline' ? c.profile : '',
        who,
        cost.memoryMb,
        ...services.map((s) => money(by.get(s) ?? 0)),
        money(cost.total),
      ]);
    }
  }
  return formatTable(['profile', 'run', 'MB', ...services.map((s) => SHORT[s]!), '$/1k total'], rows);
}

/** The arithmetic of each line, for the pipeline, and where the naive peer differs. */
export function costDetails(
  costs: readonly ProfileCost[],
  a: CostAssumptions,
  notes: readonly string[],
): string {
  const lines = [
    `Full cost per 1,000 results at list prices (${PRICES.region}, as of ${PRICES.date}; sources in bench/support/prices.ts, e.g. ${PRICE_SOURCES.xrayTraceRecorded}):`,
    ...notes.map((n) => `  ${n}`),
  ];
  for (const c of costs) {
    lines.push(
      `${c.profile} (body ${mib(c.bodyBytes)} MiB): pipeline $${round(c.pipeline.total, 4)}, naive ${c.naive ? `$${round(c.naive.total, 4)}` : '-'}`,
    );
    for (const l of c.pipeline.lines)
      lines.push(`  ${l.service}: ${l.arithmetic} → $${l.usd.toPrecision(3)}`);
    for (const l of c.naive?.lines ?? []) {
      const same = c.pipeline.lines.find((p) => p.service === l.service)?.arithmetic === l.arithmetic;
      if (!same) lines.push(`  naive ${l.service}: ${l.arithmetic} → $${l.usd.toPrecision(3)}`);
    }
    lines.push(
      `  storage options at ${a.retentionDays} days (storage + transitions + reads per 1,000 results): ${storageOptions(c.shape, a)}`,
    );
  }
  return lines.join('\n');
}

/** Costs that do not grow with results: per month, production's settings (estimates, not measured). */
export function fixedMonthly(a: CostAssumptions): string {
  const polls = (365 / 12) * 24 * 60;
  const items: [string, number][] = [
    [
      'poll every minute: Lambda 512 MB × 0.3 s + requests',
      polls * (0.5 * 0.3 * PRICES.lambdaGbSecond + PRICES.lambdaRequest),
    ],
    ['poll traces (active)', polls * PRICES.xrayTraceRecorded],
    ['KMS key', PRICES.kmsKeyMonth],
    ['3 secrets', 3 * PRICES.secretMonth],
    ...(a.waf
      ? ([['WAF web ACL + 2 rules', PRICES.wafWebAclMonth + 2 * PRICES.wafRuleMonth]] as [string, number][])
      : []),
    ['SQS event source long polls (5 pollers × 3/min)', 5 * 3 * polls * PRICES.sqsRequest],
  ];
  const total = items.reduce((n, [, v]) => n + v, 0);
  return `Fixed per month (not per result; estimates): ${items.map(([k, v]) => `${k} $${round(v, 2)}`).join('; ')}; total ≈ $${round(total, 2)} plus alarms ($0.10 each), custom metrics ($0.30 each) and the dashboard ($3).`;
}

/** One profile of the tracing A/B. */
export interface TracingFigures {
  profile: string;
  /** The size bench's own environment: no Lambda variables, so the X-Ray SDK is not in Lambda mode. */
  benchCpuMs: number;
  benchMs: number;
  /** Lambda's environment with tracing off, and traced. */
  offCpuMs: number;
  onCpuMs: number;
  offMs: number;
  onMs: number;
  /** Segment documents (UDP datagrams) and their bytes per traced result. */
  segmentsPerResult: number;
  segmentBytesPerResult: number;
}

/** Profiles of the tracing A/B: small, medium and many-objects bodies. */
const TRACING_PROFILES = ['10mb', '50mb', 'many'];

/**
 * Runs each profile three ways, one after the other in one size bench run: in the size bench's own
 * environment (no Lambda variables), in Lambda's (`AWS_EXECUTION_ENV`, `LAMBDA_TASK_ROOT`) with the tracer
 * off (`tracing: off`), and traced (the X-Ray SDK in Lambda mode, a sampled trace header per result, a
 * local daemon); the handler's median CPU and time per result of each. The first two load no X-Ray SDK
 * (`shared/tracing.ts`), so "traced" against "off" is all of tracing's CPU, its async hooks included.
 */
export async function runTracingAb(options: {
  repeats?: number;
  log?: (line: string) => void;
}): Promise<TracingFigures[]> {
  const daemon = createSocket('udp4');
  const received = new Map<string, { datagrams: number; bytes: number }>();
  let current = '';
  daemon.on('message', (message) => {
    const counter = received.get(current) ?? { datagrams: 0, bytes: 0 };
    counter.datagrams++;
    counter.bytes += message.byteLength;
    received.set(current, counter);
  });
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${daemon.address().port}`;
  const lambdaEnv = {
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    LAMBDA_TASK_ROOT: '/var/task',
    AWS_XRAY_DAEMON_ADDRESS: address,
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  };
  const off = { ...lambdaEnv, POWERTOOLS_TRACE_ENABLED: 'false' };
  const traced = {
    ...lambdaEnv,
    POWERTOOLS_TRACE_ENABLED: 'true',
    _X_AMZN_TRACE_ID: newTraceHeader(),
    BENCH_XRAY_TRACED: '1',
  };
  const profiles: SizeProfile[] = SIZE_PROFILES.filter((p) => TRACING_PROFILES.includes(p.name)).flatMap(
    (p) => [
      { ...p, name: `${p.name}/bench`, noBaseline: true },
      { ...p, name: `${p.name}/off`, noBaseline: true, workerEnv: off },
      { ...p, name: `${p.name}/xray`, noBaseline: true, workerEnv: traced },
    ],
  );
  try {
    const repeats = options.repeats ?? 3;
    const rows = await runSizeBench({
      profiles,
      repeats,
      log: (line) => {
        const match = /^sizes: (\S+)/.exec(line);
        if (match) current = match[1]!;
        options.log?.(line);
      },
    });
    const figures: TracingFigures[] = [];
    for (const name of TRACING_PROFILES) {
      const bench = rows.find((r) => r.profile === `${name}/bench`);
      const off = rows.find((r) => r.profile === `${name}/off`);
      const on = rows.find((r) => r.profile === `${name}/xray`);
      if (!bench?.store || !off?.store || !on?.store) continue;
      // The warm-up result is traced too: one more than the repeats.
      const got = received.get(`${name}/xray`) ?? { datagrams: 0, bytes: 0 };
      figures.push({
        profile: name,
        benchCpuMs: bench.store.cpuMs,
        benchMs: bench.store.ms,
        offCpuMs: off.store.cpuMs,
        onCpuMs: on.store.cpuMs,
        offMs: off.store.ms,
        onMs: on.store.ms,
        segmentsPerResult: round(got.datagrams / (repeats + 1), 1),
        segmentBytesPerResult: Math.round(got.bytes / (repeats + 1)),
      });
    }
    return figures;
  } finally {
    daemon.close();
  }
}

/** The tracing A/B as a table, with what tracing costs per 1,000 results in CPU and in traces. */
export function tracingTable(figures: readonly TracingFigures[], a: CostAssumptions): string {
  return formatTable(
    [
      'profile',
      'CPU ms bench env',
      'CPU ms off',
      'CPU ms X-Ray',
      'CPU +%',
      'ms bench env',
      'ms off',
      'ms X-Ray',
      'segments/result',
      'KiB/result',
      '$/1k CPU of tracing',
      '$/1k traces',
    ],
    figures.map((f) => {
      const extraCpuS = Math.max(0, f.onCpuMs - f.offCpuMs) / 1000;
      const gbs = (a.memoryMb / 1024) * (extraCpuS / Math.min(1, a.memoryMb / 1769));
      return [
        f.profile,
        f.benchCpuMs,
        f.offCpuMs,
        f.onCpuMs,
        round((100 * (f.onCpuMs - f.offCpuMs)) / f.offCpuMs, 1),
        f.benchMs,
        f.offMs,
        f.onMs,
        f.segmentsPerResult,
        round(f.segmentBytesPerResult / 1024, 1),
        Number((1000 * gbs * PRICES.lambdaGbSecond).toPrecision(2)),
        1000 * PRICES.xrayTraceRecorded,
      ];
    }),
  );
}

/** The cost section of a run: its text for stdout and its figures for `latest.json`. */
export function costSectionOf(run: {
  sizes: readonly SizeFigures[];
  webhook?: WebhookBenchResult | undefined;
  bundles?: readonly BundleFigures[] | undefined;
  tracing?: readonly TracingFigures[] | undefined;
}) {
  const webhookCpuMs = run.webhook?.scenarios.find((s) => s.scenario === 'accepted')?.cpuMsPerRequest;
  const fetchResultImportMs = run.bundles?.find((b) => b.entry.includes('fetch-result'))?.importMs.median;
  const { assumptions, notes } = costAssumptions({
    ...(webhookCpuMs !== undefined && { webhookCpuMs }),
    ...(fetchResultImportMs !== undefined && { fetchResultImportMs }),
  });
  const costs = profileCosts(run.sizes, assumptions);
  const text = [
    'full cost per 1,000 results (USD, list prices): the pipeline beside the naive peer (whole body buffered, JSON.parse, Buffer.from and one PutObject per image), both measured in this run; MB = the Lambda memory its peak RSS needs',
    costTable(costs),
    costDetails(costs, assumptions, notes),
    fixedMonthly(assumptions),
    ...(run.tracing && run.tracing.length > 0
      ? [
          "\nX-Ray tracing A/B (medians per result: the size bench's environment; Lambda's with tracing off; traced with a sampled header per result)",
          tracingTable(run.tracing, assumptions),
        ]
      : []),
  ].join('\n');
  return { text, figures: { assumptions, costs, tracing: run.tracing } };
}

// `npx tsx bench/support/cost-section.ts [REPEATS]`: the tracing A/B alone (REPEATS results per arm).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const repeats = Number(process.argv[2] ?? 3);
  if (!Number.isInteger(repeats) || repeats < 1 || repeats > 50) {
    console.error('usage: npx tsx bench/support/cost-section.ts [REPEATS 1..50]');
    process.exit(2);
  }
  const figures = await runTracingAb({ repeats, log: console.error });
  console.log(tracingTable(figures, costAssumptions({}).assumptions));
}
