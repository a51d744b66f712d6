/**
 * The three output formats of `idv analytics query` and `idv results list`: JSON (an array of row
 * objects), an aligned table for a terminal, and CSV with a header (RFC 4180 quoting).
 */

/** Output formats. */
export const OUTPUT_FORMATS = ['json', 'table', 'csv'] as const;
/** An output format. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A cell as text: arrays joined with `, `, null as empty. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cell).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows as CSV with a header line; every line ends with CRLF-free `\n`. */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const quote = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const lines = [columns.map(quote).join(',')];
  for (const row of rows) lines.push(columns.map((c) => quote(cell(row[c]))).join(','));
  return `${lines.join('\n')}\n`;
}

/**
 * Rows as an aligned table: a header, a rule, one line per row; numbers right-aligned. Line breaks in
 * a value are shown as `⏎` so each row stays one line.
 */
export function toTable(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const text = rows.map((row) => columns.map((c) => cell(row[c]).replace(/\r?\n/g, '⏎')));
  const numeric = columns.map(
    (c) => rows.length > 0 && rows.every((row) => row[c] === null || typeof row[c] === 'number'),
  );
  const widths = columns.map((c, i) => Math.max(c.length, ...text.map((line) => line[i]!.length)));
  const pad = (value: string, i: number) =>
    numeric[i] ? value.padStart(widths[i]!) : value.padEnd(widths[i]!);
  const lines = [
    columns.map(pad).join('  ').trimEnd(),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...text.map((line) => line.map(pad).join('  ').trimEnd()),
  ];
  return `${lines.join('\n')}\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
}

/** Rows in `format`; JSON is pretty-printed like every other `idv` answer. */
export function formatRows(
  format: OutputFormat,
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
): string {
  if (format === 'csv') return toCsv(columns, rows);
  if (format === 'table') return toTable(columns, rows);
  return `${JSON.stringify(rows, null, 2)}\n`;
}
