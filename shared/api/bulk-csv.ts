/**
 * How the bulk secure link CSV (§4.2: base64 of a semicolon-delimited CSV with the columns of
 * `BULK_CSV_COLUMNS`) is read, shared by the client's check and the simulator so both number rows the
 * same way: row N is the N-th record of the file, the header row being row 1 (the first person is row
 * 2), as a spreadsheet shows it; blank lines are skipped and not counted. Quoted fields may hold `;`,
 * quotes (doubled) and line breaks; a UTF-8 byte order mark and CRLF line ends are accepted.
 */
import type { Options } from 'csv-parse/sync';

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
