/**
 * The summary rows of the benches other than the size and latency benches (those build their own, in
 * `size-floor.ts` and `bench/latency.ts`): bundles and cold import, the backlog drain, and the full cost
 * beside the naive peer (no target). Pure; `test/unit/bench-targets.test.ts`.
 */
import type { BacklogFigures } from '../backlog';
import type { BundleFigures } from '../bundles';
import type { ProfileCost } from './cost-section';
import { round } from './stats';
import { atLeast, atMost, type SummaryRow, TARGETS } from './targets';

/** Per function: median cold import (the target), and the bundle's size beside it as information. */
export function bundleSummaryRows(bundles: readonly BundleFigures[]): SummaryRow[] {
  return bundles.flatMap((b) => {
    const bench = `bundle ${b.entry.split('/').at(-2) ?? b.entry}`;
    return [
      {
        bench,
        figure: 'size KiB',
        value: String(b.kib),
        target: '-',
        verdict: 'no target',
      },
      {
        bench,
        figure: 'cold import ms min/median/max',
        value: `${b.importMs.min}/${b.importMs.median}/${b.importMs.max}`,
        target: `≤ ${TARGETS.importMs} (median)`,
        verdict: atMost(b.importMs.median, TARGETS.importMs),
      },
    ];
  });
}

/** The drain's rate as a share of the service's limit. */
export function backlogSummaryRows(backlog: BacklogFigures): SummaryRow[] {
  return [
    {
      bench: `backlog ${backlog.backlog}`,
      figure: 'drain rate, share of the limit',
      value: `${backlog.achievedRate}/s = ${round(backlog.rateShare * 100, 1)} % of ${backlog.allowedRate}/s`,
      target: `≥ ${TARGETS.backlogRateShare * 100} %`,
      verdict: atLeast(backlog.rateShare, TARGETS.backlogRateShare),
    },
  ];
}

/**
 * Per profile: the full cost per 1,000 results, the pipeline beside the naive peer: at most 0.6 × the
 * peer's at 50 and 200 MB, never more than the peer's elsewhere.
 */
export function costSummaryRows(costs: readonly ProfileCost[]): SummaryRow[] {
  return costs.map((c) => {
    const bench = `cost ${c.profile}`;
    const figure = '$ per 1,000 results: pipeline / naive peer';
    // The 1 GiB profile runs without the peer: its point is the memory bound (bench/sizes.ts).
    if (!c.naive) {
      return {
        bench,
        figure,
        value: `${dollars(c.pipeline.total)} (no naive peer run)`,
        target: '-',
        verdict: 'no target',
      };
    }
    const limit = TARGETS.costProfiles.includes(c.profile)
      ? TARGETS.costOverNaive
      : TARGETS.costNeverOverNaive;
    const ratio = c.pipeline.total / c.naive.total;
    return {
      bench,
      figure,
      value: `${dollars(c.pipeline.total)} / ${dollars(c.naive.total)} = ${round(ratio, 2)}×`,
      target: `≤ ${limit} × naive`,
      verdict: atMost(ratio, limit),
    };
  });
}

function dollars(usd: number): string {
  return `$${usd >= 1 ? round(usd, 2) : Number(usd.toPrecision(3))}`;
}
