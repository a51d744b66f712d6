/**
 * The bulk secure-link request's CSV (§4.2), checked before sending. Apart from the other request checks
 * because it needs a CSV parser, which the pipeline functions (they never create links) do not bundle.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { BULK_CSV_PARSE_OPTIONS, bulkCsvRows, describeCsvError } from '../api/bulk-csv';
import { BULK_CSV_COLUMNS } from '../api/enums';
import { type BulkSecureLinksRequest, bulkSecureLinksRequestSchema } from '../api/schemas';
import { RequestValidationError, type ValidationIssue } from './errors';
import { validateRequest } from './validate';

/** Bulk secure links (§4.2): the schema plus the decoded CSV's row layout (the header row optional). */
export function validateBulkSecureLinksRequest(request: unknown): BulkSecureLinksRequest {
  const parsed = validateRequest(bulkSecureLinksRequestSchema, request, 'bulk secure links request');
  const issues = checkBulkCsv(Buffer.from(parsed.file, 'base64').toString('utf8'));
  if (issues.length > 0) throw new RequestValidationError(issues, 'invalid bulk secure links request');
  return parsed;
}

/**
 * Checks a bulk CSV (read as in `shared/api/bulk-csv.ts`): `;`-separated, an optional header row of
 * exactly the §4.2 column names, then at least one row of five fields. Row N is the N-th record of the
 * file (the header, when present, being row 1), the same numbering as the simulator's `errors[].row`.
 */
export function checkBulkCsv(text: string): ValidationIssue[] {
  let records: { record: string[]; info: { records: number } }[];
  try {
    records = parseCsv(text, BULK_CSV_PARSE_OPTIONS) as unknown as typeof records;
  } catch (error) {
    const { code, records: before } = error as { code?: string; records?: number };
    return [{ path: 'file', message: `row ${(before ?? 0) + 1}: ${describeCsvError(code)}` }];
  }
  const rows = bulkCsvRows(records);
  if (rows.length === 0) {
    return [{ path: 'file', message: records.length > 0 ? 'has no rows after the header' : 'has no rows' }];
  }
  const issues: ValidationIssue[] = [];
  for (const { record, info } of rows) {
    const fields = record.length;
    if (fields !== BULK_CSV_COLUMNS.length) {
      issues.push({
        path: 'file',
        message: `row ${info.records} has ${fields} field${fields === 1 ? '' : 's'}, expected ${BULK_CSV_COLUMNS.length}`,
      });
    }
  }
  return issues;
}
