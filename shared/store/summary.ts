/**
 * The few non-personal facts of a result that the analytics projection needs beyond the item's
 * identifiers, sections and reason codes. Computed once from the (stripped) result when it is stored,
 * kept on the item and carried by the `VerificationResultStored` event, so the projection never reads
 * the document and never sees a name, a number or a date of birth.
 */
import { RESULT_SECTIONS } from '../api/sections';
import { isJsonObject } from '../json-object';

/** Non-personal facts of one result. */
export interface ResultSummary {
  /** `rightToWork.rtwType`: the rule set applied (RTW_NL, …). */
  readonly rtwType?: string;
  /** Entries of `images`. */
  readonly imageCount: number;
  /** Entries of `files`. */
  readonly fileCount: number;
  /** `identity.data.documentType`. */
  readonly documentType?: string;
  /** `identity.data.issuingStateOrOrganization`. */
  readonly issuingState?: string;
  /** `additionalDocuments[].result`, in order; absent when the result has no additional documents. */
  readonly additionalDocumentResults?: string[];
  /** `additionalDocuments[].additionalDocumentType`, in the same order; absent when there are none. */
  readonly additionalDocumentTypes?: string[];
  /** Security features of `identity.documentValidation` that are APPROVED; absent without the object. */
  readonly documentValidationApproved?: number;
  /** Security features of `identity.documentValidation` that are NOT_APPLICABLE; absent without the object. */
  readonly documentValidationNotApplicable?: number;
  /** `identity.verifications.sanctionList.verificationResult` (NOT_EXECUTED, HIT, NO_HIT). */
  readonly sanctionList?: string;
  /** `identity.verifications.lostAndStolen.verificationResult` (NOT_EXECUTED, HIT, NO_HIT). */
  readonly lostAndStolen?: string;
  /** `vog.status`: status of the certificate-of-conduct request. */
  readonly vogStatus?: string;
  /** Reason keys of each section that has any (`{ identity: ['DOCUMENT_EXPIRED'] }`); absent when none has. */
  readonly sectionMessages?: Record<string, string[]>;
}

/** Sections whose `messages` the summary keeps (the spec's list, `shared/api/sections.ts`). */
const MESSAGE_SECTIONS = RESULT_SECTIONS;
/** At most this many reason keys per section are kept (the item and event stay bounded). */
const MAX_SECTION_MESSAGES = 32;

/**
 * A category code worth keeping: short, and only the characters codes use (letters, digits, `_`, `-`,
 * `<` as MRZ filler, space). These fields are categories by the spec; the check keeps a service that
 * misplaces free text (a name, a number with a slash) from carrying it into the projection.
 */
export const CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_< -]{0,63}$/;

/** `value` when it is a code (see {@link CODE_PATTERN}), else undefined. */
export function code(value: unknown): string | undefined {
  return typeof value === 'string' && CODE_PATTERN.test(value) ? value : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** The codes among the strings of `value` (at most `max`), or undefined when there is none. */
function codeList(value: unknown, max = MAX_SECTION_MESSAGES): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const codes = value.map(code).filter((c): c is string => c !== undefined);
  return codes.length > 0 ? codes.slice(0, max) : undefined;
}

function count(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

/** The summary of a result document (raw or stripped: only structure and codes are read). */
export function summarizeResult(document: Record<string, unknown>): ResultSummary {
  const identityData = record(record(document['identity'])?.['data']);
  const additional = document['additionalDocuments'];
  const summary: {
    -readonly [K in keyof ResultSummary]: ResultSummary[K];
  } = {
    imageCount: count(document['images']),
    fileCount: count(document['files']),
  };
  const rtwType = code(record(document['rightToWork'])?.['rtwType']);
  if (rtwType) summary.rtwType = rtwType;
  const documentType = code(identityData?.['documentType']);
  if (documentType) summary.documentType = documentType;
  const issuingState = code(identityData?.['issuingStateOrOrganization']);
  if (issuingState) summary.issuingState = issuingState;
  if (Array.isArray(additional) && additional.length > 0) {
    summary.additionalDocumentResults = additional
      .map((entry) => code(record(entry)?.['result']))
      .filter((result): result is string => result !== undefined);
    const types = additional
      .map((entry) => code(record(entry)?.['additionalDocumentType']))
      .filter((type): type is string => type !== undefined);
    if (types.length > 0) summary.additionalDocumentTypes = types;
  }
  const identity = record(document['identity']);
  const validation = record(identity?.['documentValidation']);
  if (validation) {
    const outcomes = Object.values(validation);
    summary.documentValidationApproved = outcomes.filter((v) => v === 'APPROVED').length;
    summary.documentValidationNotApplicable = outcomes.filter((v) => v === 'NOT_APPLICABLE').length;
  }
  const verifications = record(identity?.['verifications']);
  const sanctionList = code(record(verifications?.['sanctionList'])?.['verificationResult']);
  if (sanctionList) summary.sanctionList = sanctionList;
  const lostAndStolen = code(record(verifications?.['lostAndStolen'])?.['verificationResult']);
  if (lostAndStolen) summary.lostAndStolen = lostAndStolen;
  const vogStatus = code(record(document['vog'])?.['status']);
  if (vogStatus) summary.vogStatus = vogStatus;
  const sectionMessages: Record<string, string[]> = {};
  for (const section of MESSAGE_SECTIONS) {
    const messages = codeList(record(document[section])?.['messages']);
    if (messages) sectionMessages[section] = messages;
  }
  if (Object.keys(sectionMessages).length > 0) summary.sectionMessages = sectionMessages;
  return summary;
}

/** The event-detail fields of a summary (flat, so EventBridge rules can match on them). */
export function summaryDetail(summary: ResultSummary | undefined): Partial<ResultSummary> {
  if (!summary) return {};
  return {
    ...(summary.rtwType && { rtwType: summary.rtwType }),
    imageCount: summary.imageCount,
    fileCount: summary.fileCount,
    ...(summary.documentType && { documentType: summary.documentType }),
    ...(summary.issuingState && { issuingState: summary.issuingState }),
    ...(summary.additionalDocumentResults && {
      additionalDocumentResults: [...summary.additionalDocumentResults],
    }),
    ...(summary.additionalDocumentTypes && { additionalDocumentTypes: [...summary.additionalDocumentTypes] }),
    ...(summary.documentValidationApproved !== undefined && {
      documentValidationApproved: summary.documentValidationApproved,
    }),
    ...(summary.documentValidationNotApplicable !== undefined && {
      documentValidationNotApplicable: summary.documentValidationNotApplicable,
    }),
    ...(summary.sanctionList && { sanctionList: summary.sanctionList }),
    ...(summary.lostAndStolen && { lostAndStolen: summary.lostAndStolen }),
    ...(summary.vogStatus && { vogStatus: summary.vogStatus }),
    ...(summary.sectionMessages && { sectionMessages: { ...summary.sectionMessages } }),
  };
}

/**
 * The summary fields of a STORED item's event: from the item's `summary`, or, for an item stored before
 * summaries existed, from the document it holds (none when the document lives only in S3).
 */
export function itemSummaryDetail(item: {
  summary?: ResultSummary;
  document?: Record<string, unknown>;
}): Partial<ResultSummary> {
  return summaryDetail(item.summary ?? (item.document ? summarizeResult(item.document) : undefined));
}
