/**
 * Result items as `buildStoredItem` builds them for unit tests of the item's bounds and the store: result
 * `r`, stored in `bucket` on 11 August, kept 7 days.
 */
import { buildStoredItem, type ResultItem } from '../../shared/store/item';
import type { ObjectRef } from '../../shared/stream/blob-sink';

/** The stored item of result `r` holding `document`, whose blobs are `objects`. */
export function storedItemOf(document: Record<string, unknown>, objects: ObjectRef[] = []): ResultItem {
  return buildStoredItem({
    hints: { resultId: 'r' },
    document,
    stored: { resultKey: 'results/r/result.json', objects, documentBytes: JSON.stringify(document).length },
    bucket: 'bucket',
    storedAt: '2026-08-11T00:00:00.000Z',
    retentionDays: 7,
  });
}
