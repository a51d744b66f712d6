/**
 * Publishes the pipeline's events on the custom EventBridge bus. The `detail` shapes below match the JSON
 * Schemas shipped in `./schemas/` (draft 2020-12), which consumers can validate against. A detail never
 * carries names, document numbers, dates of birth or images: only identifiers, results and reason codes,
 * each checked where the details are built (`./details`).
 */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EventPublishError } from '../errors';
import type {
  DocumentsUploadedDetail,
  ResultChangedDetail,
  ResultStoredDetail,
  ResultUnavailableDetail,
} from './detail-types';
import { DETAIL_TYPES, type DetailType, EVENT_SOURCE } from './names';

// The detail types live apart from the publisher (and its AWS SDK import), so that the package's
// `idv-pipeline/events` declarations need no SDK; re-exported for the pipeline's own modules.
export type {
  DocumentsUploadedDetail,
  ResultChangedDetail,
  ResultIdentifiers,
  ResultStoredDetail,
  ResultUnavailableDetail,
  VerificationOutcome,
} from './detail-types';

/** What the pipeline core needs from a publisher (a fake in unit tests). */
export interface EventPublisher {
  publishResultStored(detail: ResultStoredDetail): Promise<void>;
  publishResultUnavailable(detail: ResultUnavailableDetail): Promise<void>;
  publishDocumentsUploaded(detail: DocumentsUploadedDetail): Promise<void>;
  publishResultChanged(detail: ResultChangedDetail): Promise<void>;
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

  publishResultChanged(detail: ResultChangedDetail): Promise<void> {
    return this.#put(DETAIL_TYPES.resultChanged, detail);
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
