/**
 * The acknowledge decision of a delivery whose publication claim was refused (`shared/pipeline/acknowledge.ts`):
 * its message may be deleted only when the store shows where the result ended.
 */
import { describe, expect, it } from 'vitest';
import { publishedFor, refusedClaimOutcome, visibleEnd } from '../../shared/pipeline/acknowledge';
import type { ResultItem } from '../../shared/store/item';

const item = (status: 'STORED' | 'UNAVAILABLE', eventPublishedAt?: string): ResultItem => ({
  resultId: 'r-1',
  status,
  completed: '2027-01-01T00:00:00.000Z',
  completedKnown: true,
  completedDay: '2027-01-01',
  storedAt: '2027-01-01T00:00:00.000Z',
  expiresAt: 1_900_000_000,
  ...(eventPublishedAt && { eventPublishedAt }),
});

describe('acknowledge decision', () => {
  it.each([
    [{ item: undefined, erased: false }, undefined, undefined],
    [{ item: undefined, erased: true }, 'ERASED', 'erased'],
    [{ item: item('STORED'), erased: true }, 'ERASED', 'erased'],
    [{ item: item('STORED'), erased: false }, 'STORED', 'claimed-elsewhere'],
    [{ item: item('UNAVAILABLE'), erased: false }, 'UNAVAILABLE', 'claimed-elsewhere'],
    [{ item: item('STORED', '2027-01-02T00:00:00.000Z'), erased: false }, 'STORED', 'duplicate'],
    [{ item: item('UNAVAILABLE', '2027-01-02T00:00:00.000Z'), erased: false }, 'UNAVAILABLE', 'duplicate'],
    [
      { item: { ...item('STORED'), status: 'PENDING' } as unknown as ResultItem, erased: false },
      undefined,
      undefined,
    ],
  ])('store state %j: end %s, outcome %s', (state, end, outcome) => {
    // Act / Assess
    expect(visibleEnd(state)).toBe(end);
    expect(refusedClaimOutcome(state)).toBe(outcome);
  });

  it.each([
    ['STORED', { status: 'STORED', publishedAt: 't' }, true],
    ['UNAVAILABLE', { status: 'UNAVAILABLE', publishedAt: 't' }, true],
    ['UNAVAILABLE', { status: 'STORED', publishedAt: 't' }, false],
    ['STORED', { status: 'UNAVAILABLE', publishedAt: 't' }, false],
    ['STORED', { status: 'STORED', claim: 'm-2' }, false],
    ['STORED', undefined, false],
  ] as const)('a %s claim refused by %j: published %s', (status, record, published) => {
    // Act / Assess
    expect(publishedFor(status, record)).toBe(published);
  });

  it.each([
    [{ status: 'STORED', publishedAt: 't' }, 2, false],
    [{ status: 'STORED', publishedAt: 't', version: 2 }, 2, true],
    [{ status: 'STORED', publishedAt: 't', version: 3 }, 2, true],
    [{ status: 'STORED', publishedAt: 't', version: 2, claim: 'm-2', claimVersion: 3 }, 3, false],
  ] as const)(
    'a claim of a later version refused by %j (version %i): published %s',
    (record, version, published) => {
      // Act / Assess: only a mark of that version (or a later one) makes the refused delivery a duplicate;
      // the previous version's publication means another delivery still has the new verdict to announce.
      expect(publishedFor('STORED', record, version)).toBe(published);
    },
  );
});
