/**
 * The analytics projection of a local data directory, as a test needs it filled: a stored, approved
 * result appended to the incoming lines, as the local run appends each event it projects.
 */
import { appendRecord } from '../../local/analytics-store';
import { projectEvent } from '../../shared/analytics/projection';
import { DETAIL_TYPES } from '../../shared/events/names';

/** Appends the projection of an approved, stored `resultId` to `dataDir`'s analytics. */
export function appendApprovedResult(dataDir: string, resultId: string): void {
  appendRecord(
    dataDir,
    projectEvent({
      'detail-type': DETAIL_TYPES.resultStored,
      detail: {
        resultId,
        product: 'IDV_STANDARD',
        status: 'STORED',
        result: 'APPROVED',
        sections: { identity: 'APPROVED' },
        messages: [],
        completed: '2026-08-01T10:00:00.000Z',
        storedAt: '2026-08-01T10:00:04.000Z',
        environment: 'staging',
        imageCount: 2,
        fileCount: 1,
      },
    })!,
  );
}
