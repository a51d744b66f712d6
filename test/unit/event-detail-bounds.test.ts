/**
 * The event field checks of `shared/events/details.ts` at their bounds: counts (integers 0-64), the
 * `completed` timestamp (anchored ISO 8601 UTC, only when known), the length and digit-run limits of
 * reason keys, references and codes, and the resultId rule that refuses an event altogether. Each case
 * sits on one side of a limit, so a check that is loosened or tightened by one fails here.
 */
import { describe, expect, it } from 'vitest';
import { PipelineError } from '../../shared/errors';
import {
  reasonKeys,
  resultValue,
  sectionValues,
  storedDetail,
  UNKNOWN,
  unavailableDetail,
  uploadedDetail,
} from '../../shared/events/details';
import type { ResultItem } from '../../shared/store/item';
import type { ResultSummary } from '../../shared/store/summary';

const OPTIONS = {
  environment: 'staging' as const,
  store: { table: 'results', bucket: 'data' },
  eventCustomerReference: 'include' as const,
};

function item(fields: Partial<ResultItem> = {}): ResultItem {
  return {
    resultId: 'r-1',
    status: 'STORED',
    completed: '2026-08-10T12:00:00Z',
    completedKnown: true,
    completedDay: '2026-08-10',
    storedAt: '2026-08-11T00:00:00.000Z',
    expiresAt: 1_900_000_000,
    ...fields,
  };
}

function withSummary(summary: Partial<Record<keyof ResultSummary, unknown>>): ResultItem {
  return item({ summary: { imageCount: 0, fileCount: 0, ...summary } as ResultSummary });
}

describe('event detail bounds', () => {
  it.each([
    [0, 0],
    [1, 1],
    [9, 9],
    [64, 64],
    [65, undefined],
    [-1, undefined],
    [1.5, undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    ['3', undefined],
    [null, undefined],
  ])('a security-feature count %j is kept as %j', (value, kept) => {
    // Act
    const detail = storedDetail(
      withSummary({ documentValidationApproved: value, documentValidationNotApplicable: value }),
      OPTIONS,
    );

    // Assess: both counts go through the same check, and an out-of-bounds one leaves the field out.
    expect(detail.documentValidationApproved).toBe(kept);
    expect(detail.documentValidationNotApplicable).toBe(kept);
    expect(Object.hasOwn(detail, 'documentValidationApproved')).toBe(kept !== undefined);
    expect(Object.hasOwn(detail, 'documentValidationNotApplicable')).toBe(kept !== undefined);
  });

  it.each([
    ['2026-08-10T12:00:00Z', true],
    ['2026-08-10T12:00:00.1Z', true],
    ['2026-08-10T12:00:00.123456789Z', true],
    ['2026-08-10T12:00:00.1234567890Z', false],
    ['2026-08-10T12:00:00.Z', false],
    ['2026-08-10T12:00:00', false],
    ['2026-08-10T12:00:00+02:00', false],
    ['x2026-08-10T12:00:00Z', false],
    ['2026-08-10T12:00:00Zx', false],
    ['Jane Doe 2026-08-10T12:00:00Z', false],
    ['2026-08-10T12:00:00Z\n1970-01-01', false],
    ['2026-8-10T12:00:00Z', false],
  ])('completed %j passes the anchored UTC check: %s', (completed, kept) => {
    // Act
    const stored = storedDetail(item({ completed }), OPTIONS);
    const unavailable = unavailableDetail(item({ status: 'UNAVAILABLE', completed }), OPTIONS);

    // Assess
    expect(stored.completed).toBe(kept ? completed : undefined);
    expect(unavailable.completed).toBe(kept ? completed : undefined);
  });

  it('leaves `completed` out when it is not known, however well-formed', () => {
    // Act
    const detail = storedDetail(item({ completedKnown: false }), OPTIONS);

    // Assess
    expect(detail).not.toHaveProperty('completed');
  });

  it.each([
    ['', 'empty'],
    ['has space', 'a space'],
    ['a#publication', 'a hash'],
    ['x'.repeat(257), '257 characters'],
    ['-lead', 'a leading dash'],
  ])('refuses an item whose resultId %j (%s) breaks the rule: no detail at all', (resultId) => {
    // Act / Assess
    expect(() => storedDetail(item({ resultId }), OPTIONS)).toThrow(PipelineError);
    expect(() => unavailableDetail(item({ resultId, status: 'UNAVAILABLE' }), OPTIONS)).toThrow(
      /breaks the resultId rule/,
    );
  });

  it('accepts a resultId at the rule’s length limit', () => {
    // Act
    const detail = storedDetail(item({ resultId: 'x'.repeat(256) }), OPTIONS);

    // Assess
    expect(detail.resultId).toHaveLength(256);
  });

  it.each([
    ['A'.repeat(64), true],
    ['A'.repeat(65), false],
    ['CODE_123', true],
    ['CODE_1234', false],
    ['A', true],
  ])('a reason key %j at its bounds is kept: %s', (message, kept) => {
    // Act
    const { messages, dropped } = reasonKeys([message, 42, null]);

    // Assess: non-strings are always dropped and counted.
    expect(messages).toEqual(kept ? [message] : []);
    expect(dropped).toBe(kept ? 2 : 3);
  });

  it('messages that are not a list keep nothing and count nothing; sections that are not an object, none', () => {
    // Act / Assess
    expect(reasonKeys('DOCUMENT_EXPIRED')).toEqual({ messages: [], dropped: 0 });
    expect(reasonKeys(undefined)).toEqual({ messages: [], dropped: 0 });
    expect(sectionValues(['identity'])).toEqual({});
    expect(sectionValues(null)).toEqual({});
    expect(resultValue('approved')).toBe(UNKNOWN);
    expect(resultValue('APPROVED')).toBe('APPROVED');
  });

  it('counts dropped messages in `messagesDropped` only when some were dropped', () => {
    // Act
    const clean = storedDetail(item({ messages: ['DOCUMENT_EXPIRED'] }), OPTIONS);
    const dirty = storedDetail(item({ messages: ['DOCUMENT_EXPIRED', 'Jane Doe'] }), OPTIONS);

    // Assess
    expect(clean).not.toHaveProperty('messagesDropped');
    expect(clean.messages).toEqual(['DOCUMENT_EXPIRED']);
    expect(dirty.messagesDropped).toBe(1);
  });

  it.each([
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['1', true],
    ['ord er', false],
  ])('a customer reference %j at its bounds is kept: %s', (customerReference, kept) => {
    // Act
    const detail = storedDetail(item({ customerReference }), OPTIONS);

    // Assess
    expect(detail.customerReference).toBe(kept ? customerReference : undefined);
  });

  it.each([
    ['user-1', true],
    ['u'.repeat(256), true],
    ['u'.repeat(257), false],
    ['jane@example.com', false],
  ])('a userId %j is kept: %s', (userId, kept) => {
    // Act
    const detail = storedDetail(item({ userId }), OPTIONS);

    // Assess
    expect(detail.userId).toBe(kept ? userId : undefined);
  });

  it.each([
    [{ issuingState: 'NLD' }, 'issuingState', 'NLD'],
    [{ issuingState: 'D<<' }, 'issuingState', 'D<<'],
    [{ issuingState: 'NLDX' }, 'issuingState', undefined],
    [{ issuingState: 'nld' }, 'issuingState', undefined],
    [{ documentType: 'P'.repeat(64) }, 'documentType', 'P'.repeat(64)],
    [{ documentType: 'P'.repeat(65) }, 'documentType', undefined],
    [{ rtwType: 'RTW_NL' }, 'rtwType', 'RTW_NL'],
    [{ rtwType: 'RTW_1970' }, 'rtwType', undefined],
    [{ vogStatus: 'PENDING' }, 'vogStatus', 'PENDING'],
    [{ vogStatus: 'pending' }, 'vogStatus', undefined],
    [{ sanctionList: 'HIT' }, 'sanctionList', 'HIT'],
    [{ sanctionList: 'Jane' }, 'sanctionList', UNKNOWN],
    [{ lostAndStolen: 'NO_HIT' }, 'lostAndStolen', 'NO_HIT'],
    [{ lostAndStolen: 'x' }, 'lostAndStolen', UNKNOWN],
  ])('summary field %j → %s %j', (summary, field, expected) => {
    // Act
    const detail = storedDetail(withSummary(summary), OPTIONS) as unknown as Record<string, unknown>;

    // Assess
    expect(detail[field]).toBe(expected);
  });

  it('keeps additional document types that are codes, and maps their results to the spec’s values', () => {
    // Act
    const detail = storedDetail(
      withSummary({
        additionalDocumentResults: ['APPROVED', 'Jane'],
        additionalDocumentTypes: ['PASSPORT', 'Jane Doe'],
        sectionMessages: { identity: ['DOCUMENT_EXPIRED', 'Jane'], notASection: ['X'], faceVerify: ['Jane'] },
      }),
      OPTIONS,
    );

    // Assess
    expect(detail.additionalDocumentResults).toEqual(['APPROVED', UNKNOWN]);
    expect(detail.additionalDocumentTypes).toEqual(['PASSPORT']);
    expect(detail.sectionMessages).toEqual({ identity: ['DOCUMENT_EXPIRED'] });
    expect(
      storedDetail(withSummary({ sectionMessages: { identity: ['Jane'] } }), OPTIONS),
    ).not.toHaveProperty('sectionMessages');
  });

  it('storage names the item’s bucket, key and object count, else the store’s and the defaults', () => {
    // Act
    const own = storedDetail(item({ bucket: 'b2', resultKey: 'k', objectCount: 3 }), OPTIONS);
    const listed = storedDetail(
      item({ objects: [{ key: 'o', contentType: 'image/png', bytes: 1, sha256: 'x' }] }),
      OPTIONS,
    );
    const bare = storedDetail(item(), OPTIONS);

    // Assess
    expect(own.storage).toEqual({ table: 'results', bucket: 'b2', resultKey: 'k', objectCount: 3 });
    expect(listed.storage.objectCount).toBe(1);
    expect(bare.storage).toEqual({
      table: 'results',
      bucket: 'data',
      resultKey: 'results/r-1/result.json',
      objectCount: 0,
    });
  });

  it('an upload detail keeps a well-formed secureId only, and refuses a malformed transactionId', () => {
    // Act
    const good = uploadedDetail({ transactionId: 'tx-1', secureId: 's-1', uploadedAt: 't' }, OPTIONS);
    const badSecure = uploadedDetail({ transactionId: 'tx-1', secureId: 'a b', uploadedAt: 't' }, OPTIONS);

    // Assess
    expect(good).toEqual({ transactionId: 'tx-1', secureId: 's-1', uploadedAt: 't', environment: 'staging' });
    expect(badSecure).not.toHaveProperty('secureId');
    expect(() => uploadedDetail({ transactionId: 'a b', uploadedAt: 't' }, OPTIONS)).toThrow(
      /transactionId breaks the resultId rule/,
    );
  });
});

describe('event detail fields that are absent stay absent', () => {
  it('leaves out result, product, counts and verification outcomes an item does not have', () => {
    // Act: no result, no product, no summary and no document to summarise.
    const detail = storedDetail(item(), OPTIONS);

    // Assess: not even `UNKNOWN` or `undefined` under the key.
    for (const key of ['result', 'product', 'imageCount', 'fileCount', 'sanctionList', 'lostAndStolen']) {
      expect(Object.hasOwn(detail, key), key).toBe(false);
    }
  });

  it('keeps the counts and outcomes an item has, and an unknown product as UNKNOWN', () => {
    // Act
    const detail = storedDetail(
      { ...withSummary({ imageCount: 2, fileCount: 1 }), product: 'Jane Doe', result: 'APPROVED' },
      OPTIONS,
    );

    // Assess
    expect(detail).toMatchObject({ imageCount: 2, fileCount: 1, product: UNKNOWN, result: 'APPROVED' });
  });

  it('keeps a well-formed transactionId and leaves a malformed or absent one out', () => {
    // Act
    const good = storedDetail(item({ transactionId: 'tx-1' }), OPTIONS);
    const bad = storedDetail(item({ transactionId: 'Jane Doe' }), OPTIONS);
    const none = unavailableDetail(item({ status: 'UNAVAILABLE' }), OPTIONS);

    // Assess
    expect(good.transactionId).toBe('tx-1');
    expect(Object.hasOwn(bad, 'transactionId')).toBe(false);
    expect(Object.hasOwn(none, 'transactionId')).toBe(false);
  });

  it('never passes a value that is not a string, even one whose text would match', () => {
    // Act: numbers whose text is a valid reference, userId and transactionId.
    const detail = storedDetail(
      item({
        customerReference: 12345 as unknown as string,
        userId: 7 as unknown as string,
        transactionId: 42 as unknown as string,
      }),
      OPTIONS,
    );

    // Assess
    for (const key of ['customerReference', 'userId', 'transactionId']) {
      expect(Object.hasOwn(detail, key), key).toBe(false);
    }
  });
});
