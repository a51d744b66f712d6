/**
 * Publishes the pipeline's events on the custom EventBridge bus. The `detail` shapes below match the JSON
 * Schemas shipped in `./schemas/` (draft 2020-12), which consumers can validate against. A detail never
 * carries names, document numbers, dates of birth or images: only identifiers, results and reason codes,
 * each checked where the details are built (`./details`).
 */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { Product, ResultValue, ServiceEnvironment } from '../api/enums';
import type { ResultSection } from '../api/sections';
import { EventPublishError } from '../errors';
import { DETAIL_TYPES, type DetailType, EVENT_SOURCE } from './names';

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

/** What the pipeline core needs from a publisher (a fake in unit tests). */
export interface EventPublisher {
  publishResultStored(detail: ResultStoredDetail): Promise<void>;
  publishResultUnavailable(detail: ResultUnavailableDetail): Promise<void>;
  publishDocumentsUploaded(detail: DocumentsUploadedDetail): Promise<void>;
}

/** EventBridge-backed publisher: one `PutEvents` entry per event; a failed entry is an error. */
export class EventBridgePublisher implements EventPublisher {
  readonly #client: EventBridgeClient;
  readonly #busName: string;

  constructor(client: EventBridgeClient, busName: string) {
    this.#client = client;
    this.#busName = busName;
  }

  publishResultStored(detail: ResultStoredDetail): Promise<void> {
    return this.#put(DETAIL_TYPES.resultStored, detail);
  }

  publishResultUnavailable(detail: ResultUnavailableDetail): Promise<void> {
    return this.#put(DETAIL_TYPES.resultUnavailable, detail);
  }

  publishDocumentsUploaded(detail: DocumentsUploadedDetail): Promise<void> {
    return this.#put(DETAIL_TYPES.documentsUploaded, detail);
  }

  async #put(detailType: DetailType, detail: object): Promise<void> {
    const input = {
      Entries: [
        {
          EventBusName: this.#busName,
          Source: EVENT_SOURCE,
          DetailType: detailType,
          Detail: JSON.stringify(detail),
        },
      ],
    };
    const response = await this.#client.send(new PutEventsCommand(input));
    // PutEvents answers 200 even when an entry was rejected: only FailedEntryCount tells.
    const failed = response.FailedEntryCount ?? 0;
    if (failed > 0) {
      const entry = response.Entries?.find((e) => e.ErrorCode);
      throw new EventPublishError(
        `EventBridge rejected the ${detailType} event (${entry?.ErrorCode ?? 'unknown error'})`,
        entry?.ErrorCode,
      );
    }
  }
}
