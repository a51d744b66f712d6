/**
 * The result sections the simulator derives from real requests and uploads (spec §2.5), for
 * transactions that complete after the delay: drivingLicense, payrollTaxStatement (+ inputData and the
 * PAYROLL_TAX_STATEMENT file), additionalDocuments, digitalSigning (only by its control), faceLink with gpsLocation, vog after
 * hasExistingVog, and the SDK watermark checked at face verify. Real HTTP against the simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import type { VerificationResultDocument } from '../../shared/api/schemas';
import { generateJpeg } from '../../simulator/images';
import { buildPdf } from '../../simulator/pdf';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { addSdkWatermark } from '../../simulator/watermark';
import { callSim, completedResult, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const jpeg = generateJpeg(640, 480, 1);
const document = jpeg.toString('base64');
const pdf = buildPdf('statement', ['page']).toString('base64');

let sim: RunningSimulator;
let token: string;

beforeAll(async () => {
  sim = await startSimulator({ ...SIM_CLIENT, seed: 21, outcome: 'APPROVED', completionDelayMs: 60_000 });
  token = await tokenFor(sim);
});
afterAll(() => sim.close());

async function secureLink(body: Record<string, unknown>): Promise<string> {
  const r = await callSim(sim, token, 'POST', PATHS.secureLink, body);
  expect(r.status).toBe(200);
  return r.body.transactionId as string;
}

async function idVerify(body: Record<string, unknown>): Promise<string> {
  const r = await callSim(sim, token, 'POST', PATHS.idVerify, body);
  expect(r.status).toBe(200);
  return r.body.transactionId as string;
}

/** The completed result of a secure link made with `body`. */
async function linkResult(body: Record<string, unknown>): Promise<VerificationResultDocument> {
  return completedResult(sim, token, await secureLink(body));
}

/** The completed result of an RTW_STANDARD identity upload: an IDENTITY_CARD and the `extra` images. */
async function rtwUploadResult(...extra: Record<string, unknown>[]): Promise<VerificationResultDocument> {
  const images = [{ data: document, type: 'IDENTITY_CARD' }, ...extra];
  return completedResult(sim, token, await idVerify({ product: 'RTW_STANDARD', images }));
}

describe('drivingLicense', () => {
  it.each(['RTW_STANDARD', 'RTW_PREMIUM'])(
    'a %s secure link asking for DRIVING_LICENSE gets the section and the licence images',
    async (product) => {
      // Act
      const doc = await linkResult({ product, additionalDocuments: ['DRIVING_LICENSE'] });

      // Assess
      const dl = doc.drivingLicense;
      expect(dl?.result).toBe('APPROVED');
      expect(Object.keys(dl?.data ?? {}).sort()).toEqual(
        [
          'class',
          'classes',
          'dateOfBirth',
          'dateOfExpiry',
          'dateOfIssuance',
          'documentNumber',
          'issuingStateOrOrganization',
          'name',
          'personalGovernmentId',
          'placeOfBirth',
        ].sort(),
      );
      expect(dl?.data?.name).toEqual(doc.identity?.data?.name);
      expect(dl?.data?.classes?.[0]).toEqual({ name: expect.any(String), dateOfExpiry: expect.any(String) });
      expect(dl?.data?.dateOfExpiry).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const pages = doc.images?.filter((i) => i.documentType === 'DRIVING_LICENSE').map((i) => i.pageType);
      expect(pages).toEqual(['FRONT', 'BACK']);
      expect(doc.additionalDocuments).toBeUndefined();
    },
  );

  it('an RTW_STANDARD identity upload with an ADDITIONAL DRIVING_LICENSE image gets the section', async () => {
    // Act
    const doc = await rtwUploadResult({
      data: document,
      type: 'ADDITIONAL',
      additionalDocumentType: 'DRIVING_LICENSE',
    });

    // Assess
    expect(doc.drivingLicense?.data?.documentNumber).toMatch(/^SPEC\d{5}$/);
  });

  it('an IDV product gets no drivingLicense section', async () => {
    // Act
    const doc = await linkResult({ product: 'IDV_STANDARD', additionalDocuments: ['DRIVING_LICENSE'] });

    // Assess
    expect(doc.drivingLicense).toBeUndefined();
  });

  it('with the customer setting off there is no section; the licence is an additional document', async () => {
    // Prepare
    const off = await startSimulator({
      ...SIM_CLIENT,
      seed: 22,
      outcome: 'APPROVED',
      drivingLicenseCheck: false,
    });
    const offToken = await tokenFor(off);

    try {
      // Act
      const link = await callSim(off, offToken, 'POST', PATHS.secureLink, {
        product: 'RTW_STANDARD',
        additionalDocuments: ['DRIVING_LICENSE'],
      });
      const doc = await completedResult(off, offToken, link.body.transactionId as string);

      // Assess
      expect(doc.drivingLicense).toBeUndefined();
      expect(doc.additionalDocuments?.map((d) => d.additionalDocumentType)).toEqual(['DRIVING_LICENSE']);
    } finally {
      await off.close();
    }
  });
});

describe('payrollTaxStatement', () => {
  it('an uploaded statement (a PDF) gives the section and the PAYROLL_TAX_STATEMENT file, no inputData', async () => {
    // Act
    const doc = await rtwUploadResult({ data: pdf, type: 'PAYROLL_TAX_STATEMENT' });

    // Assess
    const section = doc.payrollTaxStatement;
    expect(section?.result).toBe('APPROVED');
    expect(section?.data).toEqual({
      personalGovernmentIdPresent: true,
      signDatePresent: true,
      nameAddressResidencePresent: true,
      signaturePresent: true,
      applyPayrollTax: expect.any(Boolean),
      payrollTaxDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      signDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      personalGovernmentId: doc.identity?.data?.personalGovernmentId,
    });
    expect(section?.inputData).toBeUndefined();
    const file = doc.files?.find((f) => f.documentType === 'PAYROLL_TAX_STATEMENT');
    expect(
      Buffer.from(file?.data ?? '', 'base64')
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('a secure link whose user gives the statement and its input data gets inputData', async () => {
    // Act
    const doc = await linkResult({ product: 'RTW_STANDARD', additionalDocuments: ['PAYROLL_TAX_STATEMENT'] });

    // Assess
    expect(Object.keys(doc.payrollTaxStatement?.inputData ?? {}).sort()).toEqual(
      [
        'addressInNld',
        'applyPayrollTax',
        'bsn',
        'city',
        'country',
        'dateOfBirth',
        'fullname',
        'houseNumber',
        'houseNumberAddition',
        'nationality',
        'payrollTaxDate',
        'postalCode',
        'street',
      ].sort(),
    );
    expect(doc.files?.map((f) => f.documentType)).toEqual(['TRANSACTION_REPORT', 'PAYROLL_TAX_STATEMENT']);
  });

  it('two statements are not "a single payroll tax statement": no section', async () => {
    // Act
    const doc = await rtwUploadResult(
      { data: pdf, type: 'PAYROLL_TAX_STATEMENT' },
      { data: pdf, type: 'PAYROLL_TAX_STATEMENT' },
    );

    // Assess
    expect(doc.payrollTaxStatement).toBeUndefined();
  });
});

describe('additionalDocuments and digitalSigning', () => {
  it('lists each ADDITIONAL image with its additionalDocumentType and reference', async () => {
    // Act
    const doc = await completedResult(
      sim,
      token,
      await idVerify({
        product: 'IDV_STANDARD',
        customerReference: 'tx-ref',
        images: [
          { data: document, type: 'PASSPORT' },
          {
            data: document,
            type: 'ADDITIONAL',
            additionalDocumentType: 'BSN_CARD',
            customerReference: 'add-1',
          },
          { data: document, type: 'ADDITIONAL', additionalDocumentType: 'HEALTH_INSURANCE_CARD' },
        ],
      }),
    );

    // Assess
    expect(doc.additionalDocuments).toEqual([
      {
        additionalDocumentType: 'BSN_CARD',
        customerReferences: ['add-1'],
        result: 'APPROVED',
        messages: [],
        data: {
          socialSecurityNumber: expect.stringMatching(/^9999\d{5}$/),
          personalGovernmentId: expect.stringMatching(/^9999\d{5}$/),
          name: doc.identity?.data?.name,
        },
      },
      expect.objectContaining({
        additionalDocumentType: 'HEALTH_INSURANCE_CARD',
        customerReferences: ['tx-ref'],
      }),
    ]);
  });

  it('a SIGNATURE request is an image, not digitalSigning: that section is for its own product', async () => {
    // Act
    const doc = await linkResult({
      product: 'RTW_PREMIUM',
      additionalDocuments: ['SIGNATURE'],
      customerReference: 's-0',
    });

    // Assess
    expect(doc.digitalSigning).toBeUndefined();
    expect(doc.additionalDocuments).toBeUndefined();
  });

  it('the digitalSigning control stands in for the digital signing product, with the linked transaction', async () => {
    // Prepare
    const original = await secureLink({ product: 'RTW_PREMIUM' });
    const signing = await secureLink({
      product: 'RTW_PREMIUM',
      linkedTransactionId: original,
      customerReference: 'sign-1',
    });

    // Act
    sim.control.setTransactionControls(signing, { digitalSigning: true });
    const doc = await completedResult(sim, token, signing);

    // Assess
    expect(doc.digitalSigning).toEqual({
      result: 'APPROVED',
      messages: [],
      linkedTransactions: [original],
      customerReferences: ['sign-1'],
    });
  });
});

describe('faceLink and vog', () => {
  it('a FACE_LINK transaction completes with faceLink and its gpsLocation', async () => {
    // Prepare
    const premium = await secureLink({ product: 'IDV_PREMIUM' });

    // Act
    const doc = await linkResult({ product: 'FACE_LINK', linkedTransactionId: premium });

    // Assess
    expect(doc.faceLink).toEqual({
      result: 'APPROVED',
      messages: [],
      customerReferences: [],
      gpsLocation: { latitude: expect.any(Number), longitude: expect.any(Number) },
    });
    expect(doc.identity).toBeUndefined();
  });

  it.each([
    [true, 'UPLOAD_LINK_SENT'],
    [false, 'VOG_REQUESTED'],
  ])('hasExistingVog %s gives status %s and a matching date of issuance', async (hasExistingVog, status) => {
    // Act
    const r = await callSim(sim, token, 'POST', PATHS.vog, {
      givenNames: 'Erika',
      surname: 'Mustermann',
      emailAddress: 'erika@example.test',
      language: 'nl',
      hasExistingVog,
      vogRequest: { companyName: 'Sample BV', jobTitle: 'Tester', profiles: ['11'], profileType: 'GENERIC' },
    });
    const doc = await completedResult(sim, token, r.body.transactionId as string);

    // Assess
    expect(doc.vog?.status).toBe(status);
    const requested = (doc.vog?.createdAt ?? '').slice(0, 10);
    const issued = doc.vog?.data?.dateOfIssuance ?? '';
    if (hasExistingVog) expect(issued < requested).toBe(true);
    else expect(issued >= requested).toBe(true);
    expect(doc.vog?.data).toMatchObject({ givenNames: 'Erika', surname: 'Mustermann', profiles: ['11'] });
  });
});

describe('the SDK watermark, checked at face verify', () => {
  async function faceVerified(validateWatermark: boolean, mark: boolean) {
    const sdk = await callSim(
      sim,
      token,
      'GET',
      `${PATHS.sdkToken}?services=FACE_VERIFY&validateWatermark=${validateWatermark}`,
    );
    const transactionId = sdk.body.transactionId as string;
    const live = (mark ? addSdkWatermark(jpeg, transactionId) : jpeg).toString('base64');
    const upload = await callSim(sim, token, 'POST', PATHS.faceVerify, {
      transactionId,
      images: [
        { data: live, type: 'LIVE' },
        { data: live, type: 'LIVE' },
        { data: document, type: 'COMPARE' },
      ],
    });
    expect(upload.body).toEqual({ success: true });
    return completedResult(sim, token, transactionId);
  }

  it('disapproves face verification when the LIVE images lack the watermark', async () => {
    // Act
    const doc = await faceVerified(true, false);

    // Assess
    expect(doc.faceVerify?.result).toBe('DISAPPROVED');
    expect(doc.faceVerify?.messages).toContain('WATERMARK_INVALID');
    expect(doc.result).toBe('DISAPPROVED');
  });

  it('approves watermarked images, and does not check when the token did not ask for it', async () => {
    // Act
    const marked = await faceVerified(true, true);
    const unchecked = await faceVerified(false, false);

    // Assess
    expect(marked.faceVerify?.result).toBe('APPROVED');
    expect(unchecked.faceVerify?.result).toBe('APPROVED');
  });
});

describe('mock-test keeps its spec-defined content', () => {
  it('an RTW_STANDARD mock-test link asking for DRIVING_LICENSE has only identity and rightToWork', async () => {
    // Act
    const res = await fetch(`${sim.url}${PATHS.secureLink}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'mock-test': 'APPROVED',
      },
      body: JSON.stringify({
        product: 'RTW_STANDARD',
        additionalDocuments: ['DRIVING_LICENSE', 'SIGNATURE'],
      }),
    });
    const { transactionId } = (await res.json()) as { transactionId: string };
    const doc = await completedResult(sim, token, transactionId);

    // Assess
    expect(doc.identity).toBeDefined();
    expect(doc.rightToWork).toBeDefined();
    expect(doc.drivingLicense).toBeUndefined();
    expect(doc.digitalSigning).toBeUndefined();
  });
});
