/**
 * The receipt of an erasure, as types only: the erasure record (`erasure-record.ts`) keeps it and the
 * `VerificationResultErased` event carries it (`events/detail-types.ts`), whose consumers need no AWS SDK.
 */

/** Gone when the erasure ended. */
export interface ErasedNow {
  readonly erased: true;
}

/** A copy out of the erasure's reach, gone by this time (ISO 8601) at the latest. */
export interface ExpiresBy {
  readonly expiresBy: string;
}

/** One store's line of the receipt. */
export type ReceiptEntry = ErasedNow | ExpiresBy;

/**
 * The receipt of an erasure (built by `erasureReceipt` in shared/erasure/bounds.ts from the deployment's bounds): per store,
 * erased at once or gone by a date.
 */
export interface ErasureReceipt {
  /** Every object version and upload of the result in the data bucket. */
  readonly dataBucket: ErasedNow;
  /** The result item, publication record, polling record and enqueue marker. */
  readonly tables: ErasedNow;
  /** The analytics projection's row, when the deployment has one. */
  readonly analyticsRow?: ErasedNow;
  /** The local run's journals (local only). */
  readonly localFiles?: ErasedNow;
  /** Point-in-time recovery of the results table (AWS). */
  readonly tableBackups?: ExpiresBy;
  /** Old snapshots and unreferenced files of the Iceberg table (AWS, with analytics). */
  readonly analyticsSnapshots?: ExpiresBy;
  /** Athena query results (`athena-results/`) that may hold the row (AWS, with analytics). */
  readonly queryResults?: ExpiresBy;
  /** Firehose's failed records (`delivery-errors/`): the result events (AWS, with analytics). */
  readonly deliveryErrors?: ExpiresBy;
  /** The event archive's copies of the result events (AWS). */
  readonly eventArchive?: ExpiresBy;
}
