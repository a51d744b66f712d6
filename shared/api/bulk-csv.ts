/**
 * How the bulk secure link CSV (§4.2: base64 of a semicolon-delimited CSV with the columns of
 * `BULK_CSV_COLUMNS`) is read, shared by the client's check and the simulator so both follow one rule:
 * the spec names the columns without saying whether a header row comes first, so the header row is
 * optional, recognised by its exact column names (`name;emailAddress;phoneNumber;language;customerReference`).
 * Row N is the N-th record of the file, as a spreadsheet shows it (with a header, the first person is
 * row 2); blank lines are skipped and not counted. Quoted fields may hold `;`, quotes (doubled) and line
 * breaks; a UTF-8 byte order mark and CRLF line ends are accepted.
 */
import type { Options } from 'csv-parse/sync';
import { BULK_CSV_COLUMNS } from './enums';

/** Whether a record is the header row: exactly the §4.2 column names, in order. */
export function isBulkCsvHeader(record: readonly string[]): boolean {
  return record.length === BULK_CSV_COLUMNS.length && record.every((f, i) => f === BULK_CSV_COLUMNS[i]);
}

/** The person rows of the parsed records: all of them, less the first when it is the header row. */
export function bulkCsvRows<R extends { readonly record: readonly string[] }>(records: readonly R[]): R[] {
  return records[0] && isBulkCsvHeader(records[0].record) ? records.slice(1) : [...records];
}

/** `csv-parse` options of the bulk CSV (each record comes with its `info.records`, the row number). */
export const BULK_CSV_PARSE_OPTIONS = {
  delimiter: ';',
  bom: true,
  trim: true,
  skip_empty_lines: true,
  relax_column_count: true,
  info: true,
} as const satisfies Options;

/** A readable reason for a `csv-parse` error code; never quotes the offending value (personal data). */
export function describeCsvError(code: string | undefined): string {
  switch (code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is not closed';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote appears inside an unquoted field (quote the whole field and double inner quotes)';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'a closing quote is followed by other characters';
    default:
      return `the CSV cannot be read (${code ?? 'unknown error'})`;
  }
}
