/**
 * The acknowledge decision of fetch-result for a delivery that did not get the publication claim
 * (docs/reliability.md, "Every message ends somewhere you can see"). Such a delivery does no work of its
 * own, so its message may be deleted only when the store already shows where the result ended: its item
 * STORED or UNAVAILABLE, or its erasure record. A claim held by another delivery is not such a place:
 * that delivery may fail, and a STORED record left by earlier failed attempts may have no item at all.
 * Then the record fails and SQS delivers it again (the claim has expired by then), ending in the DLQ if
 * it never resolves. Pure functions, so the decision is tested (and mutation-tested) on its own.
 */
import type { ResultStatus } from '../store/item';
import type { PublicationRecord } from '../store/publication';
import type { ResultState } from '../store/result-store';

/** Where the store shows a result ended. */
export type VisibleEnd = 'STORED' | 'UNAVAILABLE' | 'ERASED';

/** The end the store shows for a result, or undefined when it shows none (no item, not erased). */
export function visibleEnd(state: ResultState): VisibleEnd | undefined {
  if (state.erased) return 'ERASED';
  const status = state.item?.status;
  return status === 'STORED' || status === 'UNAVAILABLE' ? status : undefined;
}

/**
 * True when the record that refused a `status` claim (of `version`, the first by default) says that
 * status's event is out, for that version or a later one: a mark is written only after the item, so the
 * item is there (no second read needed).
 */
export function publishedFor(
  status: ResultStatus,
  record: PublicationRecord | undefined,
  version = 1,
): boolean {
  return record?.publishedAt !== undefined && record.status === status && (record.version ?? 1) >= version;
}

/** What a delivery whose claim was refused reports, once it has read the store. */
export type RefusedClaimOutcome = 'duplicate' | 'erased' | 'claimed-elsewhere';

/**
 * The outcome of a refused claim from the store's state: `erased`; `duplicate` when the item is there and
 * its event is out; `claimed-elsewhere` when the item is there and the claim's holder announces it (its own
 * message stays queued until it has); undefined when the store shows no end: the record must fail.
 */
export function refusedClaimOutcome(state: ResultState): RefusedClaimOutcome | undefined {
  const end = visibleEnd(state);
  if (end === undefined) return undefined;
  if (end === 'ERASED') return 'erased';
  return state.item?.eventPublishedAt ? 'duplicate' : 'claimed-elsewhere';
}
