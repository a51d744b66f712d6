/**
 * Simulated results are coherent: the checks follow from the outcome and the reasons drawn (a register
 * HIT carries its reason, a sanction HIT its lists), a product that runs no register check says
 * NOT_EXECUTED, FACE_MISMATCH needs a face check, a reason disapproves only its section; all seeded.
 */
import { describe, expect, it } from 'vitest';
import type { Product } from '../../shared/api/enums';
import { controlsProblem } from '../../simulator/result-checks';
import { buildResult, type ResultInput } from '../../simulator/results';

const SEEDS = Array.from({ length: 120 }, (_, i) => i + 1);

function input(product: Product, seed: number, extra: Partial<ResultInput> = {}): ResultInput {
  const premium = product.endsWith('PREMIUM');
  return {
    seed,
    transactionId: `tx-${seed}`,
    product,
    outcome: 'DISAPPROVED',
    userId: 'api-user',
    sections: { identity: true, rightToWork: product.startsWith('RTW'), faceVerify: premium },
    completedAt: Date.UTC(2026, 0, 15),
    ...extra,
  };
}

describe('checks follow from the outcome and its reasons', () => {
  it.each(['IDV_STANDARD', 'IDV_PREMIUM', 'RTW_STANDARD', 'RTW_PREMIUM'] as const)(
    '%s: HIT exactly when the reason is drawn, with its reason or lists',
    (product) => {
      const reasons = new Set<string>();
      for (const seed of SEEDS) {
        // Act
        const doc = buildResult(input(product, seed));

        // Assess
        const messages = doc.messages ?? [];
        for (const m of messages) reasons.add(m);
        const v = doc.identity?.verifications;
        const lost = messages.includes('DOCUMENT_REPORTED_LOST_OR_STOLEN');
        const sanction = messages.includes('SANCTION_LIST_HIT');
        expect(v?.lostAndStolen).toEqual(
          lost
            ? { verificationResult: 'HIT', messages: ['DOCUMENT_REPORTED_LOST_OR_STOLEN'] }
            : { verificationResult: 'NO_HIT', messages: [] },
        );
        expect(v?.sanctionList?.verificationResult).toBe(sanction ? 'HIT' : 'NO_HIT');
        expect(v?.sanctionList?.result).toBe(sanction ? 'DISAPPROVED' : 'APPROVED');
        expect((v?.sanctionList?.foundOnLists ?? []).length > 0).toBe(sanction);
        if (!product.endsWith('PREMIUM')) expect(messages).not.toContain('FACE_MISMATCH');
        if (!product.startsWith('RTW')) expect(messages).not.toContain('NO_RIGHT_TO_WORK');
        // A face mismatch leaves the document approved; a document reason leaves the face approved.
        const face = messages.includes('FACE_MISMATCH');
        if (doc.faceVerify) expect(doc.faceVerify.result).toBe(face ? 'DISAPPROVED' : 'APPROVED');
        expect(doc.identity?.result).toBe(
          face || messages.includes('NO_RIGHT_TO_WORK') ? 'APPROVED' : 'DISAPPROVED',
        );
      }
      expect(reasons).toContain('DOCUMENT_REPORTED_LOST_OR_STOLEN');
      expect(reasons).toContain('SANCTION_LIST_HIT');
      if (product === 'RTW_PREMIUM') expect(reasons).toContain('FACE_MISMATCH');
    },
    // The first result generates the shared image pool.
    60_000,
  );

  it('IDV_LITE runs no register check: NOT_EXECUTED, and never a register reason', {
    timeout: 60_000,
  }, () => {
    for (const seed of SEEDS) {
      // Act
      const doc = buildResult(input('IDV_LITE', seed));

      // Assess
      expect(doc.identity?.verifications?.lostAndStolen?.verificationResult).toBe('NOT_EXECUTED');
      expect(doc.identity?.verifications?.sanctionList).toEqual({
        result: 'UNKNOWN',
        verificationResult: 'NOT_EXECUTED',
        foundOnLists: [],
      });
      expect(doc.messages).not.toContain('DOCUMENT_REPORTED_LOST_OR_STOLEN');
      expect(doc.messages).not.toContain('SANCTION_LIST_HIT');
    }
  });

  it('is reproducible: a seed gives the same result', () => {
    // Act
    const a = buildResult(input('RTW_PREMIUM', 5));
    const b = buildResult(input('RTW_PREMIUM', 5));

    // Assess
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});

describe('result controls', () => {
  it('a HIT control chooses its reason instead of a drawn one', () => {
    // Act
    const doc = buildResult(input('IDV_STANDARD', 3, { controls: { checks: { sanctionList: 'HIT' } } }));

    // Assess
    expect(doc.messages).toEqual(['SANCTION_LIST_HIT']);
    expect(doc.identity?.verifications?.sanctionList?.verificationResult).toBe('HIT');
    expect(doc.identity?.verifications?.lostAndStolen?.verificationResult).toBe('NO_HIT');
  });

  it('UNKNOWN has no messages and leaves the sections undecided', () => {
    // Act
    const doc = buildResult(
      input('RTW_STANDARD', 3, { outcome: 'APPROVED', controls: { result: 'UNKNOWN' } }),
    );

    // Assess
    expect(doc.result).toBe('UNKNOWN');
    expect(doc.messages).toBeUndefined();
    expect(doc.identity?.result).toBe('UNKNOWN');
    expect(doc.rightToWork?.result).toBe('UNKNOWN');
  });

  it.each([
    [{ result: 'APPROVED' }, /result must be UNKNOWN/],
    [{ checks: { lostAndStolen: 'MAYBE' } }, /checks.lostAndStolen must be one of NOT_EXECUTED, HIT, NO_HIT/],
    [{ checks: { faceMatch: 'HIT' } }, /checks has no key "faceMatch"/],
    [{ documentValidation: { hologram: 'DISAPPROVED' } }, /documentValidation.hologram must be one of/],
    [{ result: 'UNKNOWN', checks: { sanctionList: 'HIT' } }, /contradict/],
    [{ colour: 'red' }, /unknown field "colour"/],
  ])('refuses %j with a reason', (body, reason) => {
    expect(controlsProblem(body)).toMatch(reason);
  });
});
