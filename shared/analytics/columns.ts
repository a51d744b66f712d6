/**
 * The columns of the analytics projection, once for every engine: the Glue table (Hive types), the
 * Athena view (Trino types) and the local DuckDB view read the same list, so names, order and types
 * cannot drift between AWS and the local run (docs/analytics.md, "Columns").
 */

/** The logical type of a column. */
export type ColumnKind = 'string' | 'timestamp' | 'integer' | 'double' | 'string-array';

/** One column of the `results` view. */
export interface ProjectionColumn {
  /** Lower-case snake_case name, as Glue and Athena need it. */
  readonly name: string;
  readonly kind: ColumnKind;
  /** One line for the Glue column comment and docs/analytics.md. */
  readonly comment: string;
}

const column = (name: string, kind: ColumnKind, comment: string): ProjectionColumn => ({
  name,
  kind,
  comment,
});

/** Section columns: name of the column → name of the section in the result (shared/api/schemas.ts). */
export const SECTION_COLUMNS = {
  identity_result: 'identity',
  right_to_work_result: 'rightToWork',
  face_verify_result: 'faceVerify',
  driving_license_result: 'drivingLicense',
  payroll_tax_statement_result: 'payrollTaxStatement',
  digital_signing_result: 'digitalSigning',
  vog_result: 'vog',
  face_link_result: 'faceLink',
} as const;

/** Reason-key columns per section: `identity_messages` → `identity`, … (from {@link SECTION_COLUMNS}). */
export const SECTION_MESSAGE_COLUMNS = Object.fromEntries(
  Object.entries(SECTION_COLUMNS).map(([name, section]) => [name.replace(/_result$/, '_messages'), section]),
) as Readonly<Record<string, (typeof SECTION_COLUMNS)[keyof typeof SECTION_COLUMNS]>>;

/** Every column of the `results` view, in order. */
export const PROJECTION_COLUMNS: readonly ProjectionColumn[] = [
  column(
    'result_id',
    'string',
    'resultId of the service; one row per value and version (the results view: one row per value)',
  ),
  column('transaction_id', 'string', 'transactionId of the result'),
  column('customer_reference', 'string', 'reference the company supplied at creation'),
  column('user_id', 'string', 'user of the account that requested the transaction'),
  column('product', 'string', 'product, e.g. IDV_STANDARD'),
  column('result', 'string', 'overall result (NULL for UNAVAILABLE)'),
  column('status', 'string', 'STORED or UNAVAILABLE'),
  column(
    'completed',
    'timestamp',
    'UTC completion time from the service; NULL when only a webhook announced it',
  ),
  column('stored_at', 'timestamp', 'UTC time the pipeline stored (or recorded as unavailable) the result'),
  column('day', 'string', 'yyyy-MM-dd of completed (of stored_at when completed is NULL); the partition'),
  column('environment', 'string', 'service environment: staging or production'),
  column('rtw_type', 'string', 'rule set of the right-to-work check, e.g. RTW_NL'),
  column('identity_result', 'string', 'result of the identity section; NULL when absent'),
  column('right_to_work_result', 'string', 'result of the rightToWork section; NULL when absent'),
  column('face_verify_result', 'string', 'result of the faceVerify section; NULL when absent'),
  column('driving_license_result', 'string', 'result of the drivingLicense section; NULL when absent'),
  column(
    'payroll_tax_statement_result',
    'string',
    'result of the payrollTaxStatement section; NULL when absent',
  ),
  column('digital_signing_result', 'string', 'result of the digitalSigning section; NULL when absent'),
  column('vog_result', 'string', 'result of the vog section; NULL when absent'),
  column('face_link_result', 'string', 'result of the faceLink section; NULL when absent'),
  column('additional_document_results', 'string-array', 'result of each additional document; NULL when none'),
  column('messages', 'string-array', 'reason codes of the overall result (NULL for UNAVAILABLE)'),
  column('image_count', 'integer', 'number of images in the result'),
  column('file_count', 'integer', 'number of files (reports) in the result'),
  column('document_type', 'string', 'identity document type as the service reports it'),
  column('issuing_state', 'string', 'issuing state or organisation of the identity document'),
  column(
    'completed_to_stored_seconds',
    'double',
    'seconds from completion at the service to storage by the pipeline; NULL when completed is unknown',
  ),
  column(
    'document_validation_approved',
    'integer',
    'security features of identity.documentValidation that are APPROVED; NULL without it',
  ),
  column(
    'document_validation_not_applicable',
    'integer',
    'security features of identity.documentValidation that are NOT_APPLICABLE; NULL without it',
  ),
  column(
    'sanction_list_result',
    'string',
    'sanction-list check: NOT_EXECUTED, HIT or NO_HIT; NULL without it',
  ),
  column(
    'lost_and_stolen_result',
    'string',
    'lost-and-stolen check: NOT_EXECUTED, HIT or NO_HIT; NULL without it',
  ),
  column('vog_status', 'string', 'status of the certificate-of-conduct (VOG) request'),
  column('additional_document_types', 'string-array', 'type of each additional document; NULL when none'),
  ...Object.entries(SECTION_MESSAGE_COLUMNS).map(([name, section]) =>
    column(name, 'string-array', `reason keys of the ${section} section; NULL when it has none`),
  ),
  column(
    'version',
    'integer',
    "version of the transaction's verdict: 1 for the first, 2, 3, … after the service changed it",
  ),
  column(
    'previous_result_id',
    'string',
    'resultId that held the verdict this version replaced; NULL for version 1',
  ),
  column('previous_result', 'string', 'overall result this version replaced; NULL for version 1'),
];

/** The partition column of the Glue table (a path segment `day=yyyy-MM-dd`, also inside each record). */
export const PARTITION_COLUMN = 'day';

/** Hive type of a column in the Glue table. */
export function hiveType(kind: ColumnKind): string {
  return {
    string: 'string',
    timestamp: 'timestamp',
    integer: 'int',
    double: 'double',
    'string-array': 'array<string>',
  }[kind];
}

/** Trino type of a column as Athena reports it for the Glue table (the view's declared column types). */
export function trinoType(kind: ColumnKind): string {
  return {
    string: 'varchar',
    timestamp: 'timestamp(3)',
    integer: 'integer',
    double: 'double',
    'string-array': 'array(varchar)',
  }[kind];
}

/** DuckDB type of a column (`read_json` column types). */
export function duckdbType(kind: ColumnKind): string {
  return {
    string: 'VARCHAR',
    timestamp: 'TIMESTAMP',
    integer: 'INTEGER',
    double: 'DOUBLE',
    'string-array': 'VARCHAR[]',
  }[kind];
}
