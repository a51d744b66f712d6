/** EventBridge `source` of every event this pipeline publishes. */
export const EVENT_SOURCE = 'idv.pipeline';

/** `detail-type` values of the events this pipeline publishes (docs/pipeline.md, "Event catalog"). */
export const DETAIL_TYPES = {
  resultStored: 'VerificationResultStored',
  resultUnavailable: 'VerificationResultUnavailable',
  documentsUploaded: 'VerificationDocumentsUploaded',
} as const;
export type DetailType = (typeof DETAIL_TYPES)[keyof typeof DETAIL_TYPES];
