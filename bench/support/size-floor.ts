/**
 * The size bench against its targets (issue 25): per profile, the spread (min/median/max over the rounds)
 * of throughput against the raw copy and of CPU per MB of body against the floor measured in the same
 * rounds (`size-worker.ts`, `floor`), the B worker's beside them when `BENCH_SIZE_AB` is set, and for the
 * many-images profile the CPU per image beyond what its bytes cost.
 */
import type { Round, SizeFigures } from '../sizes';
import { formatTable, median, round } from './stats';

/** Targets the table is read against (issue 25; docs/benchmarks.md). */
export const SIZE_TARGETS = {
  /** Store throughput over the raw copy's, at 10 MB and above (median). */
  ratio: 0.8,
  /** Handler CPU per MB over the floor's. */
  overFloor: 1.5,
  /** CPU per image beyond its bytes, 1,000 images of 50 KiB (ms). */
  perImageMs: 0.5,
} as const;

/** min/median/max of samples, rounded. */
export function spread(samples: readonly number[], digits = 2): string {
  if (samples.length === 0) return '-';
  const r = (v: number) => round(v, digits);
  return `${r(Math.min(...samples))}/${r(median(samples))}/${r(Math.max(...samples))}`;
}

const mb = (row: SizeFigures) => row.bodyBytes / 1e6;

/** Per round: the throughput of `side` over that of `reference` on the same body (its ms over `side`'s). */
function throughput(row: SizeFigures, side: keyof Round, reference: 'raw' | 'floor'): number[] {
  return (row.rounds ?? []).flatMap((r) => (r[reference] && r[side] ? [r[reference]!.ms / r[side]!.ms] : []));
}

function cpuPerMb(row: SizeFigures, side: keyof Round): number[] {
  return (row.rounds ?? []).flatMap((r) => (r[side] ? [r[side]!.cpuMs / mb(row)] : []));
}

/** Per round: the result's CPU over the floor's. */
function overFloor(row: SizeFigures, side: 'store' | 'b'): number[] {
  return (row.rounds ?? []).flatMap((r) => (r.floor && r[side] ? [r[side]!.cpuMs / r.floor.cpuMs] : []));
}

/**
 * CPU per image of a many-images row beyond its bytes, per round: its CPU less its MB at the median CPU
 * per MB of `reference` (the run's largest profile of few images), over its images.
 */
export function perImageMs(
  row: SizeFigures,
  reference: SizeFigures | undefined,
  side: 'store' | 'b' = 'store',
): number[] {
  if (!reference) return [];
  const perMb = median(cpuPerMb(reference, side));
  return (row.rounds ?? []).flatMap((r) =>
    r[side] ? [(r[side]!.cpuMs - mb(row) * perMb) / row.images] : [],
  );
}

/** Medians of the bench process's CPU during the raw copy and during the result (`Timed.hostCpuMs`). */
function hostCpu(row: SizeFigures): string {
  const of = (side: 'raw' | 'store') =>
    (row.rounds ?? []).flatMap((r) => (r[side]?.hostCpuMs === undefined ? [] : [r[side]!.hostCpuMs!]));
  const raw = of('raw');
  const store = of('store');
  if (raw.length === 0 || store.length === 0) return '-';
  return `${round(median(raw), 0)}→${round(median(store), 0)}`;
}

/** The table (and the many-images line) for `rows`. */
export function sizeFloorTable(rows: readonly SizeFigures[]): string {
  const measured = rows.filter((r) => r.ok && r.rounds?.length);
  const ab = measured.some((r) => r.rounds!.some((x) => x.b));
  const header = [
    'profile',
    'rounds',
    'raw MB/s',
    `store/raw (≥ ${SIZE_TARGETS.ratio})`,
    'floor/raw',
    'store/floor',
    'CPU ms/MB',
    'floor ms/MB',
    `CPU/floor (≤ ${SIZE_TARGETS.overFloor})`,
    'emulators CPU ms raw→result',
    ...(ab ? ['B store/raw', 'B CPU ms/MB', 'B CPU/floor'] : []),
  ];
  const table = formatTable(
    header,
    measured.map((r) => [
      r.profile,
      r.rounds!.length,
      spread(
        (r.rounds ?? []).flatMap((x) => (x.raw ? [mb(r) / (x.raw.ms / 1000)] : [])),
        0,
      ),
      spread(throughput(r, 'store', 'raw')),
      spread(throughput(r, 'floor', 'raw')),
      spread(throughput(r, 'store', 'floor')),
      spread(cpuPerMb(r, 'store')),
      spread(cpuPerMb(r, 'floor')),
      spread(overFloor(r, 'store')),
      hostCpu(r),
      ...(ab ? [spread(throughput(r, 'b', 'raw')), spread(cpuPerMb(r, 'b')), spread(overFloor(r, 'b'))] : []),
    ]),
  );
  const lines = [
    table,
    'min/median/max over the rounds; each round: raw copy, floor, result (then B) of the same body',
    "floor/raw and store/floor: throughput of the floor over the raw copy's, of the result over the floor's (wall time, same round)",
    'emulators CPU: medians of the CPU the bench process (the emulators, their fronts and the counting proxies) spent while the raw copy and while the result ran, on the same cores as the handler',
  ];
  const many = measured.find((r) => r.images >= 1000);
  const reference = measured
    .filter((r) => r.images < 100)
    .reduce<SizeFigures | undefined>((a, b) => (!a || b.bodyBytes > a.bodyBytes ? b : a), undefined);
  if (many && reference) {
    const beyondFloor = (many.rounds ?? []).flatMap((x) =>
      x.floor ? [(x.store.cpuMs - x.floor.cpuMs) / many.images] : [],
    );
    lines.push(
      `${many.profile}: CPU per image beyond its bytes (at ${reference.profile}'s CPU per MB) ${spread(perImageMs(many, reference))} ms ` +
        `(target ≤ ${SIZE_TARGETS.perImageMs})${ab ? `, B ${spread(perImageMs(many, reference, 'b'))} ms` : ''}; beyond the floor's (which writes the same ${many.images} objects) ${spread(beyondFloor)} ms`,
    );
  }
  return lines.join('\n');
}
