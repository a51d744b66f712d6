/**
 * The three output formats of `idv analytics query` and `idv results list`: JSON (an array of row
 * objects), an aligned table for a terminal, and CSV with a header (RFC 4180 quoting). Every value may
 * come from the service or a user: every format goes through one function, `safeText`
 * (shared/terminal-text.ts): the table and CSV show control and bidi characters as escapes (`\x1b`), a
 * CSV cell that a spreadsheet would run as a formula starts with `'`, and JSON writes them as `\uXXXX`.
 */
import { safeJson, safeText } from '../../shared/terminal-text';

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

/**
 * Rows as CSV with a header line; every line ends with CRLF-free `\n`. Control and bidi characters are
 * written as escapes (a line break in a value as `\n`), a text cell whose first non-blank character is
 * `=`, `+`, `-` or `@` gets a leading `'` (a number such as -3 stays a number); a cell with a quote or
 * comma is quoted.
 */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const quote = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const csvCell = (value: unknown) =>
    quote(
      typeof value === 'number' || typeof value === 'bigint' ? cell(value) : safeText(cell(value), 'csv'),
    );
  const lines = [columns.map(csvCell).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(row[c])).join(','));
  return `${lines.join('\n')}\n`;
}

/**
 * Rows as an aligned table: a header, a rule, one line per row; numbers right-aligned. Line breaks in
 * a value are shown as `⏎` so each row stays one line, other control characters as escapes (`\x1b`).
 */
export function toTable(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const text = rows.map((row) =>
    columns.map((c) => safeText(cell(row[c]).replace(/\r?\n/g, '⏎'), 'terminal')),
  );
  const names = columns.map((c) => safeText(c, 'terminal'));
  const numeric = columns.map(
    (c) => rows.length > 0 && rows.every((row) => row[c] === null || typeof row[c] === 'number'),
  );
  const widths = names.map((c, i) => Math.max(c.length, ...text.map((line) => line[i]!.length)));
  const pad = (value: string, i: number) =>
    numeric[i] ? value.padStart(widths[i]!) : value.padEnd(widths[i]!);
  const lines = [
    names.map(pad).join('  ').trimEnd(),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...text.map((line) => line.map(pad).join('  ').trimEnd()),
  ];
  return `${lines.join('\n')}\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
}

/** Rows in `format`; JSON is pretty-printed like every other `idv` answer, with no raw control character. */
export function formatRows(
  format: OutputFormat,
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
): string {
  if (format === 'csv') return toCsv(columns, rows);
  if (format === 'table') return toTable(columns, rows);
  return `${safeJson(rows, 2)}\n`;
}
