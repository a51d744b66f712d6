/**
 * Which sections a transaction's result gets (`simulator/result-input.ts`, §2.5 presence) and how long
 * the simulator keeps an upload's bytes: as long as one of the transaction's results is retained.
 */
import { describe, expect, it } from 'vitest';
import { releaseUploads, resultInputOf } from '../../simulator/result-input';
import type { Transaction } from '../../simulator/state';

function tx(extra: Partial<Transaction>): Transaction {
  return {
    transactionId: 'tx-1',
    seq: 0,
    origin: 'secureLink',
    userId: 'api-user',
    createdAt: 0,
    state: 'pending',
    uploads: [],
    resultIds: [],
    ...extra,
  };
}

const settings = { seed: 1, drivingLicenseCheck: true };

describe('faceVerify only where §2.5 allows it', () => {
  it.each([
    ['an IDV_LITE link whose end user sent selfies', tx({ product: 'IDV_LITE', faceVerified: true }), false],
    ['an IDV_PREMIUM link', tx({ product: 'IDV_PREMIUM' }), true],
    ['an IDV_PREMIUM link under mock-test', tx({ product: 'IDV_PREMIUM', mock: 'APPROVED' }), true],
    ['an identity upload', tx({ origin: 'idverify', product: 'IDV_STANDARD', faceVerified: true }), false],
    [
      'a face verify upload',
      tx({ origin: 'sdk', faceVerified: true, sdk: { services: ['FACE_VERIFY'], numberOfChallenges: 2 } }),
      true,
    ],
  ] as const)('%s: %s', (_, t, faceVerify) => {
    expect(resultInputOf(t, 'APPROVED', 0, settings).sections.faceVerify).toBe(faceVerify);
  });
});

describe('upload bytes are kept while a result can return them', () => {
  it('keeps them while one result is retained, drops them (not the references) after', () => {
    // Prepare
    const t = tx({
      resultIds: ['r-1', 'r-2'],
      uploads: [
        { type: 'PASSPORT', customerReference: 'p', data: 'AAAA', metadata: { contentType: 'image/jpeg' } },
      ],
    });

    // Act
    releaseUploads(t, (id) => id === 'r-2');
    const whileRetained = t.uploads[0]?.data;
    releaseUploads(t, () => false);

    // Assess
    expect(whileRetained).toBe('AAAA');
    expect(t.uploads).toEqual([
      { type: 'PASSPORT', customerReference: 'p', metadata: { contentType: 'image/jpeg' } },
    ]);
  });
});
