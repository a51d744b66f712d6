/** Small statistics and formatting helpers shared by the benches. */

/** Nearest-rank percentile (`p` in 0–100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The median (nearest-rank p50) of unsorted samples; NaN when there are none. */
export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** p50/p95/p99/max of latency samples in milliseconds, rounded to 0.1 ms. */
export function latencySummary(samples: readonly number[]): {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
} {
  return {
    count: samples.length,
    p50: round(percentile(samples, 50)),
    p95: round(percentile(samples, 95)),
    p99: round(percentile(samples, 99)),
    max: round(percentile(samples, 100)),
  };
}

/** Rounds to `digits` decimals (default 1). */
export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): number {
  return round(bytes / (1024 * 1024));
}

/** A plain-text table: one header row, aligned columns. */
export function formatTable(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => String(cell)));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)));
  const [head, ...body] = cells;
  return [
    line(head!).join('  '),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...body.map((r) => line(r).join('  ')),
  ].join('\n');
}
