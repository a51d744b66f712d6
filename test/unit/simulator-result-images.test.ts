/**
 * Which result image each upload becomes (`simulator/result-images.ts`): the document type (spec §2.1
 * result image documentType), the page by upload order, and the upload's own customerReference.
 */
import { describe, expect, it } from 'vitest';
import { resultDocumentType, uploadedIdentityKind, uploadedPages } from '../../simulator/result-images';

const shape = (p: { documentType: string; pageType: string; customerReference?: string }) =>
  [p.documentType, p.pageType, p.customerReference] as const;

describe('uploaded pages', () => {
  it('numbers the pages of each document on its own: FRONT, BACK, then ANY', () => {
    // Act
    const pages = uploadedPages(
      [
        { type: 'IDENTITY_CARD', customerReference: 'a' },
        { type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE', customerReference: 'b' },
        { type: 'IDENTITY_CARD', customerReference: 'c' },
        { type: 'IDENTITY_CARD' },
        { type: 'PASSPORT' },
        { type: 'PASSPORT' },
      ],
      'IDENTITY_CARD',
    );

    // Assess
    expect(pages.map(shape)).toEqual([
      ['IDENTITY_CARD', 'FRONT', 'a'],
      ['DRIVING_LICENSE', 'FRONT', 'b'],
      ['IDENTITY_CARD', 'BACK', 'c'],
      ['IDENTITY_CARD', 'ANY', undefined],
      ['PASSPORT', 'FRONT', undefined],
      ['PASSPORT', 'ANY', undefined],
    ]);
  });

  it.each([
    [{ type: 'PAYROLL_TAX_STATEMENT' }, undefined],
    [{ type: 'ADDITIONAL' }, 'PAPER'],
    [{ type: 'ADDITIONAL', additionalDocumentType: 'BSN_CARD' }, 'PAPER'],
    [{ type: 'PAPER', additionalDocumentType: 'WORK_PERMIT' }, 'WORK_PERMIT'],
    [{ type: 'BSN_STATEMENT' }, 'BSN_STATEMENT'],
    [{ type: 'COMPARE' }, 'COMPARE'],
    [{}, 'RESIDENCE_PERMIT'],
  ])('%j becomes %s', (upload, documentType) => {
    expect(resultDocumentType(upload, 'RESIDENCE_PERMIT')).toBe(documentType);
  });

  it('takes the identity document from the first identity upload, whatever comes before it', () => {
    expect(uploadedIdentityKind([{ type: 'LIVE' }, { type: 'PASSPORT' }, { type: 'IDENTITY_CARD' }])).toBe(
      'PASSPORT',
    );
    expect(uploadedIdentityKind([{ type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE' }])).toBe(
      undefined,
    );
  });
});
