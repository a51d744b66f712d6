/**
 * The `detail` of each event the pipeline publishes, as types only: `idv-pipeline/events` exports them
 * to consumers, who need neither the publisher nor the AWS SDK it imports.
 */
import type { Product, ResultValue, ServiceEnvironment } from '../api/enums';
import type { ResultSection } from '../api/sections';
import type { ErasureReceipt } from '../store/erasure-receipt';

/** Identifiers shared by the result events (each checked by `./details`). */
export interface ResultIdentifiers {
  resultId: string;
  transactionId?: string;
  /** Left out where the environment omits references (`IDV_EVENT_CUSTOMER_REFERENCE=omit`). */
  customerReference?: string;
  userId?: string;
  /** A product of the spec, or `UNKNOWN`. */
  product?: Product | 'UNKNOWN';
  completed?: string;
}

/** `detail` of `VerificationResultStored`. */
export interface ResultStoredDetail extends ResultIdentifiers {
  status: 'STORED';
  result?: ResultValue;
  sections: Partial<Record<ResultSection, ResultValue>>;
  /** Reason keys of the result; entries not shaped like one are left out and counted in `messagesDropped`. */
  messages: string[];
  messagesDropped?: number;
  /** Rule set of the right-to-work check (`rightToWork.rtwType`), when present. */
  rtwType?: string;
  /** Number of images and of files in the result. */
  imageCount?: number;
  fileCount?: number;
  /** Type and issuing state of the identity document, as the service reports them (codes only). */
  documentType?: string;
  issuingState?: string;
  /** Result of each additional document, in order; absent when there are none. */
  additionalDocumentResults?: ResultValue[];
  /** Type of each additional document, in the same order (upper-case codes). */
  additionalDocumentTypes?: string[];
  /** Security features of `identity.documentValidation` that are APPROVED, and NOT_APPLICABLE. */
  documentValidationApproved?: number;
  documentValidationNotApplicable?: number;
  /** Outcomes of the sanction-list and lost-and-stolen checks: NOT_EXECUTED, HIT or NO_HIT. */
  sanctionList?: VerificationOutcome;
  lostAndStolen?: VerificationOutcome;
  /** `vog.status` (an upper-case code). */
  vogStatus?: string;
  /** Reason keys of each section that has any. */
  sectionMessages?: Partial<Record<ResultSection, string[]>>;
  storedAt: string;
  environment: ServiceEnvironment;
  storage: { table: string; bucket: string; resultKey: string; objectCount?: number };
}

/** Outcome of a sanction-list or lost-and-stolen check (§2.5, identity.verifications). */
export type VerificationOutcome = 'NOT_EXECUTED' | 'HIT' | 'NO_HIT' | 'UNKNOWN';

/** `detail` of `VerificationResultUnavailable`. */
export interface ResultUnavailableDetail extends ResultIdentifiers {
  status: 'UNAVAILABLE';
  reason: 'NOT_FOUND';
  recordedAt: string;
  environment: ServiceEnvironment;
  storage: { table: string };
}

/** `detail` of `VerificationDocumentsUploaded`. */
export interface DocumentsUploadedDetail {
  transactionId: string;
  secureId?: string;
  customerReference?: string;
  uploadedAt: string;
  environment: ServiceEnvironment;
}

/**
 * `detail` of `VerificationResultChanged`: a verdict stored before was changed by the service, and the
 * new version is stored. Identifiers, versions, verdicts and reason keys only.
 */
export interface ResultChangedDetail {
  /** The transaction whose verdict changed, when it is id-shaped. */
  transactionId?: string;
  /** The result that holds the new verdict (the same as `previousResultId` when the service announced it again). */
  resultId: string;
  previousResultId: string;
  /** Version of the new verdict (2, 3, …) and of the one it replaces: with `resultId`, the dedupe key. */
  version: number;
  previousVersion: number;
  result: ResultValue;
  previousResult: ResultValue;
  sections: Partial<Record<ResultSection, ResultValue>>;
  previousSections: Partial<Record<ResultSection, ResultValue>>;
  /** Reason keys of the new verdict (entries not shaped like one are left out). */
  messages: string[];
  product?: Product | 'UNKNOWN';
  /** When the service completed each version (its `completed`), when known: the order of versions. */
  completed?: string;
  previousCompleted?: string;
  storedAt: string;
  environment: ServiceEnvironment;
  storage: { table: string; bucket: string; resultKey: string };
}

/** `detail` of `VerificationResultErased`. */
export interface ResultErasedDetail {
  resultId: string;
  /** The erased result's transaction, when it was known and id-shaped. */
  transactionId?: string;
  status: 'ERASED';
  erasedAt: string;
  /** Service environment, when the erasing tool knows it. */
  environment?: ServiceEnvironment;
  /** Where the erasure record is (the results table); the record holds the counts. */
  storage: { table: string };
  /** What was removed, counts only. */
  removed: { objectVersions: number; deleteMarkers: number; items: number; analyticsRows: number };
  /** Per store: erased at once, or the time by which the copy out of the erasure's reach is gone. */
  receipt: ErasureReceipt;
}
