/**
 * The size bench against its targets (docs/benchmarks.md): per profile, the spread (min/median/max over
 * the rounds) of the handler's throughput and CPU per MB of body against the floor measured in the same
 * rounds (`size-worker.ts`, `floor`: the same storage requests through the same SDK clients, nothing
 * parsed or checked), its peak RSS growth, and what the requests each guarantee owes (the read before
 * the GET, the claim, the item, the event, the mark) cost in wall time — the fixed cost that sets the
 * pace of small bodies. The raw copy (GET streamed into one PutObject) is printed beside, as information.
 */
import type { Round, SizeFigures } from '../sizes';
import { formatTable, median, mib, round } from './stats';
import { atLeast, atMost, rssLimitBytes, type SummaryRow, spread, TARGETS, type Verdict } from './targets';

const mb = (row: SizeFigures) => row.bodyBytes / 1e6;

/** Per round: the throughput of `side` over that of `reference` on the same body (its ms over `side`'s). */
function throughput(row: SizeFigures, side: keyof Round, reference: 'raw' | 'floor'): number[] {
  return (row.rounds ?? []).flatMap((r) => {
    const a = r[side] as Round['store'] | undefined;
    const b = r[reference];
    return a && b ? [b.ms / a.ms] : [];
  });
}

function cpuPerMb(row: SizeFigures, side: 'store' | 'floor'): number[] {
  return (row.rounds ?? []).flatMap((r) => (r[side] ? [r[side]!.cpuMs / mb(row)] : []));
}

/** Per round: the result's CPU over the floor's. */
function overFloor(row: SizeFigures): number[] {
  return (row.rounds ?? []).flatMap((r) => (r.floor ? [r.store.cpuMs / r.floor.cpuMs] : []));
}

/** Per round: the wall ms of the guarantees' requests (DynamoDB and EventBridge) of the result. */
function guaranteesMs(row: SizeFigures): number[] {
  return (row.rounds ?? []).flatMap((r) => (r.guaranteesMs === undefined ? [] : [r.guaranteesMs]));
}

/** Whether the throughput target applies to `row` (bodies from 50 MiB up). */
export function throughputJudged(row: Pick<SizeFigures, 'bodyBytes'>): boolean {
  return row.bodyBytes >= TARGETS.throughputFromBytes;
}

/** The requests each guarantee owes for one result, as counted: DynamoDB and EventBridge. */
function guaranteeRequests(row: SizeFigures): number {
  const of = (service: string) => Object.values(row.requests?.[service] ?? {}).reduce((n, v) => n + v, 0);
  return of('DYNAMODB') + of('EVENTBRIDGE');
}

/** The table for `rows`, with how to read it. */
export function sizeFloorTable(rows: readonly SizeFigures[]): string {
  const measured = rows.filter((r) => r.ok && r.rounds?.length);
  const table = formatTable(
    [
      'profile',
      'rounds',
      `store/floor (≥ ${TARGETS.throughputOverFloor} from 50 MiB)`,
      'CPU ms/MB',
      'floor ms/MB',
      `CPU/floor (≤ ${TARGETS.cpuOverFloor})`,
      'RSS + MiB (≤)',
      'guarantees: requests, ms',
      'floor/raw',
    ],
    measured.map((r) => [
      r.profile,
      r.rounds!.length,
      spread(throughput(r, 'store', 'floor')),
      spread(cpuPerMb(r, 'store')),
      spread(cpuPerMb(r, 'floor')),
      spread(overFloor(r)),
      r.store ? `${mib(r.store.rssGrowthBytes)} (${mib(rssLimitBytes(r.bodyBytes))})` : '-',
      `${guaranteeRequests(r)}, ${spread(guaranteesMs(r), 0)}`,
      spread(throughput(r, 'floor', 'raw')),
    ]),
  );
  return [
    table,
    'min/median/max over the rounds; each round: raw copy, floor, result of the same body; targets on the median',
    "store/floor: throughput of the result over the floor's (wall time, same round); floor/raw: the floor's over the raw copy's (information)",
    'guarantees: DynamoDB and EventBridge requests of one result (read before the GET, claim, earlier-version look-up, erasure look after the last object, item, event, mark) and their summed wall ms: a fixed cost per result, what small bodies pay most for',
  ].join('\n');
}

/** The summary rows of the size bench: CPU and throughput against the floor, RSS growth, fixed cost. */
export function sizeSummaryRows(rows: readonly SizeFigures[]): SummaryRow[] {
  const out: SummaryRow[] = [];
  for (const r of rows) {
    const bench = `sizes ${r.profile}`;
    if (!r.ok || !r.store) {
      out.push({
        bench,
        figure: 'run',
        value: `failed: ${r.failure ?? '?'}`,
        target: 'ok',
        verdict: 'NOT MET',
      });
      continue;
    }
    if (TARGETS.cpuProfiles.includes(r.profile)) {
      const ratios = overFloor(r);
      out.push({
        bench,
        figure: 'handler CPU/MB over the floor',
        value: spread(ratios),
        target: `≤ ${TARGETS.cpuOverFloor} (median)`,
        verdict: judged(ratios, (m) => atMost(m, TARGETS.cpuOverFloor)),
      });
    }
    const ratios = throughput(r, 'store', 'floor');
    // No floor measured (the run held to 256 MB, `--huge`): its figure is the memory, not the speed.
    if (ratios.length > 0 && throughputJudged(r)) {
      out.push({
        bench,
        figure: 'throughput over the floor',
        value: spread(ratios),
        target: `≥ ${TARGETS.throughputOverFloor} (median)`,
        verdict: judged(ratios, (m) => atLeast(m, TARGETS.throughputOverFloor)),
      });
    } else if (ratios.length > 0) {
      const ms = guaranteesMs(r);
      out.push({
        bench,
        figure: "guarantees' requests (fixed cost)",
        value: `${guaranteeRequests(r)} req, ${ms.length ? round(median(ms), 0) : '-'} ms; store/floor ${round(median(ratios), 2)}`,
        target: '-',
        verdict: 'no target',
      });
    }
    const limit = rssLimitBytes(r.bodyBytes);
    out.push({
      bench,
      figure: 'peak RSS growth MiB',
      value: String(mib(r.store.rssGrowthBytes)),
      target: `≤ ${mib(limit)}`,
      verdict: atMost(r.store.rssGrowthBytes, limit),
    });
  }
  return out;
}

/** The verdict on the median of `samples`; not met when there are none. */
function judged(samples: readonly number[], verdict: (medianValue: number) => Verdict): Verdict {
  return samples.length === 0 ? 'NOT MET' : verdict(median(samples));
}
