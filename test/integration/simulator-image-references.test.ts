/**
 * Every image of a fetched result keeps the `customerReference`, `documentType` and page of the upload
 * it came from (spec §2.5 images, §4.4, §4.5); images the simulator adds beyond the uploads (the
 * portrait and signature cut from the document, pages of a document nobody uploaded) carry no
 * reference; the identity's document type follows the uploaded document, not only the outcome. One
 * case per upload type, real HTTP against the simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import type { VerificationResultDocument } from '../../shared/api/schemas';
import { generateJpeg } from '../../simulator/images';
import { buildPdf } from '../../simulator/pdf';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { callSim, completedResult, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const page = generateJpeg(640, 480, 1).toString('base64');
const pdf = buildPdf('statement', ['page']).toString('base64');

let sim: RunningSimulator;
let token: string;

beforeAll(async () => {
  // APPROVED implies a Dutch identity card: a PASSPORT upload must still come back as a PASSPORT.
  sim = await startSimulator({ ...SIM_CLIENT, seed: 23, outcome: 'APPROVED', completionDelayMs: 60_000 });
  token = await tokenFor(sim);
});
afterAll(() => sim.close());

/** What identifies an image: type, page and reference (absent when the image has none). */
function shapes(doc: VerificationResultDocument) {
  return (doc.images ?? []).map((i) => ({
    documentType: i.documentType,
    pageType: i.pageType,
    customerReference: i.customerReference,
  }));
}

const img = (documentType: string, pageType: string, customerReference?: string) => ({
  documentType,
  pageType,
  customerReference,
});

async function idVerify(
  product: string,
  images: Record<string, unknown>[],
): Promise<VerificationResultDocument> {
  const r = await callSim(sim, token, 'POST', PATHS.idVerify, {
    product,
    customerReference: 'tx-ref',
    images: images.map((i) => ({ data: page, ...i })),
  });
  expect(r.status).toBe(200);
  return completedResult(sim, token, r.body.transactionId as string);
}

describe('identity uploads', () => {
  it('an uploaded PASSPORT stays a PASSPORT page with its reference; the portrait has none', async () => {
    // Act
    const doc = await idVerify('IDV_STANDARD', [{ type: 'PASSPORT', customerReference: 'pp-1' }]);

    // Assess
    expect(shapes(doc)).toEqual([img('PASSPORT', 'FRONT', 'pp-1'), img('PORTRAIT', 'ANY')]);
    expect(doc.identity?.data?.documentType).toBe('PASSPORT');
    expect(doc.identity?.data?.mrzLines?.[0]).toMatch(/^P</);
  });

  it('an IDENTITY_CARD front and back keep their pages and references', async () => {
    // Act
    const doc = await idVerify('IDV_STANDARD', [
      { type: 'IDENTITY_CARD', customerReference: 'id-front' },
      { type: 'IDENTITY_CARD', customerReference: 'id-back' },
    ]);

    // Assess
    expect(shapes(doc)).toEqual([
      img('IDENTITY_CARD', 'FRONT', 'id-front'),
      img('IDENTITY_CARD', 'BACK', 'id-back'),
      img('PORTRAIT', 'ANY'),
      img('SIGNATURE', 'ANY'),
    ]);
    expect(doc.identity?.data?.documentType).toBe('IDENTITY_CARD');
  });

  it('a RESIDENCE_PERMIT upload makes a residence permit result', async () => {
    // Act
    const doc = await idVerify('RTW_STANDARD', [{ type: 'RESIDENCE_PERMIT', customerReference: 'rp-1' }]);

    // Assess
    expect(shapes(doc)).toEqual([
      img('RESIDENCE_PERMIT', 'FRONT', 'rp-1'),
      img('PORTRAIT', 'ANY'),
      img('SIGNATURE', 'ANY'),
    ]);
    expect(doc.identity?.data?.documentType).toBe('RESIDENCE_PERMIT');
    expect(doc.identity?.data?.residencePermitType).toBeTruthy();
  });

  it('ADDITIONAL DRIVING_LICENSE uploads appear as DRIVING_LICENSE pages with their references', async () => {
    // Act
    const doc = await idVerify('RTW_STANDARD', [
      { type: 'PASSPORT', customerReference: 'pp-2' },
      { type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE', customerReference: 'dl-front' },
      { type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE', customerReference: 'dl-back' },
    ]);

    // Assess
    expect(shapes(doc)).toEqual([
      img('PASSPORT', 'FRONT', 'pp-2'),
      img('DRIVING_LICENSE', 'FRONT', 'dl-front'),
      img('DRIVING_LICENSE', 'BACK', 'dl-back'),
      img('PORTRAIT', 'ANY'),
    ]);
    expect(doc.drivingLicense?.result).toBe('APPROVED');
  });

  it('a PAYROLL_TAX_STATEMENT comes back as its file, its reference on its section, on no image', async () => {
    // Act
    const doc = await idVerify('RTW_STANDARD', [
      { type: 'PASSPORT', customerReference: 'pp-3' },
      { type: 'PAYROLL_TAX_STATEMENT', data: pdf, customerReference: 'pts-1' },
    ]);

    // Assess
    expect(shapes(doc)).toEqual([img('PASSPORT', 'FRONT', 'pp-3'), img('PORTRAIT', 'ANY')]);
    expect(doc.files?.map((f) => f.documentType)).toEqual(['TRANSACTION_REPORT', 'PAYROLL_TAX_STATEMENT']);
    expect(doc.payrollTaxStatement?.customerReferences).toEqual(['pts-1']);
  });

  it('ADDITIONAL uploads appear as their own type when results name it, else as PAPER', async () => {
    // Act
    const doc = await idVerify('IDV_STANDARD', [
      { type: 'IDENTITY_CARD', customerReference: 'id-1' },
      { type: 'ADDITIONAL', additionalDocumentType: 'BSN_CARD', customerReference: 'add-1' },
      { type: 'ADDITIONAL', additionalDocumentType: 'WORK_PERMIT', customerReference: 'add-2' },
      { type: 'ADDITIONAL', additionalDocumentType: 'HEALTH_INSURANCE_CARD' },
    ]);

    // Assess
    expect(shapes(doc)).toEqual([
      img('IDENTITY_CARD', 'FRONT', 'id-1'),
      img('PAPER', 'ANY', 'add-1'),
      img('WORK_PERMIT', 'ANY', 'add-2'),
      img('PAPER', 'ANY'),
      img('PORTRAIT', 'ANY'),
      img('SIGNATURE', 'ANY'),
    ]);
    expect(doc.additionalDocuments?.map((a) => a.additionalDocumentType)).toEqual([
      'BSN_CARD',
      'WORK_PERMIT',
      'HEALTH_INSURANCE_CARD',
    ]);
  });
});

describe('mock-test', () => {
  async function mockedIdVerify(mock: string): Promise<VerificationResultDocument> {
    const res = await fetch(`${sim.url}${PATHS.idVerify}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'mock-test': mock },
      body: JSON.stringify({
        product: 'IDV_STANDARD',
        images: [{ data: page, type: 'PASSPORT', customerReference: 'pp-m' }],
      }),
    });
    expect(res.status).toBe(200);
    return completedResult(sim, token, ((await res.json()) as { transactionId: string }).transactionId);
  }

  it('APPROVED keeps the uploaded PASSPORT; APPROVED_RP is the residence permit §1 names', async () => {
    // Act
    const approved = await mockedIdVerify('APPROVED');
    const rp = await mockedIdVerify('APPROVED_RP');

    // Assess
    expect(approved.identity?.data?.documentType).toBe('PASSPORT');
    expect(shapes(approved)).toEqual([img('PASSPORT', 'FRONT', 'pp-m'), img('PORTRAIT', 'ANY')]);
    expect(rp.identity?.data?.documentType).toBe('RESIDENCE_PERMIT');
    expect(shapes(rp)).toEqual([
      img('PASSPORT', 'FRONT', 'pp-m'),
      img('RESIDENCE_PERMIT', 'FRONT'),
      img('RESIDENCE_PERMIT', 'RESIDENCE_PERMIT_STICKERS'),
      img('PORTRAIT', 'ANY'),
      img('SIGNATURE', 'ANY'),
    ]);
  });
});

describe('face verify uploads', () => {
  it('the COMPARE reference stays on COMPARE and each LIVE reference on its LIVE image', async () => {
    // Prepare
    const sdk = await callSim(sim, token, 'GET', `${PATHS.sdkToken}?services=FACE_VERIFY`);
    const transactionId = sdk.body.transactionId as string;

    // Act
    const r = await callSim(sim, token, 'POST', PATHS.faceVerify, {
      transactionId,
      images: [
        { data: page, type: 'COMPARE', customerReference: 'cmp-1' },
        { data: page, type: 'LIVE', customerReference: 'live-1' },
        { data: page, type: 'LIVE', customerReference: 'live-2' },
      ],
    });
    expect(r.status).toBe(200);
    const doc = await completedResult(sim, token, transactionId);

    // Assess
    expect(shapes(doc)).toEqual([
      img('COMPARE', 'ANY', 'cmp-1'),
      img('LIVE', 'ANY', 'live-1'),
      img('LIVE', 'ANY', 'live-2'),
    ]);
  });
});

describe('generated images', () => {
  it('a secure link result (nothing uploaded through the API) has images without references', async () => {
    // Prepare
    const link = await callSim(sim, token, 'POST', PATHS.secureLink, {
      product: 'IDV_PREMIUM',
      customerReference: 'tx-ref',
    });

    // Act
    const doc = await completedResult(sim, token, link.body.transactionId as string);

    // Assess
    expect(shapes(doc)).toEqual([
      img('IDENTITY_CARD', 'FRONT'),
      img('IDENTITY_CARD', 'BACK'),
      img('PORTRAIT', 'ANY'),
      img('SIGNATURE', 'ANY'),
      img('LIVE', 'ANY'),
      img('LIVE', 'ANY'),
      img('COMPARE', 'ANY'),
    ]);
  });
});
