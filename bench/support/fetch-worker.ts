/**
 * Benchmark child: the handler side of the fetch-result bench. Runs with `--expose-gc`, the environment of
 * the real function (emulator endpoints and `pipelineEnv`) and nothing else: it imports
 * `functions/fetch-result/handler.ts` and feeds it SQS events through the local event source
 * (`local/sqs-event-source.ts`), like Lambda's event source mapping with one concurrent execution.
 *
 * Request `{ type: 'run', expected, batchSize, sampleMs, probe }` drains `expected` messages and answers
 * with one entry per handler invocation (duration, records, memory peaks above the pre-run baseline) plus
 * process totals. Memory is sampled on a timer, which fires whenever the handler awaits I/O (S3 puts,
 * DynamoDB, the service): with `probe: true` every sample first runs full GCs, so the peak is the memory
 * the handler really holds across those awaits rather than garbage not yet collected. Probing slows the
 * handler down a lot; its durations are not latency figures.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../../local/lambda-context';
import { SqsEventSource } from '../../local/sqs-event-source';
import { ENV } from '../../shared/config';
import { serveParent } from './child';

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** Memory figures of one sample (bytes). */
interface Sample {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** One handler invocation as measured. */
export interface Invocation {
  ms: number;
  records: number;
  failed: number;
  /**
   * The sample of the invocation with the most heap + ArrayBuffer memory, and its highest RSS, minus the
   * baseline taken before the run (bytes).
   */
  peak: Sample;
  /** With `trace: true`: every sample of the invocation, `t` in ms since it started, memory above the baseline. */
  trace?: (Sample & { t: number })[];
}

/** The answer to a `run` request. */
export interface RunAnswer {
  type: 'ran';
  invocations: Invocation[];
  wallMs: number;
  /** CPU time of this process during the run (user + system, ms). */
  cpuMs: number;
  deleted: number;
  failed: number;
  /** Memory after a full GC before the run (absolute bytes). */
  baseline: Sample;
  /** Highest sample of the whole run, as for an invocation (absolute bytes). */
  peak: Sample;
  /** Timer samples taken during the run. */
  samples: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('fetch-worker needs --expose-gc');

function sample(): Sample {
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
}

/**
 * The later peak: the sample holding more heap + ArrayBuffer memory (both at the same instant: the maxima
 * of separate samples would add the download's buffers to the parsed document's strings), with the
 * highest RSS of either.
 */
function maxOf(a: Sample, b: Sample): Sample {
  const held = (s: Sample) => s.heapUsed + s.arrayBuffers;
  return { ...(held(b) > held(a) ? b : a), rss: Math.max(a.rss, b.rss) };
}

function minus(a: Sample, b: Sample): Sample {
  return {
    rss: a.rss - b.rss,
    heapUsed: a.heapUsed - b.heapUsed,
    external: a.external - b.external,
    arrayBuffers: a.arrayBuffers - b.arrayBuffers,
  };
}

/**
 * Memory after full GCs with a pause between: V8 frees dead ArrayBuffers' memory after the GC that found
 * them dead (concurrently), so a single `gc()` can leave the previous pass's buffers in the baseline.
 */
async function settledSample(): Promise<Sample> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return sample();
}

let fetchHandler: Handler;
let sqs: SQSClient;

async function init() {
  // Environment first, then the import: the handler reads its configuration at module load, as in Lambda.
  fetchHandler = (await import('../../functions/fetch-result/handler')).handler as unknown as Handler;
  sqs = new SQSClient({ region: process.env.AWS_REGION, endpoint: process.env.AWS_ENDPOINT_URL_SQS });
  return { memory: await settledSample() };
}

async function run(message: Record<string, unknown>): Promise<RunAnswer> {
  const expected = Number(message.expected);
  const batchSize = Number(message.batchSize ?? 10);
  const probe = message.probe === true;
  // `process.memoryUsage()` reads /proc and costs tens of microseconds: every 10 ms keeps its share of the
  // measured CPU under 1 %; a probe is slow anyway and wants every chance to catch a peak.
  const sampleMs = Number(message.sampleMs ?? (probe ? 2 : 10));
  const trace = message.trace === true;
  let samplesOfInvocation: (Sample & { t: number })[] = [];
  let invocationStarted = 0;

  const invocations: Invocation[] = [];
  let current: Sample | undefined;
  let samples = 0;
  const source = new SqsEventSource({
    sqs,
    queueUrl: process.env[ENV.resultsQueueUrl]!,
    region: process.env.AWS_REGION!,
    batchSize,
    waitTimeSeconds: 0,
    context: () => lambdaContext('bench-fetch-result', process.env.AWS_REGION!, 60_000),
    handler: async (event, context) => {
      current = sample();
      samplesOfInvocation = [];
      const started = performance.now();
      invocationStarted = started;
      const response = await fetchHandler(event, context);
      const ms = performance.now() - started;
      const peak = maxOf(current, sample());
      current = undefined;
      invocations.push({
        ms,
        records: event.Records.length,
        failed: response.batchItemFailures.length,
        peak: minus(peak, baseline),
        ...(trace && { trace: samplesOfInvocation }),
      });
      return response;
    },
  });

  const baseline = await settledSample();
  let runPeak = baseline;
  const timer = setInterval(() => {
    if (probe) {
      // The second GC first completes the sweep the first one started (dead ArrayBuffers' memory is freed
      // concurrently), so a buffer that just died is not counted as held.
      gc!();
      gc!();
    }
    const now = sample();
    samples++;
    runPeak = maxOf(runPeak, now);
    if (current) {
      current = maxOf(current, now);
      if (trace)
        samplesOfInvocation.push({ t: performance.now() - invocationStarted, ...minus(now, baseline) });
    }
  }, sampleMs);

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let deleted = 0;
  let failed = 0;
  let idleRounds = 0;
  try {
    while (deleted < expected) {
      const outcome = await source.pollOnce();
      deleted += outcome.deleted;
      failed += outcome.failed;
      if (outcome.received > 0) {
        idleRounds = 0;
        continue;
      }
      // Failed messages come back after the visibility timeout; give up when nothing arrives for long.
      if (++idleRounds > 200) throw new Error(`queue ran dry after ${deleted} of ${expected} messages`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    clearInterval(timer);
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    type: 'ran',
    invocations,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    deleted,
    failed,
    baseline,
    peak: runPeak,
    samples,
  };
}

await serveParent(init, async (message) => {
  if (message.type === 'run') return run(message) as unknown as Record<string, unknown>;
  throw new Error(`unknown request ${String(message.type)}`);
});
