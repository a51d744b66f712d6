/**
 * What a consumer uploads comes back in the result, byte for byte, over real HTTP: identity uploads
 * (typed and untyped, with and without references, a PDF payroll tax statement), face verify uploads and
 * the hosted flow's sample pages (a residence permit's front and back). SDK transactions complete when
 * the uploads their services need have arrived, in either order; §2.5 keeps `faceVerify` off products
 * that verify no face.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import type { VerificationResultDocument } from '../../shared/api/schemas';
import {
  generateJpeg,
  generatePng,
  IMAGE_SLOTS,
  type ImageSlot,
  POOL_VARIANTS,
  pooledImage,
} from '../../simulator/images';
import { buildPdf } from '../../simulator/pdf';
import { SAMPLES, sampleJpeg } from '../../simulator/samples';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { callSim, completedResult, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const DELAY = 60_000;
let sim: RunningSimulator;
let token: string;

beforeAll(async () => {
  // The pool of generated pictures and the samples are drawn before the server listens: drawing it blocks the event loop
  // for seconds, long enough for an idle keep-alive connection to be closed under a request.
  for (const slot of Object.keys(IMAGE_SLOTS) as ImageSlot[]) {
    for (let v = 0; v < POOL_VARIANTS; v++) pooledImage(slot, v);
  }
  for (const s of SAMPLES) sampleJpeg(s.name);
  sim = await startSimulator({ ...SIM_CLIENT, seed: 45, completionDelayMs: DELAY, outcome: 'APPROVED' });
  token = await tokenFor(sim);
}, 60_000);
afterAll(() => sim.close());

const b64 = (b: Buffer) => b.toString('base64');
const passport = generateJpeg(800, 560, 451);
const front = generatePng(700, 480, 452, 'document');
const back = generateJpeg(700, 480, 453);
const untyped = generateJpeg(640, 480, 454);
const licence = generateJpeg(680, 500, 455);
const statement = buildPdf('statement', ['one page']);
const compare = generateJpeg(720, 960, 456, 'portrait');
const live1 = generateJpeg(720, 960, 457, 'portrait');
const live2 = generatePng(720, 960, 458, 'portrait');

/** The result's images as [bytes, documentType, pageType, customerReference, metadata]. */
function pages(doc: VerificationResultDocument) {
  return (doc.images ?? []).map((i) => ({
    bytes: Buffer.from(i.data, 'base64'),
    documentType: i.documentType,
    pageType: i.pageType,
    customerReference: i.customerReference,
    metadata: i.metadata,
  }));
}

describe('uploaded images come back byte for byte', () => {
  it('identity upload: each image with its own bytes, type, page, reference and metadata; the statement as its file', async () => {
    // Act
    const r = await callSim(sim, token, 'POST', PATHS.idVerify, {
      product: 'RTW_STANDARD',
      customerReference: 'tx-ref',
      images: [
        { data: b64(front), type: 'IDENTITY_CARD', customerReference: 'front-ref' },
        { data: b64(back), type: 'IDENTITY_CARD' },
        { data: b64(untyped), customerReference: 'untyped-ref' },
        {
          data: b64(licence),
          type: 'ADDITIONAL',
          additionalDocumentType: 'DRIVING_LICENSE',
          customerReference: 'dl',
        },
        { data: b64(statement), type: 'PAYROLL_TAX_STATEMENT', customerReference: 'pts' },
      ],
    });
    expect(r.status).toBe(200);
    const doc = await completedResult(sim, token, r.body.transactionId as string);

    // Assess
    const got = pages(doc);
    expect(got.slice(0, 4)).toEqual([
      {
        bytes: front,
        documentType: 'IDENTITY_CARD',
        pageType: 'FRONT',
        customerReference: 'front-ref',
        metadata: { contentType: 'image/png', width: 700, height: 480 },
      },
      {
        bytes: back,
        documentType: 'IDENTITY_CARD',
        pageType: 'BACK',
        customerReference: undefined,
        metadata: { contentType: 'image/jpeg', width: 700, height: 480 },
      },
      {
        bytes: untyped,
        documentType: 'IDENTITY_CARD',
        pageType: 'ANY',
        customerReference: 'untyped-ref',
        metadata: { contentType: 'image/jpeg', width: 640, height: 480 },
      },
      {
        bytes: licence,
        documentType: 'DRIVING_LICENSE',
        pageType: 'FRONT',
        customerReference: 'dl',
        metadata: { contentType: 'image/jpeg', width: 680, height: 500 },
      },
    ]);
    // Generated pictures only where nothing was uploaded, and without a reference.
    const generated = got.slice(4);
    expect(generated.map((g) => [g.documentType, g.pageType])).toEqual([
      ['PORTRAIT', 'ANY'],
      ['SIGNATURE', 'ANY'],
    ]);
    expect(generated.every((g) => g.customerReference === undefined)).toBe(true);
    const file = doc.files?.find((f) => f.documentType === 'PAYROLL_TAX_STATEMENT');
    expect(Buffer.from(file?.data ?? '', 'base64').equals(statement)).toBe(true);
    expect(doc.payrollTaxStatement?.customerReferences).toEqual(['pts']);
  });

  it('face verify upload: COMPARE and LIVE images come back as uploaded', async () => {
    // Prepare
    const sdk = await callSim(sim, token, 'GET', `${PATHS.sdkToken}?services=FACE_VERIFY`);
    const transactionId = sdk.body.transactionId as string;

    // Act
    const r = await callSim(sim, token, 'POST', PATHS.faceVerify, {
      transactionId,
      images: [
        { data: b64(compare), type: 'COMPARE', customerReference: 'c' },
        { data: b64(live1), type: 'LIVE' },
        { data: b64(live2), type: 'LIVE', customerReference: 'l2' },
      ],
    });
    const doc = await completedResult(sim, token, transactionId);

    // Assess
    expect(r.status).toBe(200);
    expect(pages(doc).map((p) => [p.bytes, p.documentType, p.customerReference])).toEqual([
      [compare, 'COMPARE', 'c'],
      [live1, 'LIVE', undefined],
      [live2, 'LIVE', 'l2'],
    ]);
    expect(doc.faceVerify?.result).toBe('APPROVED');
  });

  it('hosted flow: a residence permit comes back FRONT and BACK with the sample bytes', async () => {
    // Prepare
    const link = await callSim(sim, token, 'POST', PATHS.secureLink, {
      product: 'IDV_STANDARD',
      disableCommunication: true,
    });
    const url = link.body.link as string;
    const sample = async (name: string) =>
      Buffer.from(await (await fetch(`${sim.url}/samples/${name}.jpg`)).arrayBuffer());

    // Act
    const res = await fetch(`${url}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ action: 'upload', document: 'residence-permit', outcome: 'APPROVED' }),
    });
    const doc = await completedResult(sim, token, link.body.transactionId as string);

    // Assess
    expect(res.status).toBe(200);
    const got = pages(doc);
    expect(got.slice(0, 2).map((p) => [p.documentType, p.pageType])).toEqual([
      ['RESIDENCE_PERMIT', 'FRONT'],
      ['RESIDENCE_PERMIT', 'BACK'],
    ]);
    expect(got[0]!.bytes.equals(await sample('residence-permit'))).toBe(true);
    expect(got[1]!.bytes.equals(await sample('residence-permit-back'))).toBe(true);
    expect(got.filter((p) => p.documentType === 'RESIDENCE_PERMIT')).toHaveLength(2);
  });
});

describe('faceVerify only where §2.5 allows it', () => {
  it('an IDV_LITE link takes no selfie (400); an IDV_PREMIUM link with the selfie has faceVerify', async () => {
    // Prepare
    const linkOf = async (product: string) =>
      (await callSim(sim, token, 'POST', PATHS.secureLink, { product, disableCommunication: true })).body;
    const lite = await linkOf('IDV_LITE');
    const premium = await linkOf('IDV_PREMIUM');
    const upload = (link: unknown) =>
      fetch(`${link as string}/complete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ action: 'upload', document: 'passport', face: true, outcome: 'APPROVED' }),
      });

    // Act
    const refused = await upload(lite.link);
    const accepted = await upload(premium.link);

    // Assess
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toContain('no selfie');
    expect(accepted.status).toBe(200);
    const doc = await completedResult(sim, token, premium.transactionId as string);
    expect(doc.faceVerify?.result).toBe('APPROVED');
    expect(pages(doc).map((p) => p.documentType)).toEqual([
      'PASSPORT',
      'COMPARE',
      'LIVE',
      'LIVE',
      'PORTRAIT',
    ]);
  });
});

describe('SDK transactions complete when what their services need has arrived', () => {
  const face = () => [
    { data: b64(compare), type: 'COMPARE' },
    { data: b64(live1), type: 'LIVE' },
    { data: b64(live2), type: 'LIVE' },
  ];
  const identity = (transactionId: string) => ({
    transactionId,
    product: 'IDV_STANDARD',
    images: [{ data: b64(passport), type: 'PASSPORT' }],
  });

  it.each([
    ['face verify first', ['face', 'identity']],
    ['identity first', ['identity', 'face']],
  ] as const)(
    'FACE_VERIFY,AUTO_CAPTURE, %s: both uploads are taken, one result with both',
    async (_, order) => {
      // Prepare
      const sdk = await callSim(sim, token, 'GET', `${PATHS.sdkToken}?services=FACE_VERIFY,AUTO_CAPTURE`);
      const transactionId = sdk.body.transactionId as string;
      const send = (kind: 'face' | 'identity') =>
        kind === 'face'
          ? callSim(sim, token, 'POST', PATHS.faceVerify, { transactionId, images: face() })
          : callSim(sim, token, 'POST', PATHS.idVerify, identity(transactionId));

      // Act: the first upload alone, then far more time than the completion delay, then the second.
      const first = await send(order[0]);
      sim.control.advanceTime(DELAY * 3);
      const waiting = sim.control.resultIdsOf(transactionId);
      const second = await send(order[1]);
      const again = await send(order[1]);
      const doc = await completedResult(sim, token, transactionId);

      // Assess
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(waiting).toEqual([]);
      expect(again.status).toBe(400);
      expect(doc.identity?.data?.documentType).toBe('PASSPORT');
      expect(doc.faceVerify?.result).toBe('APPROVED');
      expect(sim.control.resultIdsOf(transactionId)).toHaveLength(1);
    },
  );
});
