/**
 * The analytics projection: one flat record per result event, no personal data (docs/analytics.md).
 *
 * A pure function of the pipeline's own events (`VerificationResultStored`, `VerificationResultUnavailable`,
 * and `VerificationResultChanged` for a later version of a verdict): only the listed fields are read, each
 * checked for its type and shape, so whatever else a detail might carry never reaches a record. One object
 * per result, version and status, at a deterministic key: a re-delivered event overwrites its own object,
 * and the `results` view keeps one row per result (its latest version; STORED wins over UNAVAILABLE).
 */

import type { CustomerReferenceMode } from '../config';
import { PipelineError } from '../errors';
import { DETAIL_TYPES } from '../events/names';
import { code } from '../store/summary';
import { PARTITION_COLUMN, SECTION_COLUMNS, SECTION_MESSAGE_COLUMNS } from './columns';

/** Key prefix of the projection, in the analytics bucket and under the local data directory. */
export const PROJECTION_PREFIX = 'analytics/results/';

/** One row of the projection (the columns of `PROJECTION_COLUMNS`); timestamps as `yyyy-MM-dd HH:mm:ss.SSS` UTC. */
export interface ProjectionRecord {
  result_id: string;
  transaction_id: string | null;
  customer_reference: string | null;
  user_id: string | null;
  product: string | null;
  result: string | null;
  status: 'STORED' | 'UNAVAILABLE';
  completed: string | null;
  stored_at: string;
  day: string;
  environment: string | null;
  rtw_type: string | null;
  identity_result: string | null;
  right_to_work_result: string | null;
  face_verify_result: string | null;
  driving_license_result: string | null;
  payroll_tax_statement_result: string | null;
  digital_signing_result: string | null;
  vog_result: string | null;
  face_link_result: string | null;
  additional_document_results: string[] | null;
  messages: string[] | null;
  image_count: number | null;
  file_count: number | null;
  document_type: string | null;
  issuing_state: string | null;
  completed_to_stored_seconds: number | null;
  document_validation_approved: number | null;
  document_validation_not_applicable: number | null;
  sanction_list_result: string | null;
  lost_and_stolen_result: string | null;
  vog_status: string | null;
  additional_document_types: string[] | null;
  identity_messages: string[] | null;
  right_to_work_messages: string[] | null;
  face_verify_messages: string[] | null;
  driving_license_messages: string[] | null;
  payroll_tax_statement_messages: string[] | null;
  digital_signing_messages: string[] | null;
  vog_messages: string[] | null;
  face_link_messages: string[] | null;
  /** Version of the transaction's verdict: 1 for a Stored or Unavailable event, n for a Changed one. */
  version: number;
  previous_result_id: string | null;
  previous_result: string | null;
}

/** Options of {@link projectEvent}. */
export interface ProjectionOptions {
  /**
   * Whether `customer_reference` is exported (`IDV_EVENT_CUSTOMER_REFERENCE`, the setting the events
   * follow): companies may type a name into it. Omitted unless `include`, and even then only when it is
   * shaped like a reference (no space, no `@`).
   * @default 'omit'
   */
  readonly customerReference?: CustomerReferenceMode;
}

/**
 * A customer reference worth exporting: the events' rule (`CUSTOMER_REFERENCE` in
 * shared/events/details.ts; a unit test checks they agree), copied so the projector bundles no store code.
 */
export const PROJECTION_CUSTOMER_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._\-/:#]{0,63}$/;

/** The parts of an EventBridge event the projection reads (as delivered to a rule target). */
export interface PipelineEvent {
  readonly 'detail-type'?: unknown;
  readonly detail?: unknown;
}

/** An event of a result type that cannot become a record (no valid resultId or time): never retried into success. */
export class ProjectionError extends PipelineError {
  override readonly name = 'ProjectionError';
}

/** The resultId rule of the event schemas. */
const RESULT_ID = /^[A-Za-z0-9][A-Za-z0-9._:~+=@-]{0,255}$/;
const MAX_IDENTIFIER = 256;
const MAX_MESSAGE = 256;
/**
 * An array element worth keeping: a reason key or a code (letters, digits, `_`, `.`, `-`, `<`, no space).
 * Free text, a name with a space, an e-mail address or a date with `/` never passes.
 */
const REASON_OR_CODE = /^[A-Za-z0-9][A-Za-z0-9_.<-]{0,255}$/;

function text(value: unknown, max = MAX_IDENTIFIER): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

function wholeNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 2 ** 31 - 1
    ? value
    : null;
}

/** `yyyy-MM-dd HH:mm:ss.SSS` (UTC) of an ISO timestamp: the form Hive's JSON SerDe and DuckDB both read as TIMESTAMP. */
export function sqlTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return null;
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * The record of one pipeline event, or `undefined` for events that are not about a result (uploads,
 * anything else on the bus). Throws {@link ProjectionError} for a result event without a valid resultId
 * or time.
 */
export function projectEvent(
  event: PipelineEvent,
  options: ProjectionOptions = {},
): ProjectionRecord | undefined {
  const type = event['detail-type'];
  const changed = type === DETAIL_TYPES.resultChanged;
  // A changed verdict is a stored version of its result: the same columns, and its version.
  const stored = type === DETAIL_TYPES.resultStored || changed;
  if (!stored && type !== DETAIL_TYPES.resultUnavailable) return undefined;
  const detail =
    event.detail && typeof event.detail === 'object' ? (event.detail as Record<string, unknown>) : {};
  const resultId = detail['resultId'];
  if (typeof resultId !== 'string' || !RESULT_ID.test(resultId)) {
    throw new ProjectionError(`${String(type)} event without a valid resultId: not projected`);
  }
  const storedAt = sqlTimestamp(stored ? detail['storedAt'] : detail['recordedAt']);
  if (storedAt === null) {
    throw new ProjectionError(`${String(type)} event of ${resultId} without a valid time: not projected`);
  }
  const completed = sqlTimestamp(detail['completed']);
  const sections =
    detail['sections'] && typeof detail['sections'] === 'object'
      ? (detail['sections'] as Record<string, unknown>)
      : {};
  const sectionColumns = Object.fromEntries(
    Object.entries(SECTION_COLUMNS).map(([columnName, section]) => [
      columnName,
      code(sections[section]) ?? null,
    ]),
  ) as Pick<ProjectionRecord, keyof typeof SECTION_COLUMNS>;
  const sectionMessages =
    detail['sectionMessages'] && typeof detail['sectionMessages'] === 'object'
      ? (detail['sectionMessages'] as Record<string, unknown>)
      : {};
  const messageColumns = Object.fromEntries(
    Object.entries(SECTION_MESSAGE_COLUMNS).map(([columnName, section]) => [
      columnName,
      stored ? nonEmpty(codes(sectionMessages[section], MAX_MESSAGE)) : null,
    ]),
  );
  const reference = text(detail['customerReference'], 64);
  const version = changed ? wholeNumber(detail['version']) : 1;
  const previousResultId = changed ? detail['previousResultId'] : undefined;
  if (version === null || version < 1) {
    throw new ProjectionError(`${String(type)} event of ${resultId} without a valid version: not projected`);
  }
  return {
    result_id: resultId,
    transaction_id: text(detail['transactionId']),
    customer_reference:
      options.customerReference === 'include' && reference && PROJECTION_CUSTOMER_REFERENCE.test(reference)
        ? reference
        : null,
    user_id: text(detail['userId']),
    product: code(detail['product']) ?? null,
    result: stored ? (code(detail['result']) ?? null) : null,
    status: stored ? 'STORED' : 'UNAVAILABLE',
    completed,
    stored_at: storedAt,
    [PARTITION_COLUMN]: (completed ?? storedAt).slice(0, 10),
    environment: code(detail['environment']) ?? null,
    rtw_type: code(detail['rtwType']) ?? null,
    ...sectionColumns,
    additional_document_results: codes(detail['additionalDocumentResults']),
    messages: stored ? (codes(detail['messages'], MAX_MESSAGE) ?? []) : null,
    image_count: wholeNumber(detail['imageCount']),
    file_count: wholeNumber(detail['fileCount']),
    document_type: code(detail['documentType']) ?? null,
    issuing_state: code(detail['issuingState']) ?? null,
    completed_to_stored_seconds: completed === null ? null : secondsBetween(completed, storedAt),
    document_validation_approved: wholeNumber(detail['documentValidationApproved']),
    document_validation_not_applicable: wholeNumber(detail['documentValidationNotApplicable']),
    sanction_list_result: code(detail['sanctionList']) ?? null,
    lost_and_stolen_result: code(detail['lostAndStolen']) ?? null,
    vog_status: code(detail['vogStatus']) ?? null,
    additional_document_types: nonEmpty(codes(detail['additionalDocumentTypes'])),
    ...messageColumns,
    version,
    previous_result_id:
      typeof previousResultId === 'string' && RESULT_ID.test(previousResultId) ? previousResultId : null,
    previous_result: changed ? (code(detail['previousResult']) ?? null) : null,
  } as ProjectionRecord;
}

/**
 * The resultId as one S3 key segment, by the data bucket's rule (`resultIdKeyPart` in
 * shared/store/result-store.ts; a unit test checks they agree): letters, digits, `-` and `_` stay, every
 * other character becomes `.` plus two upper-case hex digits per UTF-8 byte. A copy, not an import: the
 * store module brings the DynamoDB client and the API schemas into the projector's bundle.
 */
export function projectionKeyPart(resultId: string): string {
  return resultId.replace(/[^A-Za-z0-9_-]/gu, (char) =>
    [...Buffer.from(char, 'utf8')]
      .map((byte) => `.${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  );
}

/** Seconds from `from` to `to` (both `yyyy-MM-dd HH:mm:ss.SSS` UTC), to the millisecond. */
function secondsBetween(from: string, to: string): number {
  return (Date.parse(`${to.replace(' ', 'T')}Z`) - Date.parse(`${from.replace(' ', 'T')}Z`)) / 1000;
}

/** A list with at least one element, else null. */
function nonEmpty(list: string[] | null): string[] | null {
  return list && list.length > 0 ? list : null;
}

/** The strings of an array (each at most `max` characters), or null when it is not an array. */
function codes(value: unknown, max = 64): string[] | null {
  if (!Array.isArray(value)) return null;
  return value.filter(
    (v): v is string => typeof v === 'string' && v.length > 0 && v.length <= max && REASON_OR_CODE.test(v),
  );
}

/**
 * Key of a record's object: `analytics/results/day=yyyy-MM-dd/{resultId}.{stored|unavailable}.json`, and
 * `{resultId}.v{n}.stored.json` for version `n` (2, 3, …) of a changed verdict. One object per result,
 * version and status, so a re-delivered event overwrites its own object; the `.` before the status cannot
 * come from the resultId part, whose escapes are always `.` plus two hex digits.
 */
export function recordKey(
  record: Pick<ProjectionRecord, 'result_id' | 'status' | 'day'> & { version?: number },
): string {
  const version = record.version !== undefined && record.version > 1 ? `.v${record.version}` : '';
  return `${PROJECTION_PREFIX}${PARTITION_COLUMN}=${record.day}/${projectionKeyPart(record.result_id)}${version}.${record.status.toLowerCase()}.json`;
}

/** The object body of a record: one line of JSON (what both JSON readers expect). */
export function recordLine(record: ProjectionRecord): string {
  return `${JSON.stringify(record)}\n`;
}
