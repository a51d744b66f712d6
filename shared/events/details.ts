/**
 * The `detail` of every event the pipeline publishes, built here and nowhere else: every field is checked
 * on its way out, because a result item and a queue message carry what the service (or an older message)
 * said, and a buggy or compromised service may put a name, a date of birth or a token anywhere
 * (docs/events.md, "What an event may carry"). The rules, one per kind of field:
 *
 * - values the spec enumerates (`result`, each section's value, `additionalDocumentResults`, `product`)
 *   are one of the spec's values, else the literal `UNKNOWN`;
 * - section names only from the spec's list; any other name is left out with its value;
 * - `messages` keep only entries shaped like reason keys ({@link REASON_KEY}); the others are left out
 *   and counted in `messagesDropped`;
 * - identifiers (`resultId`, `transactionId`, `secureId`) follow the resultId rule; a `userId` also may
 *   not hold `@` (an e-mail address names a person); else the field is left out;
 * - `customerReference` is short and code-like ({@link CUSTOMER_REFERENCE}), and only when the
 *   environment includes it at all (`IDV_EVENT_CUSTOMER_REFERENCE`): some companies put a name in it;
 * - codes (`rtwType`, `documentType`) are upper-case codes, `issuingState` a three-letter code;
 * - `completed` (from the poll record) is an ISO 8601 UTC timestamp; the other times are the pipeline's.
 * The JSON Schemas in `./schemas/` state the same rules, so a consumer can check them.
 */

import { PRODUCTS, RESULT_VALUES, type ResultValue, type ServiceEnvironment } from '../api/enums';
import { RESULT_ID_PATTERN } from '../api/result-id';
import { RESULT_SECTIONS, type ResultSection } from '../api/sections';
import { type CustomerReferenceMode, defaultCustomerReferenceMode } from '../config';
import { MalformedMessageError, PipelineError } from '../errors';
import { isJsonObject } from '../json-object';
import type { ResultItem } from '../store/item';
import { resultJsonKey } from '../store/keys';
import { itemSummaryDetail } from '../store/summary';
import { type ResultVersion, versionOf } from '../store/versions';
import type {
  DocumentsUploadedDetail,
  ResultChangedDetail,
  ResultIdentifiers,
  ResultStoredDetail,
  ResultUnavailableDetail,
} from './publisher';

/** The value an enumerated field takes when the service sent something else. */
export const UNKNOWN = 'UNKNOWN';

/**
 * A reason key: upper-case words of letters and digits joined by `_` or `.` (`DOCUMENT_EXPIRED`,
 * `MRZ.CHECK_FAILED`), at most 64 characters, and never a run of four digits or more — document numbers,
 * dates, phone and account numbers are digit runs, reason keys are names.
 */
export const REASON_KEY = /^(?!.*\d{4})[A-Z][A-Z0-9]*(?:[._][A-Z0-9]+)*$/;
const MAX_REASON_KEY_LENGTH = 64;

/**
 * A customer reference an event may carry: 1-64 letters, digits and `.` `_` `-` `/` `:` `#`, starting with
 * a letter or digit (`order-1234`, `ORD/2026/17`). No space and no `@`, so a full name or an e-mail address
 * never passes; a reference that is itself personal data but looks like a code (a date, a document number)
 * does, which is why production omits references altogether.
 */
export const CUSTOMER_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._\-/:#]{0,63}$/;

/** A userId: the resultId rule without `@` (an e-mail address is personal data of the account's user). */
export const USER_ID = /^[A-Za-z0-9][A-Za-z0-9._:~+=-]{0,255}$/;

/** An upper-case code (`rtwType`, `documentType`): `RTW_NL`, `PASSPORT`; no digit run of four or more. */
export const UPPER_CODE = /^(?!.*\d{4})[A-Z][A-Z0-9_]{0,63}$/;

/** An issuing state or organisation: a three-letter code, `<` as MRZ filler (`NLD`, `D<<`). */
export const ISSUING_STATE = /^[A-Z][A-Z<]{0,2}$/;

/** A timestamp as the pipeline writes it (`Date.prototype.toISOString`, UTC). */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

/** What a detail needs besides the item or message. */
export interface DetailOptions {
  readonly environment: ServiceEnvironment;
  /** Table and bucket of the store, for `storage`. */
  readonly store: { readonly table: string; readonly bucket: string };
  /**
   * Whether `customerReference` goes into events.
   * @default {@link defaultCustomerReferenceMode} of `environment`
   */
  readonly eventCustomerReference?: CustomerReferenceMode;
}

/** What an upload event is built from (an upload queue message). */
export interface UploadFacts {
  readonly transactionId: string;
  readonly secureId?: string | undefined;
  readonly uploadedAt: string;
}

/** `value` when it is a string matching `pattern`, else undefined. */
function matching(value: unknown, pattern: RegExp): string | undefined {
  return typeof value === 'string' && pattern.test(value) ? value : undefined;
}

/** A value of `allowed`, else {@link UNKNOWN}. */
function enumerated<T extends string>(value: unknown, allowed: readonly T[]): T | typeof UNKNOWN {
  return (allowed as readonly unknown[]).includes(value) ? (value as T) : UNKNOWN;
}

/** A result value of the spec (`UNKNOWN` is one), else `UNKNOWN`. */
export function resultValue(value: unknown): ResultValue {
  return enumerated(value, RESULT_VALUES);
}

/** The known sections of `sections`, each with a result value of the spec (else `UNKNOWN`). */
export function sectionValues(sections: unknown): Partial<Record<ResultSection, ResultValue>> {
  const out: Partial<Record<ResultSection, ResultValue>> = {};
  if (!isJsonObject(sections)) return out;
  for (const name of RESULT_SECTIONS) {
    if (Object.hasOwn(sections, name)) out[name] = resultValue(sections[name]);
  }
  return out;
}

/** The entries of `messages` shaped like reason keys, and how many others were left out. */
export function reasonKeys(messages: unknown): { messages: string[]; dropped: number } {
  if (!Array.isArray(messages)) return { messages: [], dropped: 0 };
  const kept: string[] = [];
  for (const message of messages) {
    if (typeof message === 'string' && message.length <= MAX_REASON_KEY_LENGTH && REASON_KEY.test(message)) {
      kept.push(message);
    }
  }
  return { messages: kept, dropped: messages.length - kept.length };
}

function customerReferenceOf(value: unknown, options: DetailOptions): string | undefined {
  const mode = options.eventCustomerReference ?? defaultCustomerReferenceMode(options.environment);
  return mode === 'include' ? matching(value, CUSTOMER_REFERENCE) : undefined;
}

function identifiers(item: ResultItem, options: DetailOptions): ResultIdentifiers {
  const transactionId = matching(item.transactionId, RESULT_ID_PATTERN);
  const customerReference = customerReferenceOf(item.customerReference, options);
  const userId = matching(item.userId, USER_ID);
  const completed = item.completedKnown ? matching(item.completed, ISO_UTC) : undefined;
  return {
    resultId: item.resultId,
    ...(transactionId && { transactionId }),
    ...(customerReference && { customerReference }),
    ...(userId && { userId }),
    ...(item.product !== undefined && { product: enumerated(item.product, PRODUCTS) }),
    ...(completed && { completed }),
  };
}

/**
 * The summary fields of a stored item (`shared/store/summary`), each checked again: codes only, and
 * additional documents' results from the spec's values.
 */
function summaryFields(item: ResultItem): Partial<ResultStoredDetail> {
  const summary = itemSummaryDetail(item);
  const rtwType = matching(summary.rtwType, UPPER_CODE);
  const documentType = matching(summary.documentType, UPPER_CODE);
  const issuingState = matching(summary.issuingState, ISSUING_STATE);
  const vogStatus = matching(summary.vogStatus, UPPER_CODE);
  const sectionMessages = sectionMessageKeys(summary.sectionMessages);
  return {
    ...(rtwType && { rtwType }),
    ...(summary.imageCount !== undefined && { imageCount: summary.imageCount }),
    ...(summary.fileCount !== undefined && { fileCount: summary.fileCount }),
    ...(documentType && { documentType }),
    ...(issuingState && { issuingState }),
    ...(summary.additionalDocumentResults && {
      additionalDocumentResults: summary.additionalDocumentResults.map(resultValue),
    }),
    ...(summary.additionalDocumentTypes && {
      additionalDocumentTypes: summary.additionalDocumentTypes.filter((t) => UPPER_CODE.test(t)),
    }),
    ...(count(summary.documentValidationApproved) !== undefined && {
      documentValidationApproved: count(summary.documentValidationApproved),
    }),
    ...(count(summary.documentValidationNotApplicable) !== undefined && {
      documentValidationNotApplicable: count(summary.documentValidationNotApplicable),
    }),
    ...(summary.sanctionList !== undefined && {
      sanctionList: enumerated(summary.sanctionList, VERIFICATION_OUTCOMES),
    }),
    ...(summary.lostAndStolen !== undefined && {
      lostAndStolen: enumerated(summary.lostAndStolen, VERIFICATION_OUTCOMES),
    }),
    ...(vogStatus && { vogStatus }),
    ...(sectionMessages && { sectionMessages }),
  };
}

/** Outcomes of identity.verifications checks (§2.5). */
const VERIFICATION_OUTCOMES = ['NOT_EXECUTED', 'HIT', 'NO_HIT'] as const;

/** A count of security features (at most the spec's nine, bounded generously). */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 64
    ? value
    : undefined;
}

/** Reason keys per known section, each list checked like `messages`; undefined when none is left. */
function sectionMessageKeys(value: unknown): Partial<Record<ResultSection, string[]>> | undefined {
  if (!isJsonObject(value)) return undefined;
  const out: Partial<Record<ResultSection, string[]>> = {};
  for (const name of RESULT_SECTIONS) {
    const { messages } = reasonKeys(value[name]);
    if (messages.length > 0) out[name] = messages;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Refuses an item whose resultId breaks the rule (items are only written under well-formed ones). */
function checkResultId(item: ResultItem): void {
  if (!RESULT_ID_PATTERN.test(item.resultId)) {
    throw new PipelineError('the result item resultId breaks the resultId rule: no event published');
  }
}

/** `detail` of `VerificationResultStored` for a STORED item. */
export function storedDetail(item: ResultItem, options: DetailOptions): ResultStoredDetail {
  checkResultId(item);
  const { messages, dropped } = reasonKeys(item.messages);
  return {
    ...identifiers(item, options),
    status: 'STORED',
    ...(item.result !== undefined && { result: resultValue(item.result) }),
    sections: sectionValues(item.sections),
    messages,
    ...(dropped > 0 && { messagesDropped: dropped }),
    ...summaryFields(item),
    storedAt: item.storedAt,
    environment: options.environment,
    storage: {
      table: options.store.table,
      bucket: item.bucket ?? options.store.bucket,
      resultKey: item.resultKey ?? resultJsonKey(item.resultId),
      objectCount: item.objectCount ?? item.objects?.length ?? 0,
    },
  };
}

/**
 * `detail` of `VerificationResultChanged` for a STORED item that holds a later version, and the version
 * before it (from the item's history). Identifiers, versions, verdicts and reason keys only: no
 * customerReference or userId, whatever the environment's setting.
 */
export function changedDetail(
  item: ResultItem,
  previous: ResultVersion,
  options: DetailOptions,
): ResultChangedDetail {
  checkResultId(item);
  if (!RESULT_ID_PATTERN.test(previous.resultId)) {
    throw new PipelineError('the previous version resultId breaks the resultId rule: no event published');
  }
  const { transactionId, product, completed } = identifiers(item, options);
  const previousCompleted = previous.completedKnown ? matching(previous.completed, ISO_UTC) : undefined;
  return {
    ...(transactionId && { transactionId }),
    resultId: item.resultId,
    previousResultId: previous.resultId,
    version: versionOf(item),
    previousVersion: previous.version,
    result: resultValue(item.result),
    previousResult: resultValue(previous.result),
    sections: sectionValues(item.sections),
    previousSections: sectionValues(previous.sections),
    messages: reasonKeys(item.messages).messages,
    ...(product && { product }),
    ...(completed && { completed }),
    ...(previousCompleted && { previousCompleted }),
    storedAt: item.storedAt,
    environment: options.environment,
    storage: {
      table: options.store.table,
      bucket: item.bucket ?? options.store.bucket,
      resultKey: item.resultKey ?? resultJsonKey(item.resultId, versionOf(item)),
    },
  };
}

/** `detail` of `VerificationResultUnavailable` for an UNAVAILABLE item. */
export function unavailableDetail(item: ResultItem, options: DetailOptions): ResultUnavailableDetail {
  checkResultId(item);
  return {
    ...identifiers(item, options),
    status: 'UNAVAILABLE',
    reason: 'NOT_FOUND',
    recordedAt: item.storedAt,
    environment: options.environment,
    storage: { table: options.store.table },
  };
}

/**
 * `detail` of `VerificationDocumentsUploaded`. Never a customerReference: the upload webhook's body is
 * unconfirmed. A transactionId that breaks the resultId rule (a message of an older version) is refused:
 * the event would name no transaction a consumer could look up.
 */
export function uploadedDetail(upload: UploadFacts, options: DetailOptions): DocumentsUploadedDetail {
  const transactionId = matching(upload.transactionId, RESULT_ID_PATTERN);
  if (!transactionId) {
    throw new MalformedMessageError('queue message field transactionId breaks the resultId rule');
  }
  const secureId = matching(upload.secureId, RESULT_ID_PATTERN);
  return {
    transactionId,
    ...(secureId && { secureId }),
    uploadedAt: upload.uploadedAt,
    environment: options.environment,
  };
}
