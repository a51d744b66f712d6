/**
 * The bench targets and the summary table (bench/support/targets.ts, bench/support/summary.ts, the
 * latency bench's rows in bench/latency.ts): each figure against its target, met or not.
 */
import { describe, expect, it } from 'vitest';
import type { BacklogFigures } from '../../bench/backlog';
import type { BundleFigures } from '../../bench/bundles';
import { latencySummaryRows } from '../../bench/latency';
import type { ProfileCost } from '../../bench/support/cost-section';
import { latencySummary, percentile } from '../../bench/support/stats';
import { backlogSummaryRows, bundleSummaryRows, costSummaryRows } from '../../bench/support/summary';
import {
  atLeast,
  atMost,
  latencyLimitMs,
  rssLimitBytes,
  spread,
  summaryMarkdown,
  summaryTable,
} from '../../bench/support/targets';

const MIB = 1024 * 1024;

describe('bench targets', () => {
  it('judges at most and at least, and never meets a NaN', () => {
    // Assess
    expect(atMost(1.5, 1.5)).toBe('met');
    expect(atMost(1.51, 1.5)).toBe('NOT MET');
    expect(atLeast(0.8, 0.8)).toBe('met');
    expect(atLeast(0.79, 0.8)).toBe('NOT MET');
    expect(atMost(Number.NaN, 1)).toBe('NOT MET');
    expect(atLeast(Number.NaN, 1)).toBe('NOT MET');
  });

  it('bounds RSS growth at 64 MiB + 0.1 × body and latency at the poll interval + 15 s', () => {
    // Assess: 200 MiB → 84 MiB; production's 60 s poll → 75 s
    expect(rssLimitBytes(200 * MIB)).toBe(84 * MIB);
    expect(latencyLimitMs(5)).toBe(20_000);
    expect(latencyLimitMs(60)).toBe(75_000);
  });

  it('gives min/median/max', () => {
    // Assess
    expect(spread([3, 1, 2])).toBe('1/2/3');
    expect(spread([1.234, 1.236], 2)).toBe('1.23/1.23/1.24');
    expect(spread([])).toBe('-');
  });

  it('takes nearest-rank percentiles', () => {
    // Prepare: 1..100 ms
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);

    // Assess
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(latencySummary(samples)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('summary rows', () => {
  it('judges each path`s p99 against the poll interval + 15 s', () => {
    // Prepare: a poll every 5 s; the poll path's p99 at 21 s misses 20 s
    const summary = (p99: number) => ({ count: 100, p50: 1000, p95: 2000, p99, max: p99 });

    // Act
    const rows = latencySummaryRows({
      pollIntervalSeconds: 5,
      paths: [
        { path: 'webhook', latencyMs: summary(3000), polls: 4, webhooks: 100 },
        { path: 'poll', latencyMs: summary(21_000), polls: 4, webhooks: 100 },
      ],
    });

    // Assess
    expect(rows.map((r) => [r.bench, r.value, r.target, r.verdict])).toEqual([
      ['latency webhook', '1/2/3', 'p99 ≤ 20 (poll every 5 s)', 'met'],
      ['latency poll', '1/2/21', 'p99 ≤ 20 (poll every 5 s)', 'NOT MET'],
    ]);
  });

  it('judges every bundle`s median cold import, its size as information, and the backlog`s share of the rate', () => {
    // Prepare
    const bundle = (entry: string, kib: number, median: number): BundleFigures => ({
      entry,
      kib,
      top: [],
      standIns: [],
      importMs: { median, min: median - 5, max: median + 5, samples: [] },
    });
    const backlog = { backlog: 10_000, achievedRate: 22, allowedRate: 25, rateShare: 0.88 } as BacklogFigures;

    // Act
    const rows = [
      ...bundleSummaryRows([
        bundle('functions/poll/handler.ts', 420, 60),
        bundle('functions/fetch-result/handler.ts', 619, 101),
      ]),
      ...backlogSummaryRows(backlog),
    ];

    // Assess
    expect(rows.map((r) => [r.bench, r.figure, r.verdict])).toEqual([
      ['bundle poll', 'size KiB', 'no target'],
      ['bundle poll', 'cold import ms min/median/max', 'met'],
      ['bundle fetch-result', 'size KiB', 'no target'],
      ['bundle fetch-result', 'cold import ms min/median/max', 'NOT MET'],
      ['backlog 10000', 'drain rate, share of the limit', 'NOT MET'],
    ]);
    expect(rows.at(-1)?.value).toBe('22/s = 88 % of 25/s');
  });

  it('prints a table with a count of targets met, and the same rows in Markdown', () => {
    // Prepare
    const rows = [
      { bench: 'a', figure: 'x', value: '1', target: '≤ 2', verdict: 'met' as const },
      { bench: 'b', figure: 'y', value: '3', target: '≤ 2', verdict: 'NOT MET' as const },
      { bench: 'c', figure: 'z', value: '$1', target: '-', verdict: 'no target' as const },
    ];

    // Act
    const text = summaryTable(rows);
    const markdown = summaryMarkdown(rows);

    // Assess
    expect(text.split('\n')[0]).toMatch(/^bench\s+figure\s+value\s+target\s+verdict$/);
    expect(text).toContain('NOT MET');
    expect(text.split('\n').at(-1)).toBe('1 of 2 targets met');
    expect(markdown.split('\n')).toEqual([
      '| bench | figure | value | target | verdict |',
      '|---|---|---|---|---|',
      '| a | x | 1 | ≤ 2 | met |',
      '| b | y | 3 | ≤ 2 | NOT MET |',
      '| c | z | $1 | - | no target |',
    ]);
  });
  it('judges the cost beside the naive peer, and a profile run without the peer (1 GiB) as no target, with no NaN', () => {
    // Prepare
    const cost = (total: number) => ({ lines: [], total, memoryMb: 256 });
    const shape = { images: 1, imageBytes: 1 };
    const costs: ProfileCost[] = [
      { profile: '50mb', bodyBytes: 50 * MIB, shape, pipeline: cost(1.15), naive: cost(2.69) },
      { profile: '1mb', bodyBytes: MIB, shape, pipeline: cost(0.106), naive: cost(0.1) },
      { profile: '1gb@256mb', bodyBytes: 1024 * MIB, shape, pipeline: cost(16.24) },
    ];

    // Act
    const rows = costSummaryRows(costs);

    // Assess
    expect(rows.map((r) => [r.value, r.target, r.verdict])).toEqual([
      ['$1.15 / $2.69 = 0.43×', '≤ 0.6 × naive', 'met'],
      ['$0.106 / $0.1 = 1.06×', '≤ 1 × naive', 'NOT MET'],
      ['$16.24 (no naive peer run)', '-', 'no target'],
    ]);
  });
});
