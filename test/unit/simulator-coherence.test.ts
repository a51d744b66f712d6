/**
 * The coherence rules of simulated results (`simulator/coherence.ts`, the table in simulator/README.md),
 * as a property: more than 10,000 results of generated transactions — every product, every way a
 * transaction starts (secure link, bulk, identity upload, SDK token, VOG), every `mock-test` value and
 * outcome, every control, uploads of every kind, many seeds — built in process through the simulator's
 * own path (`resultInputOf` → `buildResult`), each checked against every rule
 * (`coherenceViolations`), the client's result schema and the JSON Schema of the `VerificationResultStored`
 * event the pipeline publishes for it. A failing case prints its seed and transaction.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MOCK_TEST_VALUES,
  type MockTestValue,
  type Product,
  RESULT_VALUES,
  type SdkService,
} from '../../shared/api/enums';
import { resultSchema } from '../../shared/api/schemas';
import { storedDetail } from '../../shared/events/details';
import { DETAIL_TYPES } from '../../shared/events/names';
import { buildStoredItem } from '../../shared/store/item';
import { COHERENCE_RULES } from '../../simulator/coherence';
import { coherenceViolations } from '../../simulator/coherence-check';
import { generateJpeg, generatePng } from '../../simulator/images';
import { buildPdf } from '../../simulator/pdf';
import { createPrng, deriveSeed, type Prng } from '../../simulator/prng';
import { forcesDisapproval, type ResultControls } from '../../simulator/result-checks';
import { uploadOf } from '../../simulator/result-images';
import { resultInputOf } from '../../simulator/result-input';
import { buildResult } from '../../simulator/results';
import type { Transaction, TransactionOrigin, UploadedImage } from '../../simulator/state';
import { eventValidators } from '../support/pipeline-fakes';

const RESULTS = 10_400;
const COMPLETED = Date.UTC(2026, 4, 20, 10, 30);

const PRODUCTS: readonly Product[] = [
  'FACE_LINK',
  'IDV_LITE',
  'IDV_STANDARD',
  'IDV_PREMIUM',
  'RTW_STANDARD',
  'RTW_PREMIUM',
];
const UPLOAD_PRODUCTS: readonly Product[] = ['IDV_LITE', 'IDV_STANDARD', 'RTW_STANDARD'];
const ORIGINS: readonly TransactionOrigin[] = ['secureLink', 'bulk', 'idverify', 'sdk', 'vog'];

/** The controls a tester can set (`/__sim/transaction-controls`), alone and combined. */
const CONTROLS: readonly (ResultControls | undefined)[] = [
  undefined,
  undefined,
  undefined,
  { result: 'UNKNOWN' },
  { checks: { lostAndStolen: 'HIT' } },
  { checks: { sanctionList: 'HIT' } },
  { checks: { lostAndStolen: 'HIT', sanctionList: 'HIT' } },
  { checks: { lostAndStolen: 'NOT_EXECUTED', sanctionList: 'NO_HIT' } },
  { checks: { sanctionList: 'NOT_EXECUTED' } },
  { documentValidation: { hologram: 'NOT_APPLICABLE', stamps: 'APPROVED' } },
  { documentValidation: { font: 'APPROVED', lamination: 'NOT_APPLICABLE' } },
  { digitalSigning: true },
  { result: 'UNKNOWN', digitalSigning: true, checks: { lostAndStolen: 'NO_HIT' } },
];

/** Real upload bytes, made once: the results must return exactly these. */
const IMAGES = [
  generateJpeg(640, 480, 7),
  generatePng(700, 500, 8, 'document'),
  generateJpeg(720, 960, 9, 'portrait'),
];
const STATEMENT = buildPdf('statement', ['a page']);

const UPLOAD_KINDS: readonly { type?: string; additionalDocumentType?: string }[] = [
  {},
  { type: 'PASSPORT' },
  { type: 'IDENTITY_CARD' },
  { type: 'RESIDENCE_PERMIT' },
  { type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE' },
  { type: 'ADDITIONAL', additionalDocumentType: 'WORK_PERMIT' },
  { type: 'PAPER', additionalDocumentType: 'BSN_STATEMENT' },
  { type: 'PAYROLL_TAX_STATEMENT' },
  { type: 'SIGNATURE' },
  { type: 'PORTRAIT' },
  { type: 'BSN_STATEMENT' },
  { type: 'WORK_PERMIT' },
  { type: 'RTW_DOCUMENT' },
];
const REQUESTED = ['DRIVING_LICENSE', 'PAYROLL_TAX_STATEMENT', 'WORK_PERMIT', 'SIGNATURE', 'BSN_STATEMENT'];

/** Each upload's bytes as the upload routes keep them (`uploadOf`), made once. */
const KEPT = IMAGES.map((bytes) => uploadOf({}, bytes));
const KEPT_STATEMENT = uploadOf({}, STATEMENT);

function upload(
  prng: Prng,
  kind: { type?: string; additionalDocumentType?: string },
  n: number,
): UploadedImage {
  const reference = prng.next() < 0.5 ? { customerReference: `img-${n}` } : {};
  const kept = kind.type === 'PAYROLL_TAX_STATEMENT' && prng.next() < 0.5 ? KEPT_STATEMENT : prng.pick(KEPT);
  return { ...kind, ...reference, ...kept };
}

function identityUploads(prng: Prng): UploadedImage[] {
  const count = 1 + prng.int(4);
  return Array.from({ length: count }, (_, i) => upload(prng, prng.pick(UPLOAD_KINDS), i));
}

function faceUploads(prng: Prng): UploadedImage[] {
  return [
    upload(prng, { type: 'COMPARE' }, 90),
    ...Array.from({ length: 2 + prng.int(2) }, (_, i) => upload(prng, { type: 'LIVE' }, 91 + i)),
  ];
}

/** One generated transaction as the endpoints would leave it just before completion. */
function transaction(seed: number): { t: Transaction; drivingLicenseCheck: boolean; outcome: MockTestValue } {
  const prng = createPrng(deriveSeed(seed, 'coherence'));
  const origin = prng.pick(ORIGINS);
  const controls = prng.pick(CONTROLS);
  const base: Transaction = {
    transactionId: `tx-${seed}`,
    seq: seed,
    origin,
    userId: 'api-user',
    createdAt: COMPLETED - 3_600_000,
    state: 'pending',
    uploads: [],
    resultIds: [],
    ...(prng.next() < 0.5 ? { customerReference: `ref-${seed}` } : {}),
    ...(controls ? { controls } : {}),
  };
  const mocked = (origin === 'secureLink' || origin === 'idverify') && prng.next() < 0.35;
  const mock = mocked ? prng.pick(MOCK_TEST_VALUES) : undefined;
  const t: Transaction = { ...base, ...(mock ? { mock } : {}) };
  if (origin === 'secureLink' || origin === 'bulk') {
    t.product = prng.pick(origin === 'bulk' ? PRODUCTS.slice(1) : PRODUCTS);
    if (t.product === 'FACE_LINK') t.linkedTransactionId = `premium-${seed}`;
    if (prng.next() < 0.5) t.additionalDocuments = REQUESTED.filter(() => prng.next() < 0.4);
    if (prng.next() < 0.3) t.rtwType = prng.pick(['RTW_NL', 'RTW_BE', 'RTW_DE', 'RTW_UK'] as const);
    // The hosted flow's uploads: a document's pages, a licence, the selfies of a premium link.
    if (!mock && prng.next() < 0.4 && t.product !== 'FACE_LINK') t.uploads.push(...identityUploads(prng));
    const selfie = t.product === 'FACE_LINK' || t.product.endsWith('PREMIUM');
    if (!mock && selfie && prng.next() < 0.5) t.uploads.push(...faceUploads(prng));
  } else if (origin === 'idverify') {
    t.product = prng.pick(UPLOAD_PRODUCTS);
    t.identityUploaded = true;
    t.uploads.push(...identityUploads(prng));
  } else if (origin === 'sdk') {
    const services: SdkService[] = prng.pick([['FACE_VERIFY'], ['AUTO_CAPTURE'], ['FACE_VERIFY', 'NFC']]);
    t.sdk = { services, numberOfChallenges: 2 };
    if (services.includes('FACE_VERIFY')) {
      t.faceVerified = true;
      t.uploads.push(...faceUploads(prng));
      if (prng.next() < 0.3) t.watermarkRejected = true;
    }
    if (!services.includes('FACE_VERIFY') || services.length > 1 || prng.next() < 0.5) {
      t.identityUploaded = true;
      t.product = prng.pick(UPLOAD_PRODUCTS);
      t.uploads.unshift(...identityUploads(prng));
      if (mocked) t.mock = prng.pick(MOCK_TEST_VALUES);
    }
  } else {
    t.vog = {
      createdAt: COMPLETED - 86_400_000,
      ...(prng.next() < 0.5 ? { hasExistingVog: true } : {}),
      givenNames: 'Erika',
      surname: 'Mustermann',
      companyName: 'Example BV',
      profiles: ['11'],
    };
  }
  const drawn = t.mock ?? prng.pick(MOCK_TEST_VALUES);
  const outcome = forcesDisapproval(t.controls) ? 'DISAPPROVED' : drawn;
  return { t, drivingLicenseCheck: prng.next() < 0.7, outcome };
}

describe('simulated results keep the coherence rules', () => {
  it(`holds across ${RESULTS} generated results (every product, origin, mock-test value, control, seed)`, () => {
    // Prepare
    const validateEvent = eventValidators()[DETAIL_TYPES.resultStored];
    const seen = {
      products: new Set<string>(),
      origins: new Set<string>(),
      results: new Set<string>(),
      rules: 0,
    };
    const failures: string[] = [];

    for (let seed = 1; seed <= RESULTS && failures.length < 5; seed++) {
      // Act
      const { t, drivingLicenseCheck, outcome } = transaction(seed);
      const doc = buildResult(
        resultInputOf(t, outcome, COMPLETED, { seed: deriveSeed(seed, 'result'), drivingLicenseCheck }),
      );

      // Assess
      const violations = coherenceViolations(doc, {
        transaction: t,
        completedAt: COMPLETED,
        drivingLicenseCheck,
      });
      // The schemas read the document as JSON; the (shared, megabyte) image bytes are checked above.
      const json = JSON.parse(
        JSON.stringify({ ...doc, images: doc.images?.map((i) => ({ ...i, data: 'AA==' })) }),
      );
      const parsed = resultSchema.safeParse(json);
      const item = buildStoredItem({
        hints: { resultId: `r-${seed}`, source: 'poll', ...(t.product ? { product: t.product } : {}) },
        document: json,
        stored: { resultKey: `results/r-${seed}/result.json`, objects: [], documentBytes: 1000 },
        bucket: 'data',
        storedAt: new Date(COMPLETED).toISOString(),
        retentionDays: 30,
      });
      const detail = storedDetail(item, { environment: 'staging', store: { table: 't', bucket: 'data' } });
      const problems = [
        ...violations.map((v) => `${v.rule}: ${v.problem}`),
        ...(parsed.success ? [] : ['the client schema refuses it']),
        ...(validateEvent(detail) ? [] : [`event JSON Schema: ${JSON.stringify(validateEvent.errors)}`]),
      ];
      if (problems.length > 0) {
        const { uploads, ...rest } = t;
        failures.push(
          `seed ${seed} (${JSON.stringify({ ...rest, outcome, uploads: uploads.map((u) => u.type ?? '-') })}):\n  ${problems.join('\n  ')}`,
        );
      }
      seen.products.add(t.product ?? 'none');
      seen.origins.add(t.origin);
      seen.results.add(doc.result ?? '');
    }

    expect(failures, failures.join('\n')).toEqual([]);
    expect([...seen.products].sort()).toEqual([...PRODUCTS, 'none'].sort());
    expect([...seen.origins].sort()).toEqual([...ORIGINS].sort());
    expect([...seen.results].sort()).toEqual([...RESULT_VALUES].sort());
  }, 120_000);

  it('the checker catches a result that breaks a rule', () => {
    // Prepare: a coherent result of an RTW_STANDARD upload with a driving licence, then broken by hand.
    let found: { doc: ReturnType<typeof buildResult>; t: Transaction } | undefined;
    for (let seed = 1; !found; seed++) {
      const { t, drivingLicenseCheck, outcome } = transaction(seed);
      if (outcome !== 'DISAPPROVED' || t.controls || !t.identityUploaded || t.product === 'IDV_LITE')
        continue;
      const doc = buildResult(resultInputOf(t, outcome, COMPLETED, { seed, drivingLicenseCheck }));
      if (doc.identity?.result === 'DISAPPROVED') found = { doc, t };
    }
    const { doc, t } = found;
    const broken = structuredClone(doc);
    broken.identity!.result = 'APPROVED';
    broken.identity!.data!.dateOfIssuance = '2099-01-01';
    broken.identity!.data!.mrzLines = ['X'];
    broken.faceLink = { result: 'APPROVED', messages: [], customerReferences: [] };

    // Act
    const rules = new Set(
      coherenceViolations(broken, { transaction: t, completedAt: COMPLETED, drivingLicenseCheck: true }).map(
        (v) => v.rule,
      ),
    );

    // Assess
    expect([...rules]).toEqual(
      expect.arrayContaining(['overall', 'document-dates', 'mrz', 'presence', 'section-messages']),
    );
  });

  it('simulator/README.md states every rule of COHERENCE_RULES', () => {
    const readme = readFileSync(new URL('../../simulator/README.md', import.meta.url), 'utf8');
    for (const { id } of COHERENCE_RULES) expect(readme).toContain(`| \`${id}\` |`);
  });
});
