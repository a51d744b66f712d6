/**
 * The targets `npm run bench` is read against (docs/benchmarks.md) and the summary table that states, for
 * each figure, its value, its target and whether this run met it. Pure: no I/O, unit-tested in
 * `test/unit/bench-targets.test.ts`. The benches still never fail on a missed target: only a lost,
 * duplicated or failed result fails them, since then the figures would lie.
 */
import { median, round } from './stats';

const MIB = 1024 * 1024;

/** Every target, in one place. */
export const TARGETS = {
  /** Handler CPU per MB of body over the floor's, median of the rounds, at 10, 50 and 200 MB. */
  cpuOverFloor: 1.5,
  /** Profiles the CPU target applies to. */
  cpuProfiles: ['10mb', '50mb', '200mb'] as readonly string[],
  /** Throughput over the floor's, median of the rounds, for bodies from 50 MiB up. */
  throughputOverFloor: 0.8,
  throughputFromBytes: 50 * MIB,
  /** Peak RSS growth of one result: this plus {@link TARGETS.rssPerBodyByte} × body. */
  rssBaseBytes: 64 * MIB,
  rssPerBodyByte: 0.1,
  /** Cold import of each bundle, median ms. */
  importMs: 100,
  /** Backlog drained at this share of the service's rate limit, at least. */
  backlogRateShare: 0.9,
  /** p99 of service result ready → `VerificationResultStored`: the poll interval plus this many seconds. */
  latencySlackSeconds: 15,
  /** Full cost per 1,000 results over the naive peer's, at production's settings (90 days). */
  costOverNaive: 0.6,
  /** Profiles the cost target applies to; every other profile is held to {@link TARGETS.costNeverOverNaive}. */
  costProfiles: ['50mb', '200mb'] as readonly string[],
  costNeverOverNaive: 1,
} as const;

/** What a figure is against its target. */
export type Verdict = 'met' | 'NOT MET' | 'no target';

/** `value ≤ limit` (a NaN value is not met). */
export function atMost(value: number, limit: number): Verdict {
  return value <= limit ? 'met' : 'NOT MET';
}

/** `value ≥ limit` (a NaN value is not met). */
export function atLeast(value: number, limit: number): Verdict {
  return value >= limit ? 'met' : 'NOT MET';
}

/** The peak RSS growth a result of `bodyBytes` may cause: 64 MiB + 0.1 × body. */
export function rssLimitBytes(bodyBytes: number): number {
  return TARGETS.rssBaseBytes + TARGETS.rssPerBodyByte * bodyBytes;
}

/** The p99 latency allowed with a poll every `pollIntervalSeconds`, in ms. */
export function latencyLimitMs(pollIntervalSeconds: number): number {
  return (pollIntervalSeconds + TARGETS.latencySlackSeconds) * 1000;
}

/** min/median/max of samples, rounded to `digits`; `-` when there are none. */
export function spread(samples: readonly number[], digits = 2): string {
  if (samples.length === 0) return '-';
  const r = (v: number) => round(v, digits);
  return `${r(Math.min(...samples))}/${r(median(samples))}/${r(Math.max(...samples))}`;
}

/** One line of the summary. */
export interface SummaryRow {
  /** The bench and the case, e.g. `sizes 10mb`. */
  readonly bench: string;
  readonly figure: string;
  /** The figure as measured: one value, or min/median/max. */
  readonly value: string;
  /** The target in words, e.g. `≤ 1.5 (median)`; `-` when there is none. */
  readonly target: string;
  readonly verdict: Verdict;
}

/** The summary as a plain-text table (columns left-aligned: they hold words), then how many targets were met. */
export function summaryTable(rows: readonly SummaryRow[]): string {
  const judged = rows.filter((r) => r.verdict !== 'no target');
  const met = judged.filter((r) => r.verdict === 'met').length;
  const cells = [
    ['bench', 'figure', 'value', 'target', 'verdict'],
    ...rows.map((r) => [r.bench, r.figure, r.value, r.target, r.verdict]),
  ];
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  return [
    line(head!),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...body.map(line),
    `${met} of ${judged.length} targets met`,
  ].join('\n');
}

/** The summary as a Markdown table (docs/benchmarks.md copies it). */
export function summaryMarkdown(rows: readonly SummaryRow[]): string {
  return [
    '| bench | figure | value | target | verdict |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.bench} | ${r.figure} | ${r.value} | ${r.target} | ${r.verdict} |`),
  ].join('\n');
}
