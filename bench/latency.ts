/**
 * End-to-end latency bench: from the moment the service completes a result to the moment its
 * `VerificationResultStored` is on the bus, p50/p95/p99, for the webhook path and for the poll path
 * with every webhook dropped — how fresh an event is. The whole local pipeline runs in
 * `support/latency-worker.ts` (emulators, simulator, webhook endpoint, the poll on a short schedule, the
 * SQS event source, the real handlers). Target: p99 ≤ the poll interval + 15 s on both paths; the bench
 * polls every 5 s by default (production every 60 s, so ≤ 75 s there).
 *
 * `npx tsx bench/latency.ts [--latency-results N] [--poll-interval S]` (`--help` lists them)
 */
import { pathToFileURL } from 'node:url';
import { type BenchValues, countFlag, LATENCY_FLAGS, optionsOrExit, parseBenchArgs } from './support/args';
import { startChild } from './support/child';
import type { LatencyAnswer } from './support/latency-worker';
import { formatTable, latencySummary, round } from './support/stats';
import { atMost, latencyLimitMs, type SummaryRow } from './support/targets';

/** Options of {@link runLatencyBench}. */
export interface LatencyBenchOptions {
  /** Results per path. */
  results: number;
  /** The poll schedule of the bench, seconds. */
  pollIntervalSeconds: number;
  log?: (line: string) => void;
}

/** Defaults: 60 results per path, one every 250 ms, a poll every 5 s: about a minute in all. */
export const DEFAULT_LATENCY_OPTIONS: LatencyBenchOptions = { results: 60, pollIntervalSeconds: 5 };

/** Spacing of the results' creation: spread over several poll intervals, so they land all over a cycle. */
const SPACING_MS = 250;

/** One path's figures (ms). */
export interface LatencyFigures {
  path: 'webhook' | 'poll';
  latencyMs: ReturnType<typeof latencySummary>;
  polls: number;
  webhooks: number;
}

/** What the bench returns. */
export interface LatencyBenchResult {
  pollIntervalSeconds: number;
  paths: LatencyFigures[];
}

/** Runs both paths, webhook first; throws when a result is not stored in time. */
export async function runLatencyBench(options: LatencyBenchOptions): Promise<LatencyBenchResult> {
  const log = options.log ?? (() => undefined);
  const worker = startChild('support/latency-worker.ts', {
    env: { BENCH_POLL_INTERVAL_SECONDS: String(options.pollIntervalSeconds) },
  });
  try {
    await worker.ready;
    const paths: LatencyFigures[] = [];
    for (const path of ['webhook', 'poll'] as const) {
      log(
        `latency: ${options.results} results by ${path === 'poll' ? 'the poll, webhooks dropped' : 'webhook'}`,
      );
      const answer = await worker.request<LatencyAnswer>({
        type: 'run',
        path,
        results: options.results,
        spacingMs: SPACING_MS,
        // Bounded: every result must be stored within three times the target after the last one.
        timeoutMs: options.results * SPACING_MS + 3 * latencyLimitMs(options.pollIntervalSeconds),
      });
      paths.push({
        path,
        latencyMs: latencySummary(answer.latenciesMs),
        polls: answer.polls,
        webhooks: answer.webhooks,
      });
    }
    return { pollIntervalSeconds: options.pollIntervalSeconds, paths };
  } finally {
    await worker.request({ type: 'close' }).catch(() => undefined);
    await worker.close();
  }
}

/** The figures as a table (seconds). */
export function latencyTable(result: LatencyBenchResult): string {
  const s = (ms: number) => round(ms / 1000, 2);
  return formatTable(
    ['path', 'results', 'p50 s', 'p95 s', 'p99 s', 'max s', `target p99 (s)`, 'polls', 'webhooks'],
    result.paths.map((p) => [
      p.path === 'poll' ? 'poll (webhooks dropped)' : 'webhook',
      p.latencyMs.count,
      s(p.latencyMs.p50),
      s(p.latencyMs.p95),
      s(p.latencyMs.p99),
      s(p.latencyMs.max),
      `≤ ${latencyLimitMs(result.pollIntervalSeconds) / 1000}`,
      p.polls,
      p.webhooks,
    ]),
  );
}

/** The summary rows: p99 of each path against the poll interval + 15 s. */
export function latencySummaryRows(result: LatencyBenchResult): SummaryRow[] {
  const limit = latencyLimitMs(result.pollIntervalSeconds);
  return result.paths.map((p) => ({
    bench: `latency ${p.path}`,
    figure: 'ready → stored event p50/p95/p99 s',
    value: [p.latencyMs.p50, p.latencyMs.p95, p.latencyMs.p99].map((v) => round(v / 1000, 2)).join('/'),
    target: `p99 ≤ ${limit / 1000} (poll every ${result.pollIntervalSeconds} s)`,
    verdict: atMost(p.latencyMs.p99, limit),
  }));
}

/** Help lines of the latency bench's flags (also in `npm run bench -- --help`). */
export const LATENCY_FLAGS_HELP = `  --latency-results N   results per path (default ${DEFAULT_LATENCY_OPTIONS.results}, one every ${SPACING_MS} ms)
  --poll-interval S     the bench's poll schedule in seconds (default ${DEFAULT_LATENCY_OPTIONS.pollIntervalSeconds}; target p99 ≤ S + 15)`;

/** Options from the parsed flags (`LATENCY_FLAGS`) over the defaults; a bad value is a usage error. */
export function latencyOptionsFromValues(values: BenchValues): LatencyBenchOptions {
  const results = countFlag(values, 'latency-results', DEFAULT_LATENCY_OPTIONS.results, 1000);
  const pollIntervalSeconds = countFlag(
    values,
    'poll-interval',
    DEFAULT_LATENCY_OPTIONS.pollIntervalSeconds,
    3600,
  );
  return { results, pollIntervalSeconds };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = optionsOrExit(
    parseBenchArgs(process.argv.slice(2), LATENCY_FLAGS, latencyOptionsFromValues),
    'bench/latency',
    `Usage: npx tsx bench/latency.ts [flags]\n\nThe end-to-end latency bench (see docs/benchmarks.md). Flags:\n${LATENCY_FLAGS_HELP}\n  -h, --help            show this help`,
  );
  const result = await runLatencyBench({ ...options, log: console.error });
  console.log(latencyTable(result));
}
