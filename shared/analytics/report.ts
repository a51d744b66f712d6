/**
 * `idv analytics report`: the answers of the saved queries, gathered once, and the short text summary
 * printed on a terminal. The HTML page is rendered from the same data (`./report-html.ts`).
 */
import type { QueryEngine } from './engine';
import { restrictDays, type SavedQueryName, savedQuery } from './queries';

type Row = Record<string, unknown>;

/** Everything the report shows. */
export interface ReportData {
  /** What was queried (data directory, workgroup). */
  readonly source: string;
  readonly since?: string;
  readonly until?: string;
  readonly generatedAt: string;
  readonly byProductOutcome: Row[];
  readonly approvalByDay: Row[];
  readonly topRejectMessages: Row[];
  readonly unavailable: Row[];
  readonly timing: Row[];
  readonly sectionOutcomes: Row[];
}

/** Runs every saved query (restricted to the days asked for) and gathers the answers. */
export async function gatherReport(
  engine: QueryEngine,
  range: { since?: string; until?: string },
  onQuery?: (name: SavedQueryName) => void,
): Promise<ReportData> {
  const run = async (name: SavedQueryName): Promise<Row[]> => {
    onQuery?.(name);
    return [...(await engine.query(restrictDays(savedQuery(name).sql, range))).rows];
  };
  return {
    source: engine.description,
    ...(range.since && { since: range.since }),
    ...(range.until && { until: range.until }),
    generatedAt: new Date().toISOString(),
    byProductOutcome: await run('results-by-product-and-outcome'),
    approvalByDay: await run('approval-rate-by-product-per-day'),
    topRejectMessages: await run('top-reject-messages'),
    unavailable: await run('unavailable-results'),
    timing: await run('time-completed-to-stored'),
    sectionOutcomes: await run('section-outcomes'),
  };
}

const num = (value: unknown): number => (typeof value === 'number' ? value : 0);
const label = (value: unknown): string => (value === null || value === undefined ? '(none)' : String(value));

/** Totals per outcome over all products, largest first. */
export function outcomeTotals(data: ReportData): [string, number][] {
  const totals = new Map<string, number>();
  for (const row of data.byProductOutcome) {
    totals.set(label(row['outcome']), (totals.get(label(row['outcome'])) ?? 0) + num(row['results']));
  }
  return [...totals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Approval rate per product over the whole period: `[product, approved, stored, percent]`. */
export function approvalByProduct(data: ReportData): [string, number, number, number][] {
  const sums = new Map<string, [number, number]>();
  for (const row of data.approvalByDay) {
    const entry = sums.get(label(row['product'])) ?? [0, 0];
    entry[0] += num(row['approved']);
    entry[1] += num(row['results']);
    sums.set(label(row['product']), entry);
  }
  return [...sums]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([product, [approved, stored]]) => [product, approved, stored, percent(approved, stored)]);
}

/** `part` of `whole` in percent, one decimal; 0 for an empty whole. */
export function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((1000 * part) / whole) / 10;
}

/** The period in words: `2026-08-01 … 2026-08-07`, `since 2026-08-01`, `all days`. */
export function periodText(data: Pick<ReportData, 'since' | 'until'>): string {
  if (data.since && data.until) return `${data.since} … ${data.until}`;
  if (data.since) return `since ${data.since}`;
  if (data.until) return `until ${data.until}`;
  return 'all days';
}

/** The short text summary. */
export function reportText(data: ReportData): string {
  const totals = outcomeTotals(data);
  const total = totals.reduce((sum, [, n]) => sum + n, 0);
  const approval = approvalByProduct(data);
  const approved = approval.reduce((s, [, a]) => s + a, 0);
  const stored = approval.reduce((s, [, , n]) => s + n, 0);
  const lines = [
    `Results, ${periodText(data)} (${data.source})`,
    `  ${total} result(s)${totals.length > 0 ? `: ${totals.map(([o, n]) => `${n} ${o}`).join(', ')}` : ''}`,
    '',
    'By product and outcome:',
    ...group(data.byProductOutcome).map(
      ([product, outcomes]) => `  ${product.padEnd(14)} ${outcomes.map(([o, n]) => `${n} ${o}`).join(', ')}`,
    ),
    '',
    `Approval rate: ${percent(approved, stored)}% of ${stored} stored result(s)`,
    ...approval.map(([product, a, n, p]) => `  ${product.padEnd(14)} ${`${p}%`.padStart(6)}  (${a} of ${n})`),
    '',
    'Top reject reasons:',
    ...(data.topRejectMessages.length === 0
      ? ['  (none)']
      : data.topRejectMessages
          .slice(0, 10)
          .map((row) => `  ${String(num(row['results'])).padStart(5)}  ${label(row['message'])}`)),
    '',
    'Completed → stored (seconds):',
    ...(data.timing.length === 0
      ? ['  (no results with a known completion time)']
      : data.timing.map(
          (row) =>
            `  ${label(row['product']).padEnd(14)} median ${num(row['median_seconds'])}  p90 ${num(row['p90_seconds'])}  max ${num(row['max_seconds'])}  (${num(row['results'])} result(s))`,
        )),
    '',
    'Section outcomes:',
    ...(data.sectionOutcomes.length === 0
      ? ['  (none)']
      : group(
          data.sectionOutcomes.map((row) => ({
            product: row['section'],
            outcome: row['outcome'],
            results: row['results'],
          })),
        ).map(
          ([section, outcomes]) =>
            `  ${section.padEnd(22)} ${outcomes.map(([o, n]) => `${n} ${o}`).join(', ')}`,
        )),
    '',
    `Unavailable: ${data.unavailable.length} result(s)`,
  ];
  return `${lines.join('\n')}\n`;
}

/** Rows of results-by-product-and-outcome grouped by product. */
export function group(rows: readonly Row[]): [string, [string, number][]][] {
  const byProduct = new Map<string, [string, number][]>();
  for (const row of rows) {
    const product = label(row['product']);
    byProduct.set(product, [...(byProduct.get(product) ?? []), [label(row['outcome']), num(row['results'])]]);
  }
  return [...byProduct];
}
