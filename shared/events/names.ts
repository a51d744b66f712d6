/** EventBridge `source` of every event this pipeline publishes. */
export const EVENT_SOURCE = 'idv.pipeline';

/** `detail-type` values of the events this pipeline publishes (docs/events.md). */
export const DETAIL_TYPES = {
  resultStored: 'VerificationResultStored',
  resultUnavailable: 'VerificationResultUnavailable',
  documentsUploaded: 'VerificationDocumentsUploaded',
  /** A result was erased on request (docs/erasure.md, "How it runs"): downstream copies should go too. */
  resultErased: 'VerificationResultErased',
  /**
   * The service changed a stored verdict (a manual review): a new version was stored (docs/events.md,
   * "VerificationResultChanged").
   */
  resultChanged: 'VerificationResultChanged',
} as const;
export type DetailType = (typeof DETAIL_TYPES)[keyof typeof DETAIL_TYPES];

/** The archive of a bus as the stack names it (`<bus name>-archive`; the stack also outputs it). */
export function archiveNameOfBus(busNameOrArn: string): string {
  const name = busNameOrArn.startsWith('arn:')
    ? busNameOrArn.slice(busNameOrArn.lastIndexOf('/') + 1)
    : busNameOrArn;
  return `${name}-archive`;
}
