/**
 * Size bench: the fetch-result handler against results of 1, 10, 50 and 200 MB and one of many small
 * images, side by side, each round beside the floor of the same work (`support/floor.ts`) and a raw copy
 * of the same body through the same service and emulator. Processes:
 *
 * - this one: the local AWS emulators behind counting proxies (requests per service and operation);
 * - `support/stream-service.ts`: generates each result body as it writes it (never in memory);
 * - `support/size-worker.ts`, one per profile: only the handler, **bundled as CDK bundles it** and run by
 *   plain Node; its kernel peak RSS (VmHWM) per request is the memory figure. With `--huge`, a last run
 *   processes a 1 GiB body with the worker held to 256 MB: V8's heap limit (`--max-old-space-size`) and,
 *   because Buffers live outside that heap, a watchdog that kills the worker when its RSS passes 256 MB —
 *   what Lambda does at the function's memory size — plus the exact check VmHWM ≤ 256 MB at the end.
 *
 * A profile whose run fails (error, out of memory, killed) is a failed row, never a crash of the bench.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { measureBundle } from '../infra/bundling/bundle-size';
import { clientConfig } from '../local/client-config';
import { METRICS } from '../shared/metrics-names';
import { dynamoItemSize } from '../shared/store/item';
import { RESULTS_TABLE } from '../shared/store/table-schema';
import { benchEnv } from './support/bench-env';
import type { startChild } from './support/child';
import { startCountingProxies } from './support/counting-proxy';
import { FUNCTION_MEMORY_MB, lambdaNodeFlags } from './support/lambda-flags';
import { type Cost, costPerThousand, LAMBDA_MB_PER_VCPU, PRICES, type RequestCounts } from './support/prices';
import type { Measured } from './support/size-worker';
import { startBenchStage } from './support/stage';
import { formatTable, median, mib, round } from './support/stats';
import { imageSpans } from './support/stream-layout';

/** One generated result shape. */
export interface SizeProfile {
  name: string;
  images: number;
  /** Decoded bytes per image (the body carries 4/3 of it as base64). */
  imageBytes: number;
  /** Hold the handler process to this many MB (heap limit + RSS watchdog); none when unset. */
  memoryLimitMb?: number;
  /** Skip the raw-copy baseline and the naive peer (the 1 GiB run: its point is the memory bound). */
  noBaseline?: boolean;
  /** Variables added to the handler process's environment (the tracing A/B, `support/cost-section.ts`). */
  workerEnv?: Record<string, string>;
  /** Rounds when the run does not set them (`repeats`). @default DEFAULT_SIZE_REPEATS */
  rounds?: number;
}

/**
 * Rounds of the profiles of 10 MiB and less: a round takes under a second there, and the shared machine
 * moves a single round's throughput by up to 3× (docs/benchmarks.md), so their median needs more rounds.
 */
export const SHORT_BODY_ROUNDS = 11;

/** The default profiles: bodies of about 1, 10, 50 and 200 MiB, and 1,000 images of 50 KiB (67 MiB). */
export const SIZE_PROFILES: readonly SizeProfile[] = [
  { name: '1mb', images: 4, imageBytes: 192 * 1024, rounds: SHORT_BODY_ROUNDS },
  { name: '10mb', images: 10, imageBytes: 768 * 1024, rounds: SHORT_BODY_ROUNDS },
  { name: '50mb', images: 20, imageBytes: 1920 * 1024 },
  { name: '200mb', images: 40, imageBytes: 3840 * 1024 },
  { name: 'many', images: 1000, imageBytes: 50 * 1024 },
];

/** `--huge`: a 1 GiB body (64 images of 12 MiB) with the handler process held to 256 MB. */
export const HUGE_PROFILE: SizeProfile = {
  name: '1gb@256mb',
  images: 64,
  imageBytes: 12 * 1024 * 1024,
  memoryLimitMb: 256,
  noBaseline: true,
};

/** Kills a runaway unheld worker before it starves the machine. */
const UNHELD_RSS_CAP_MB = 6 * 1024;

/** Options of the size bench. */
export interface SizeBenchOptions {
  profiles: readonly SizeProfile[];
  /**
   * Results handled per profile after the warm-up (a held profile always handles one): a warm Lambda
   * container handles a stream of results, so time, CPU and cost are the median over them.
   * @default the profile's `rounds`, else DEFAULT_SIZE_REPEATS
   */
  repeats?: number;
  log?: (line: string) => void;
}

/** Results per profile unless `repeats` or the profile's `rounds` say otherwise. */
export const DEFAULT_SIZE_REPEATS = 5;

/** One row. */
export interface SizeFigures {
  profile: string;
  ok: boolean;
  /** Why the run failed (OOM, killed at the limit, handler error), when it did. */
  failure?: string;
  bodyBytes: number;
  images: number;
  memoryLimitMb?: number;
  raw?: { ms: number; mbPerSecond: number; rssGrowthBytes: number };
  /** Median time and CPU over the results handled (`samples`); RSS growth is the largest. */
  store?: {
    ms: number;
    cpuMs: number;
    mbPerSecond: number;
    rssGrowthBytes: number;
    peakRssBytes: number;
    samples: { ms: number; cpuMs: number }[];
  };
  /** fetch-and-store throughput over the raw copy's (information: no target). */
  ratio?: number;
  /**
   * Per round (raw copy, floor, result, in that order each round): wall and CPU ms of each, so spreads
   * and per-round ratios can be shown (`bench/support/size-floor.ts`).
   */
  rounds?: Round[];
  tokenRequests?: number;
  serviceGets?: number;
  requests?: RequestCounts;
  itemBytes?: number;
  /** Indexes whose keys the item has (each item write is also a write to each of them). */
  indexesWritten?: number;
  cost?: Cost;
  /** Median bytes the handler wrote to stdout per result (log lines and metrics: CloudWatch Logs). */
  logBytes?: number;
  /** Requests of the warm-up result, the first of a fresh process (what a cold start adds). */
  coldStartRequests?: RequestCounts;
  /** The naive peer (`support/naive-peer.ts`) on the same body in the same process, after the results. */
  naive?: NaiveFigures;
}

/** Medians of the naive peer's runs; its requests are those of its first run. */
export interface NaiveFigures {
  ms: number;
  cpuMs: number;
  rssGrowthBytes: number;
  peakRssBytes: number;
  logBytes: number;
  requests: RequestCounts;
  /** Size of the item it wrote, as DynamoDB counts it (bytes). */
  itemBytes: number;
}

/** One round of a profile: each measured request's wall and CPU milliseconds. */
export interface Round {
  raw?: Timed;
  floor?: Timed;
  store: Timed;
  /** Summed wall ms of the result's DynamoDB and EventBridge requests (what its guarantees owe). */
  guaranteesMs?: number;
}

/**
 * One measured request: its wall and CPU milliseconds in the worker, and the CPU this process spent
 * meanwhile (`hostCpuMs`): the emulators and the counting proxies serving its requests, and the bench's
 * own few timers. The worker's requests are served here on the same cores, so this is what the wall
 * time of a request with many requests to the emulators waits for.
 */
export interface Timed {
  ms: number;
  cpuMs: number;
  hostCpuMs?: number;
}

/** Runs every profile; never throws for a profile's failure (that is a row). */
export async function runSizeBench(options: SizeBenchOptions): Promise<SizeFigures[]> {
  const log = options.log ?? (() => undefined);
  const stage = await startBenchStage('support/stream-service.ts', {
    prefix: 'idv-sizes',
    visibilityTimeoutSeconds: 900,
  });
  const { service, serviceUrl, aws, resources, cleanups } = stage;
  const dir = mkdtempSync(path.join(tmpdir(), 'idv-sizes-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  try {
    const proxies = await startCountingProxies(aws.env());
    cleanups.push(() => proxies.close());
    const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
    cleanups.push(async () => dynamo.destroy());
    const worker = path.join(dir, 'size-worker.mjs');
    await measureBundle('bench/support/size-worker.ts', worker);
    const env = {
      // As deployed (INFO, metrics as EMF lines): the bytes it logs are what CloudWatch Logs bills.
      ...benchEnv(aws, resources, { serviceUrl, metrics: true }),
      ...proxies.env,
      POWERTOOLS_METRICS_NAMESPACE: METRICS.namespace,
      POWERTOOLS_SERVICE_NAME: METRICS.serviceName,
      POWERTOOLS_LOG_LEVEL: 'INFO',
    };
    const rows: SizeFigures[] = [];
    for (const profile of options.profiles) {
      log(`sizes: ${profile.name} (${profile.images} images of ${round(profile.imageBytes / 1024)} KiB)`);
      rows.push(
        await runProfile(profile, options.repeats ?? profile.rounds ?? DEFAULT_SIZE_REPEATS, {
          worker,
          env,
          serviceUrl,
          bucket: resources.bucketName,
          table: resources.tableName,
          eventBus: resources.eventBusName,
          service,
          proxies,
          dynamo,
        }),
      );
      const row = rows.at(-1)!;
      log(`  ${row.ok ? 'ok' : `FAILED: ${row.failure}`}`);
    }
    return rows;
  } finally {
    await stage.close();
  }
}

interface Harness {
  worker: string;
  env: Record<string, string>;
  serviceUrl: string;
  bucket: string;
  table: string;
  eventBus: string;
  service: ReturnType<typeof startChild>;
  proxies: Awaited<ReturnType<typeof startCountingProxies>>;
  dynamo: DynamoDBDocumentClient;
}

/** A forked worker with request/answer over IPC and a death that rejects every pending request. */
function startWorker(file: string, env: Record<string, string>, limitMb: number | undefined) {
  const child: ChildProcess = fork(file, [], {
    // BENCH_SIZE_WORKER_FLAGS adds Node flags to the handler process only, e.g. `--cpu-prof --cpu-prof-dir=DIR`.
    // Lambda's own V8 memory flags for the function's memory (the held run's limit, else the stack's).
    execArgv: [
      ...lambdaNodeFlags(limitMb ?? FUNCTION_MEMORY_MB),
      ...(process.env.BENCH_SIZE_WORKER_FLAGS ?? '').split(' ').filter(Boolean),
    ],
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      // A CPU profile of each handled result alone (size-worker.ts).
      ...(process.env.BENCH_SIZE_PROFILE_DIR && {
        BENCH_SIZE_PROFILE_DIR: process.env.BENCH_SIZE_PROFILE_DIR,
      }),
      ...(process.env.BENCH_SIZE_PROFILE && { BENCH_SIZE_PROFILE: process.env.BENCH_SIZE_PROFILE }),
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let killedAt: number | undefined;
  const capBytes = (limitMb ?? UNHELD_RSS_CAP_MB) * 1024 * 1024;
  const watchdog = setInterval(() => {
    try {
      const rss =
        Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) * 1024;
      if (rss > capBytes) {
        killedAt = rss;
        child.kill('SIGKILL');
      }
    } catch {
      // The process is gone; the exit handler reports it.
    }
  }, 5);
  let nextId = 1;
  const pending = new Map<
    number,
    { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  let ready: (v: Record<string, unknown>) => void = () => undefined;
  let death: Error | undefined;
  const readyPromise = new Promise<Record<string, unknown>>((resolve, reject) => {
    ready = resolve;
    child.once('exit', () => reject(death));
  });
  child.on('message', (raw) => {
    const message = raw as Record<string, unknown>;
    if (message.type === 'ready') return ready(message);
    const waiter = pending.get(message.id as number);
    pending.delete(message.id as number);
    if (message.type === 'error') waiter?.reject(new Error(String(message.message)));
    else waiter?.resolve(message);
  });
  child.on('exit', (code, signal) => {
    clearInterval(watchdog);
    const oom = /heap out of memory|Allocation failed/i.test(stderr);
    death = new Error(
      killedAt !== undefined
        ? `killed: RSS ${mib(killedAt)} MiB passed the ${capBytes / 1024 / 1024} MB limit`
        : oom
          ? 'JavaScript heap out of memory'
          : `handler process exited (${signal ?? code}): ${stderr.trim().split('\n').at(-1) ?? ''}`,
    );
    for (const waiter of pending.values()) waiter.reject(death);
    pending.clear();
  });
  return {
    ready: readyPromise,
    request(message: Record<string, unknown>): Promise<Record<string, unknown>> {
      if (death) return Promise.reject(death);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ ...message, id });
      });
    },
    close() {
      clearInterval(watchdog);
      if (child.exitCode !== null || child.signalCode !== null) return;
      // Asked to exit (profiles are written), killed if it has not within 5 s.
      if (child.connected) child.send({ type: 'exit', id: 0 });
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, 5_000).unref();
    },
  };
}

async function runProfile(profile: SizeProfile, repeats: number, h: Harness): Promise<SizeFigures> {
  const id = (suffix: string) => `bench-${profile.name.replace(/[^a-z0-9]/g, '')}-${suffix}-${Date.now()}`;
  const add = async (resultId: string, images: number, imageBytes: number) =>
    (await h.service.request<{ bodyBytes: number }>({ type: 'add', resultId, images, imageBytes })).bodyBytes;
  const runs = profile.memoryLimitMb ? 1 : Math.max(1, repeats);
  const measuredIds = Array.from({ length: runs }, (_, i) => id(`result${i}`));
  let bodyBytes = 0;
  for (const resultId of measuredIds) bodyBytes = await add(resultId, profile.images, profile.imageBytes);
  const measuredId = measuredIds[0]!;
  const row: SizeFigures = {
    profile: profile.name,
    ok: false,
    bodyBytes,
    images: profile.images,
    ...(profile.memoryLimitMb && { memoryLimitMb: profile.memoryLimitMb }),
  };
  const worker = startWorker(h.worker, { ...h.env, ...profile.workerEnv }, profile.memoryLimitMb);
  /** A worker request, timed: the worker's figures and this process's CPU meanwhile. */
  const timed = async (w: typeof worker, request: Record<string, unknown>) => {
    const before = process.cpuUsage();
    const measured = (await w.request(request)) as unknown as Measured;
    const host = process.cpuUsage(before);
    const time: Timed = {
      ms: round(measured.ms),
      cpuMs: round(measured.cpuMs),
      hostCpuMs: round((host.user + host.system) / 1000),
    };
    return { measured, time };
  };
  try {
    // Warm-up: module-level work, the token (Secrets Manager, OAuth) and first connections.
    await worker.ready;
    const warmId = id('warm');
    await add(warmId, 1, 10 * 1024);
    h.proxies.reset();
    const warm = (await worker.request({ type: 'handle', resultId: warmId })) as unknown as Measured;
    if (warm.failed > 0) throw new Error('the warm-up result failed');
    // The first result of a fresh process: what a cold start adds (for the cost model).
    row.coldStartRequests = h.proxies.counts();
    // Round by round, so a slow minute of the shared machine touches every column alike: the raw copy,
    // the floor, the result. Requests are counted for the first result (every result makes the same
    // ones); tokens and GETs of the service over all of them.
    const before = await h.service.request<{ tokenRequests: number }>({ type: 'stats' });
    const raws: Measured[] = [];
    const measured: Measured[] = [];
    const rounds: Round[] = [];
    let requests: RequestCounts = {};
    for (let i = 0; i < runs; i++) {
      const current: Partial<Round> = {};
      if (!profile.noBaseline) {
        const rawId = id(`raw${i}`);
        await add(rawId, profile.images, profile.imageBytes);
        const { measured: raw, time: rawTime } = await timed(worker, {
          type: 'raw',
          url: `${h.serviceUrl}/raw/${rawId}`,
          bucket: h.bucket,
          key: `bench-raw/${rawId}`,
        });
        raws.push(raw);
        current.raw = rawTime;
        current.floor = (
          await timed(worker, {
            type: 'floor',
            url: `${h.serviceUrl}/raw/${rawId}`,
            bucket: h.bucket,
            key: `bench-floor/${rawId}`,
            spans: imageSpans(rawId, profile),
            imageBytes: profile.imageBytes,
            resultId: `floor-${rawId}`,
            table: h.table,
            eventBus: h.eventBus,
          })
        ).time;
      }
      const resultId = measuredIds[i]!;
      h.proxies.reset();
      const { measured: run, time: runTime } = await timed(worker, { type: 'handle', resultId });
      if (resultId === measuredId) requests = h.proxies.counts();
      if (run.failed > 0) throw new Error('the handler reported the result as failed (batchItemFailures)');
      measured.push(run);
      current.store = runTime;
      const millis = h.proxies.millis();
      current.guaranteesMs = round(
        [...Object.values(millis['DYNAMODB'] ?? {}), ...Object.values(millis['EVENTBRIDGE'] ?? {})].reduce(
          (n, v) => n + v,
          0,
        ),
      );
      rounds.push(current as Round);
    }
    row.rounds = rounds;
    if (raws.length > 0) {
      const rawMs = median(raws.map((r) => r.ms));
      row.raw = {
        ms: round(rawMs),
        mbPerSecond: round(bodyBytes / 1e6 / (rawMs / 1000), 2),
        rssGrowthBytes: Math.max(...raws.map((r) => r.hwm - r.rssBefore)),
      };
    }
    const after = await h.service.request<{ tokenRequests: number; gets: Record<string, number> }>({
      type: 'stats',
    });
    row.logBytes = median(measured.map((m) => m.logBytes));
    if (!profile.noBaseline) {
      row.naive = await runNaive(worker, runs, h, id, (rid) => add(rid, profile.images, profile.imageBytes));
    }
    const samples = measured.map((m) => ({ ms: round(m.ms), cpuMs: round(m.cpuMs) }));
    const ms = median(samples.map((x) => x.ms));
    const cpuMs = median(samples.map((x) => x.cpuMs));
    const run = measured.reduce((a, b) => (b.hwm - b.rssBefore > a.hwm - a.rssBefore ? b : a));
    row.store = {
      ms,
      cpuMs,
      mbPerSecond: round(bodyBytes / 1e6 / (ms / 1000), 2),
      rssGrowthBytes: run.hwm - run.rssBefore,
      peakRssBytes: Math.max(...measured.map((m) => m.hwm)),
      samples,
    };
    if (row.raw) row.ratio = round(row.store.mbPerSecond / row.raw.mbPerSecond, 2);
    row.tokenRequests = after.tokenRequests - before.tokenRequests;
    row.serviceGets = Math.max(...measuredIds.map((resultId) => after.gets[resultId] ?? 0));
    row.requests = requests;
    const { Item } = await h.dynamo.send(
      new GetCommand({ TableName: h.table, Key: { resultId: measuredId } }),
    );
    row.itemBytes = Item ? dynamoItemSize(Item) : 0;
    const indexesWritten = Item
      ? Object.values(RESULTS_TABLE.indexes).filter(
          (index) => Item[index.partitionKey] !== undefined && Item[index.sortKey] !== undefined,
        ).length
      : 0;
    row.indexesWritten = indexesWritten;
    row.cost = costPerThousand({
      requests,
      itemBytes: row.itemBytes,
      indexesWritten,
      handlerMs: ms,
      handlerCpuMs: cpuMs,
      memoryMb: FUNCTION_MEMORY_MB,
    });
    if (profile.memoryLimitMb && run.hwm > profile.memoryLimitMb * 1024 * 1024) {
      throw new Error(`peak RSS ${mib(run.hwm)} MiB is above the ${profile.memoryLimitMb} MB limit`);
    }
    row.ok = true;
  } catch (error) {
    row.failure = error instanceof Error ? error.message : String(error);
  } finally {
    worker.close();
  }
  return row;
}

/** The naive peer `runs` times on fresh copies of the profile's body; requests of the first run. */
async function runNaive(
  worker: ReturnType<typeof startWorker>,
  runs: number,
  h: Harness,
  id: (suffix: string) => string,
  add: (resultId: string) => Promise<number>,
): Promise<NaiveFigures> {
  const measured: Measured[] = [];
  let requests: RequestCounts = {};
  let firstId = '';
  for (let i = 0; i < runs; i++) {
    const resultId = id(`naive${i}`);
    if (i === 0) firstId = resultId;
    await add(resultId);
    h.proxies.reset();
    measured.push(
      (await worker.request({
        type: 'naive',
        url: `${h.serviceUrl}/raw/${resultId}`,
        resultId,
        bucket: h.bucket,
        table: h.table,
        eventBus: h.eventBus,
      })) as unknown as Measured,
    );
    if (i === 0) requests = h.proxies.counts();
  }
  const { Item } = await h.dynamo.send(
    new GetCommand({ TableName: h.table, Key: { resultId: `naive-${firstId}` } }),
  );
  return {
    ms: round(median(measured.map((m) => m.ms))),
    cpuMs: round(median(measured.map((m) => m.cpuMs))),
    rssGrowthBytes: Math.max(...measured.map((m) => m.hwm - m.rssBefore)),
    peakRssBytes: Math.max(...measured.map((m) => m.hwm)),
    logBytes: median(measured.map((m) => m.logBytes)),
    requests,
    itemBytes: Item ? dynamoItemSize(Item) : 0,
  };
}

const count = (requests: RequestCounts | undefined, service: string) =>
  Object.values(requests?.[service] ?? {}).reduce((n, v) => n + v, 0);
const ops = (requests: RequestCounts | undefined, service: string) =>
  Object.entries(requests?.[service] ?? {})
    .map(([op, n]) => `${op} ${n}`)
    .join(', ');

/** The rows as a table (sizes in MiB, throughput in MB/s, cost in USD per 1,000 results). */
export function sizeTable(rows: readonly SizeFigures[]): string {
  return formatTable(
    [
      'profile',
      'body MiB',
      'images',
      'raw MB/s',
      'store MB/s',
      'store/raw',
      'RSS + MiB',
      'raw RSS +',
      'CPU s',
      'tokens',
      'GETs',
      'S3 req',
      'DynamoDB req',
      'EB',
      'SM',
      '$/1k core',
      '$/1k S3',
      'status',
    ],
    rows.map((r) => [
      r.memoryLimitMb ? `${r.profile}` : r.profile,
      mib(r.bodyBytes),
      r.images,
      r.raw?.mbPerSecond ?? '-',
      r.store?.mbPerSecond ?? '-',
      r.ratio ?? '-',
      r.store ? mib(r.store.rssGrowthBytes) : '-',
      r.raw ? mib(r.raw.rssGrowthBytes) : '-',
      r.store ? round(r.store.cpuMs / 1000, 2) : '-',
      r.tokenRequests ?? '-',
      r.serviceGets ?? '-',
      r.requests ? count(r.requests, 'S3') : '-',
      r.requests ? count(r.requests, 'DYNAMODB') : '-',
      r.requests ? count(r.requests, 'EVENTBRIDGE') : '-',
      r.requests ? count(r.requests, 'SECRETS_MANAGER') : '-',
      r.cost ? round(r.cost.coreTotal, 4) : '-',
      r.cost ? round(r.cost.perThousand.s3, 4) : '-',
      r.ok ? 'ok' : `FAILED: ${r.failure}`,
    ]),
  );
}

/** Per profile: the operations counted and the cost arithmetic. */
export function sizeDetails(rows: readonly SizeFigures[]): string {
  const lines = [
    `Cost per 1,000 results at list prices (${PRICES.region}, prices of ${PRICES.date}); Lambda at ${FUNCTION_MEMORY_MB} MB: this machine's waiting time plus its CPU time stretched by Lambda's vCPU share (memory / ${LAMBDA_MB_PER_VCPU} MB):`,
  ];
  for (const r of rows) {
    if (!r.cost) continue;
    lines.push(
      `${r.profile}: S3 {${ops(r.requests, 'S3')}}; DynamoDB {${ops(r.requests, 'DYNAMODB')}}; item ${round((r.itemBytes ?? 0) / 1024, 1)} KiB`,
    );
    for (const line of r.cost.arithmetic) lines.push(`  ${line}`);
  }
  return lines.join('\n');
}
