import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IDENTITY_UPLOAD_PRODUCTS,
  MOCK_TEST_VALUES,
  type MockTestValue,
  PRODUCTS,
  type Product,
} from '../../shared/api/enums';
import type { VerificationResultDocument } from '../../shared/api/schemas';
import { IdvClient } from '../../shared/client/client';
import { generateJpeg } from '../../simulator/images';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

const CREDENTIALS = { clientId: 'demo', clientSecret: 'demo-secret' };
const EXPECTED_OVERALL: Record<MockTestValue, string> = {
  APPROVED: 'APPROVED',
  APPROVED_EU: 'APPROVED',
  APPROVED_NON_EU: 'APPROVED',
  APPROVED_RP: 'APPROVED',
  DISAPPROVED: 'DISAPPROVED',
  TECHNICAL_REJECT: 'TECHNICAL_REJECT',
};
const EXPECTED_DOCUMENT: Partial<Record<MockTestValue, string>> = {
  APPROVED_EU: 'PASSPORT',
  APPROVED_NON_EU: 'PASSPORT',
  APPROVED_RP: 'RESIDENCE_PERMIT',
};

let sim: RunningSimulator;
let client: IdvClient;
let premiumTransactionId: string;
const documentImage = generateJpeg(640, 480, 3).toString('base64');

beforeAll(async () => {
  sim = await startSimulator({ ...CREDENTIALS, seed: 7 });
  client = new IdvClient({ baseUrl: sim.url, environment: 'staging', credentials: CREDENTIALS });
  premiumTransactionId = (await client.createSecureLink({ product: 'IDV_PREMIUM' }, { mockTest: 'APPROVED' }))
    .transactionId;
});
afterAll(() => sim.close());

/** Polls for the transaction's record, fetches the result and checks the record is gone. */
async function fetchMocked(transactionId: string): Promise<VerificationResultDocument> {
  const record = (await client.poll()).results.find((r) => r.transactionId === transactionId);
  expect(record, 'a mocked result has a poll record at once').toBeDefined();
  const result = await client.getResult(record!.resultId);
  expect((await client.poll()).results.some((r) => r.resultId === record!.resultId)).toBe(false);
  return result;
}

function assertOutcome(result: VerificationResultDocument, mock: MockTestValue, product: Product) {
  expect(result.result).toBe(EXPECTED_OVERALL[mock]);
  if (mock === 'DISAPPROVED' || mock === 'TECHNICAL_REJECT')
    expect(result.messages?.length).toBeGreaterThan(0);
  const idOrRtw = product !== 'FACE_LINK';
  expect(result.identity !== undefined, 'identity').toBe(idOrRtw);
  expect(result.rightToWork !== undefined, 'rightToWork').toBe(product.startsWith('RTW_'));
  const expectedDocument = EXPECTED_DOCUMENT[mock];
  if (idOrRtw && expectedDocument) expect(result.identity?.data?.documentType).toBe(expectedDocument);
}

const secureLinkCases = PRODUCTS.flatMap((product) =>
  MOCK_TEST_VALUES.map((mock) => [product, mock] as const),
);

describe('mock-test through the secure link: every value with every product', () => {
  it.each(secureLinkCases)('%s with mock-test %s', async (product, mock) => {
    // Act
    const { transactionId } = await client.createSecureLink(
      {
        product,
        disableCommunication: true,
        ...(product === 'FACE_LINK' && { linkedTransactionId: premiumTransactionId }),
      },
      { mockTest: mock },
    );
    const result = await fetchMocked(transactionId);

    // Assess
    assertOutcome(result, mock, product);
    // §1: PREMIUM products also contain faceVerify (only through the secure link).
    expect(result.faceVerify !== undefined, 'faceVerify').toBe(product.endsWith('_PREMIUM'));
    if (product === 'FACE_LINK') expect(result.faceLink).toBeDefined();
  });
});

const identityUploadCases = IDENTITY_UPLOAD_PRODUCTS.flatMap((product) =>
  MOCK_TEST_VALUES.map((mock) => [product, mock] as const),
);

describe('mock-test through the identity upload: every value with every accepted product', () => {
  it.each(identityUploadCases)('%s with mock-test %s', async (product, mock) => {
    // Act
    const { transactionId } = await client.verifyIdentity(
      { product, images: [{ type: 'PASSPORT', data: documentImage }] },
      { mockTest: mock },
    );
    const result = await fetchMocked(transactionId);

    // Assess
    assertOutcome(result, mock, product);
    expect(result.faceVerify).toBeUndefined();
  });
});
