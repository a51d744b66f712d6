/**
 * fetch-result benchmark: how fast and how lean the real `functions/fetch-result/handler.ts` stores results.
 *
 * Three processes, so the handler's memory is its own:
 * - this one: the local AWS emulators (DynamoDB, S3, SQS, Secrets Manager and EventBridge fakes), the load
 *   (transactions created with `IdvClient` and `mock-test`, queue messages built from the poll records and
 *   sent with the pipeline's own `sendMessages`) and the checks;
 * - `support/service-process.ts`: the simulator behind a proxy that records result body sizes and can
 *   repeat a result's images (the simulator serves at most 7 per result);
 * - `support/fetch-worker.ts` (`--expose-gc`): the handler, fed by the local SQS event source.
 *
 * Per result size (profile) and on a fresh worker: a warm-up (cold start figure), a memory probe (GC before
 * every sample: memory the handler really holds), a latency pass (batch size 1: one invocation per result)
 * and a throughput pass (batch size 10, Lambda's default, one concurrent execution draining a backlog).
 *
 * `npx tsx bench/fetch-result.ts [--probe N] [--latency N] [--throughput N] [--profiles small,medium,large]
 * [--trace]` (`--help` lists them)
 */

import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clientConfig } from '../local/client-config';
import type { MockTestValue, Product } from '../shared/api/enums';
import { IdvClient } from '../shared/client/client';
import { DEFAULT_PIPELINE_SCOPES } from '../shared/config';
import { DETAIL_TYPES } from '../shared/events/names';
import type { ResultMessage } from '../shared/pipeline/messages';
import { sendMessages } from '../shared/pipeline/queue';
import { getResult, withFullDocument } from '../shared/queries/results';
import {
  DEFAULT_SIZE_REPEATS,
  HUGE_PROFILE,
  runSizeBench,
  SHORT_BODY_ROUNDS,
  SIZE_PROFILES,
  type SizeProfile,
  sizeDetails,
  sizeTable,
} from './sizes';
import {
  BenchUsageError,
  type BenchValues,
  countFlag,
  FETCH_FLAGS,
  optionsOrExit,
  parseBenchArgs,
} from './support/args';
import { benchEnv } from './support/bench-env';
import { type Child, startChild } from './support/child';
import { BENCH_CREDENTIALS } from './support/credentials';
import type { Invocation, RunAnswer } from './support/fetch-worker';
import { FUNCTION_MEMORY_MB, lambdaNodeFlags } from './support/lambda-flags';
import { startBenchStage } from './support/stage';
import { formatTable, latencySummary, median, mib, round } from './support/stats';

/** A result size: what kind of transaction, and how often the proxy repeats its images. */
export interface Profile {
  name: string;
  product: Product;
  mockTest: MockTestValue;
  imageRepeat: number;
  description: string;
}

/** The default sizes: 2, 7 and 21 images (100–400 KB each) plus the PDF report. */
export const PROFILES: readonly Profile[] = [
  {
    name: 'small',
    product: 'IDV_STANDARD',
    mockTest: 'APPROVED_EU',
    imageRepeat: 1,
    description: 'IDV_STANDARD, passport: front + portrait',
  },
  {
    name: 'medium',
    product: 'RTW_PREMIUM',
    mockTest: 'APPROVED',
    imageRepeat: 1,
    description: 'RTW_PREMIUM secure link, identity card: 4 document images + 3 face images',
  },
  {
    name: 'large',
    product: 'RTW_PREMIUM',
    mockTest: 'APPROVED',
    imageRepeat: 3,
    description: 'the medium result with its images repeated 3 times by the bench proxy',
  },
];

/** How many results each pass processes per profile. */
export interface FetchBenchOptions {
  probe: number;
  latency: number;
  throughput: number;
  profiles: readonly Profile[];
  /** Print the memory samples of the probed invocation with the highest held memory (investigations). */
  trace?: boolean;
  /** Size profiles of the size bench (`bench/sizes.ts`), run after the passes above. @default all */
  sizes?: readonly SizeProfile[];
  /** Add the 1 GiB run held to 256 MB to the size bench. */
  huge?: boolean;
  /** Run the X-Ray tracing A/B after the size bench (`support/cost-section.ts`; minutes). */
  tracing?: boolean;
  /** Results per size profile (`bench/sizes.ts`). @default each profile's `rounds`, else DEFAULT_SIZE_REPEATS */
  repeats?: number;
  log?: (line: string) => void;
}

/** Defaults sized so all profiles finish in about a minute and a half on a 2-core machine. */
export const DEFAULT_FETCH_OPTIONS: FetchBenchOptions = {
  probe: 3,
  latency: 25,
  throughput: 40,
  profiles: PROFILES,
};

/** The figures of one profile (bytes unless the name says otherwise). */
export interface ProfileFigures {
  profile: string;
  description: string;
  images: number;
  files: number;
  /** Median size of the `GET /result` body as served. */
  resultBodyBytes: number;
  /** Decoded images and files of one result, total. */
  decodedBytes: number;
  largestObjectBytes: number;
  /** First invocation of a fresh handler process (module load done; token fetch, first connections). */
  coldInvocationMs: number;
  latencyMs: ReturnType<typeof latencySummary>;
  resultsPerSecond: number;
  /** Handler process CPU per result in the throughput pass. */
  cpuMsPerResult: number;
  /** Held memory: highest heapUsed + arrayBuffers above the baseline with a full GC before each sample. */
  heldPeakBytes: number;
  heldPeakHeapBytes: number;
  heldPeakArrayBufferBytes: number;
  /** Footprint without forced GC (garbage included), per invocation of the latency pass: median and max. */
  footprintP50Bytes: number;
  footprintMaxBytes: number;
  /** Highest RSS above the pre-run baseline in the latency and throughput passes. */
  rssPeakDeltaBytes: number;
  /** RSS of the handler process after a full GC, before the measured passes. */
  rssBaselineBytes: number;
  memorySamples: number;
}

/** What the whole bench returns. */
export interface FetchBenchResult {
  profiles: ProfileFigures[];
  /** Every result fetched from the service exactly once, stored and announced once. */
  checks: { results: number; storedEvents: number; maxFetchesPerResult: number; failedMessages: number };
}

const WRITE_SCOPES = ['productapi.secureidlink.write'];

/** Runs every profile and returns the figures; throws if any result was lost, duplicated or failed. */
export async function runFetchResultBench(options: FetchBenchOptions): Promise<FetchBenchResult> {
  const log = options.log ?? (() => undefined);
  const stage = await startBenchStage('support/service-process.ts', {
    prefix: 'idv-bench',
    // Long enough that a slow probed invocation is never redelivered mid-run.
    visibilityTimeoutSeconds: 120,
  });
  const { service, serviceUrl, aws, resources, cleanups } = stage;
  try {
    const workerEnv = benchEnv(aws, resources, { serviceUrl });
    const sqs = new SQSClient(clientConfig(aws, 'sqs'));
    const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
    const s3 = new S3Client(clientConfig(aws, 's3'));
    cleanups.push(
      async () => sqs.destroy(),
      async () => dynamo.destroy(),
      async () => s3.destroy(),
    );
    const upstream = new IdvClient({
      baseUrl: serviceUrl,
      environment: 'staging',
      credentials: BENCH_CREDENTIALS,
      scopes: [...WRITE_SCOPES, ...DEFAULT_PIPELINE_SCOPES],
    });

    /** Creates `count` completed transactions and enqueues their poll records; returns their resultIds. */
    const enqueue = async (profile: Profile, count: number): Promise<string[]> => {
      const transactions = new Set<string>();
      for (let i = 0; i < count; i++) {
        const { transactionId } = await upstream.createSecureLink(
          {
            product: profile.product,
            disableCommunication: true,
            customerReference: `bench-${profile.name}-${i}`,
          },
          { mockTest: profile.mockTest },
        );
        transactions.add(transactionId);
      }
      const { results } = await upstream.poll();
      const messages: ResultMessage[] = results
        .filter((record) => record.transactionId !== undefined && transactions.has(record.transactionId))
        .map((record) => ({
          resultId: record.resultId,
          source: 'poll',
          ...(record.transactionId && { transactionId: record.transactionId }),
          ...(record.product && { product: record.product }),
          ...(record.customerReference && { customerReference: record.customerReference }),
          ...(record.completed && { completed: record.completed }),
        }));
      if (messages.length !== count)
        throw new Error(`poll listed ${messages.length} of ${count} new results`);
      await sendMessages(sqs, resources.queueUrl, messages);
      return messages.map((m) => m.resultId);
    };

    const figures: ProfileFigures[] = [];
    const allResultIds: string[] = [];
    let failedMessages = 0;
    for (const profile of options.profiles) {
      log(`fetch-result: ${profile.name} (${profile.description})`);
      await service.request({ type: 'configure', imageRepeat: profile.imageRepeat });
      const worker = startChild('support/fetch-worker.ts', {
        // BENCH_WORKER_FLAGS adds Node flags to the handler process only, e.g. `--cpu-prof --cpu-prof-dir=DIR`.
        // Lambda's V8 memory flags for the function's memory; `--expose-gc` for the memory probe.
        execArgv: [
          ...lambdaNodeFlags(FUNCTION_MEMORY_MB),
          '--expose-gc',
          ...(process.env.BENCH_WORKER_FLAGS ?? '').split(' ').filter(Boolean),
        ],
        env: workerEnv,
      });
      try {
        await worker.ready;
        const pass = async (count: number, batchSize: number, probe: boolean): Promise<RunAnswer> => {
          if (count === 0) throw new Error('every pass needs at least one result');
          allResultIds.push(...(await enqueue(profile, count)));
          const answer = await worker.request<RunAnswer>({
            type: 'run',
            expected: count,
            batchSize,
            probe,
            trace: probe && options.trace === true,
          });
          failedMessages += answer.failed;
          return answer;
        };
        const warm = await pass(2, 1, false);
        const probe = await pass(options.probe, 1, true);
        if (options.trace) logTrace(probe, log);
        const latency = await pass(options.latency, 1, false);
        const throughput = await pass(options.throughput, 10, false);
        figures.push(
          await profileFigures(
            profile,
            { warm, probe, latency, throughput },
            service,
            dynamo,
            s3,
            resources.tableName,
            allResultIds.at(-1)!,
          ),
        );
      } finally {
        await worker.close();
      }
    }

    const stats = await service.request<{ resultsFetched: number; maxFetchesPerResult: number }>({
      type: 'stats',
    });
    const storedEvents = aws.events
      .entries()
      .filter((event) => event['detail-type'] === DETAIL_TYPES.resultStored).length;
    const checks = {
      results: allResultIds.length,
      storedEvents,
      maxFetchesPerResult: stats.maxFetchesPerResult,
      failedMessages,
    };
    if (storedEvents !== allResultIds.length || stats.maxFetchesPerResult !== 1 || failedMessages > 0) {
      throw new Error(`fetch-result bench: results lost, duplicated or failed: ${JSON.stringify(checks)}`);
    }
    return { profiles: figures, checks };
  } finally {
    await stage.close();
  }
}

function logTrace(probe: RunAnswer, log: (line: string) => void): void {
  const top = probe.invocations.reduce((best, i) => (held(i) > held(best) ? i : best));
  log('  t ms     heap MiB  arrayBuffers MiB  rss MiB   (above the baseline, GC before each sample)');
  for (const s of top.trace ?? []) {
    log(
      `  ${round(s.t).toString().padStart(7)}  ${mib(s.heapUsed).toString().padStart(8)}  ${mib(s.arrayBuffers).toString().padStart(16)}  ${mib(s.rss).toString().padStart(7)}`,
    );
  }
}

function held(invocation: Invocation): number {
  return invocation.peak.heapUsed + invocation.peak.arrayBuffers;
}

async function profileFigures(
  profile: Profile,
  passes: { warm: RunAnswer; probe: RunAnswer; latency: RunAnswer; throughput: RunAnswer },
  service: Child,
  dynamo: DynamoDBDocumentClient,
  s3: S3Client,
  tableName: string,
  sampleResultId: string,
): Promise<ProfileFigures> {
  const { warm, probe, latency, throughput } = passes;
  const { resultBodies } = await service.request<{ resultBodies: number[] }>({ type: 'stats' });
  // As `idv results get` reads it: what the item leaves to result.json is read from there.
  const deps = { dynamo, s3, tableName };
  const item = await getResult(deps, sampleResultId);
  const objects = (item ? ((await withFullDocument(deps, item)).objects ?? []) : []) as {
    key: string;
    bytes: number;
  }[];
  const heldPeak = probe.invocations.reduce((best, i) => (held(i) > held(best) ? i : best));
  const footprints = latency.invocations.map(held);
  const resultsDone = throughput.invocations.reduce((n, i) => n + i.records, 0);
  return {
    profile: profile.name,
    description: profile.description,
    images: objects.filter((o) => o.key.includes('/images/')).length,
    files: objects.filter((o) => o.key.includes('/files/')).length,
    resultBodyBytes: median(resultBodies),
    decodedBytes: objects.reduce((n, o) => n + o.bytes, 0),
    largestObjectBytes: Math.max(0, ...objects.map((o) => o.bytes)),
    coldInvocationMs: round(warm.invocations[0]?.ms ?? Number.NaN),
    latencyMs: latencySummary(latency.invocations.map((i) => i.ms)),
    resultsPerSecond: round(resultsDone / (throughput.wallMs / 1000)),
    cpuMsPerResult: round(throughput.cpuMs / resultsDone),
    heldPeakBytes: held(heldPeak),
    heldPeakHeapBytes: heldPeak.peak.heapUsed,
    heldPeakArrayBufferBytes: heldPeak.peak.arrayBuffers,
    footprintP50Bytes: median(footprints),
    footprintMaxBytes: Math.max(...footprints),
    rssPeakDeltaBytes: Math.max(
      latency.peak.rss - latency.baseline.rss,
      throughput.peak.rss - throughput.baseline.rss,
    ),
    rssBaselineBytes: latency.baseline.rss,
    memorySamples: probe.samples + latency.samples + throughput.samples,
  };
}

/** The figures as a table (sizes in MiB). */
export function fetchResultTable(result: FetchBenchResult): string {
  return formatTable(
    [
      'profile',
      'images',
      'body MiB',
      'decoded MiB',
      'results/s',
      'CPU ms/result',
      'p50 ms',
      'p95 ms',
      'cold ms',
      'held MiB',
      'held/body',
      'footprint p50/max MiB',
      'RSS +MiB',
    ],
    result.profiles.map((p) => [
      p.profile,
      p.images,
      mib(p.resultBodyBytes),
      mib(p.decodedBytes),
      p.resultsPerSecond,
      p.cpuMsPerResult,
      p.latencyMs.p50,
      p.latencyMs.p95,
      p.coldInvocationMs,
      mib(p.heldPeakBytes),
      round(p.heldPeakBytes / p.resultBodyBytes, 2),
      `${mib(p.footprintP50Bytes)}/${mib(p.footprintMaxBytes)}`,
      mib(p.rssPeakDeltaBytes),
    ]),
  );
}

/** Help lines of the fetch-result bench's flags (also in `npm run bench -- --help`). */
export const FETCH_FLAGS_HELP = `  --profiles LIST   some of ${PROFILES.map((p) => p.name).join(',')} (default: all)
  --probe N         results of the memory probe per profile (default ${DEFAULT_FETCH_OPTIONS.probe})
  --latency N       results of the latency pass (default ${DEFAULT_FETCH_OPTIONS.latency})
  --throughput N    results of the throughput pass (default ${DEFAULT_FETCH_OPTIONS.throughput})
  --trace           print the memory samples of the probed invocation with the highest held memory
  --sizes LIST      size bench profiles: some of ${SIZE_PROFILES.map((p) => p.name).join(',')}, or none
                    (default: all; bodies of ~1/10/50/200 MiB and 1,000 images of 8 KiB)
  --repeats N       results per size profile after its warm-up; time, CPU and cost are their median
                    (default ${SHORT_BODY_ROUNDS} up to 10 MiB, ${DEFAULT_SIZE_REPEATS} above; the held 1 GiB run
                    handles one)
  --huge            also a 1 GiB body with the handler process held to 256 MB (minutes; not default)
  --tracing         also the X-Ray tracing A/B: the size bench's 10mb, 50mb and many traced and not
                    (minutes; not default)`;

/** `npx tsx bench/fetch-result.ts --help`. */
export const FETCH_USAGE = `Usage: npx tsx bench/fetch-result.ts [flags]

The fetch-result benchmark (see docs/benchmarks.md). Flags:
${FETCH_FLAGS_HELP}
  -h, --help        show this help`;

/** Options from the parsed flags (`FETCH_FLAGS`) over the defaults; a bad value is a usage error. */
export function fetchOptionsFromValues(values: BenchValues): FetchBenchOptions {
  const list = values['profiles'] as string | undefined;
  let profiles: readonly Profile[] = PROFILES;
  if (list !== undefined) {
    const names = list.split(',').map((name) => name.trim());
    const unknown = names.filter((name) => !PROFILES.some((p) => p.name === name));
    if (unknown.length > 0 || names.length === 0) {
      throw new BenchUsageError(
        `--profiles takes some of ${PROFILES.map((p) => p.name).join(',')} (unknown: ${unknown.join(',')})`,
      );
    }
    profiles = PROFILES.filter((p) => names.includes(p.name));
  }
  return {
    sizes: sizesFromValue(values['sizes'] as string | undefined),
    ...(values['repeats'] !== undefined && {
      repeats: countFlag(values, 'repeats', DEFAULT_SIZE_REPEATS, 100),
    }),
    huge: values['huge'] === true,
    tracing: values['tracing'] === true,
    probe: countFlag(values, 'probe', DEFAULT_FETCH_OPTIONS.probe),
    latency: countFlag(values, 'latency', DEFAULT_FETCH_OPTIONS.latency),
    throughput: countFlag(values, 'throughput', DEFAULT_FETCH_OPTIONS.throughput),
    profiles,
    trace: values['trace'] === true,
  };
}

/** `--sizes LIST` as profiles: names of `SIZE_PROFILES`, or `none`. */
function sizesFromValue(list: string | undefined): readonly SizeProfile[] {
  if (list === undefined) return SIZE_PROFILES;
  if (list.trim() === 'none') return [];
  const names = list.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !SIZE_PROFILES.some((p) => p.name === name));
  if (unknown.length > 0) {
    throw new BenchUsageError(
      `--sizes takes some of ${SIZE_PROFILES.map((p) => p.name).join(',')} or none (unknown: ${unknown.join(',')})`,
    );
  }
  return SIZE_PROFILES.filter((p) => names.includes(p.name));
}

/** Runs the size bench for `options` (nothing when no size profile and no `--huge`). */
export async function runSizesOf(options: FetchBenchOptions) {
  const profiles = [...(options.sizes ?? SIZE_PROFILES), ...(options.huge ? [HUGE_PROFILE] : [])];
  return profiles.length === 0
    ? undefined
    : runSizeBench({
        profiles,
        ...(options.repeats !== undefined && { repeats: options.repeats }),
        ...(options.log && { log: options.log }),
      });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = optionsOrExit(
    parseBenchArgs(process.argv.slice(2), FETCH_FLAGS, fetchOptionsFromValues),
    'bench/fetch-result',
    FETCH_USAGE,
  );
  const result = await runFetchResultBench({ ...options, log: console.error });
  console.log(fetchResultTable(result));
  const sizes = await runSizesOf({ ...options, log: console.error });
  if (sizes) console.log(`\n${sizeTable(sizes)}\n${sizeDetails(sizes)}`);
  console.log(JSON.stringify({ ...result, sizes }, null, 2));
}
