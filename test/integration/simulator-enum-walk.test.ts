/**
 * Every enumerated value a response can carry (each `openEnum(…)` of a response schema in
 * shared/api/schemas.ts, read from its source) is produced by the simulator over real HTTP: the
 * `mock-test` values where they reach it, the simulator's controls (`/__sim/transaction-controls`,
 * `/__sim/communications`) for the rest (result UNKNOWN, HIT, NOT_EXECUTED, communication FAILED, …).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as enums from '../../shared/api/enums';
import { MOCK_TEST_HEADER, PATHS } from '../../shared/api/enums';
import { generateJpeg } from '../../simulator/images';
import { buildPdf } from '../../simulator/pdf';
import { SECURITY_FEATURES } from '../../simulator/result-checks';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { completedResult, SIM_CLIENT, tokenFor } from '../support/simulator-http';

/** Each response field typed by an enum constant, as the schemas' source declares it. */
function responseEnumFields(): { field: string; constant: string }[] {
  const source = readFileSync(new URL('../../shared/api/schemas.ts', import.meta.url), 'utf8');
  const aliases = new Map<string, string>();
  for (const m of source.matchAll(/const (\w+) = z\.optional\(openEnum\((\w+)\)\)/g))
    aliases.set(m[1]!, m[2]!);
  const fields: { field: string; constant: string }[] = [];
  for (const m of source.matchAll(/(\w+): (?:z\.optional\()?openEnum\((\w+)\)/g)) {
    fields.push({ field: m[1]!, constant: m[2]! });
  }
  for (const m of source.matchAll(/(\w+): (\w+),/g)) {
    const constant = aliases.get(m[2]!);
    if (constant) fields.push({ field: m[1]!, constant });
  }
  return fields;
}

/** Every string value under each field name, anywhere in `value`. */
function collect(value: unknown, seen: Map<string, Set<string>>): void {
  if (Array.isArray(value)) for (const v of value) collect(v, seen);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string') {
        if (!seen.has(k)) seen.set(k, new Set());
        seen.get(k)!.add(v);
      } else collect(v, seen);
    }
  }
}

/**
 * The schemas type communicationMode with the request's enum; §2.3 lists only MODE_SMS and MODE_EMAIL in
 * `communicationsResponse` (a WhatsApp message answers with `whatsappRedirectUrl` instead).
 */
const NOT_IN_RESPONSES = new Set(['communicationMode=MODE_WHATSAPP']);

const big = generateJpeg(640, 480, 3).toString('base64');
const small = generateJpeg(64, 48, 3).toString('base64');
const pdf = buildPdf('statement', ['page']).toString('base64');
const PRODUCTS = ['IDV_LITE', 'IDV_STANDARD', 'IDV_PREMIUM', 'RTW_STANDARD', 'RTW_PREMIUM'] as const;

let sim: RunningSimulator;
let token: string;
const seen = new Map<string, Set<string>>();

beforeAll(async () => {
  sim = await startSimulator({ ...SIM_CLIENT, seed: 39, outcome: 'APPROVED', completionDelayMs: 60_000 });
  token = await tokenFor(sim);
});
afterAll(() => sim.close());

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(json)).toBe(200);
  collect(json, seen);
  return json;
}

async function result(transactionId: string): Promise<void> {
  collect(await completedResult(sim, token, transactionId), seen);
}

/** One `/__sim` control over HTTP, as `idv simulator trigger` sends it. */
async function control(path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${sim.url}/__sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  expect(res.status, await res.text()).toBe(200);
}

async function link(body: Record<string, unknown>, mock?: string): Promise<string> {
  const answer = await post(PATHS.secureLink, body, mock ? { [MOCK_TEST_HEADER]: mock } : {});
  return answer.transactionId as string;
}

describe('every enumerated response value of the spec', () => {
  it('is produced by the simulator', { timeout: 120_000 }, async () => {
    // Act: the mock-test values on every product
    for (const product of PRODUCTS) {
      for (const mock of enums.MOCK_TEST_VALUES) await result(await link({ product }, mock));
    }
    for (const rtwType of enums.RTW_TYPES)
      await result(await link({ product: 'RTW_STANDARD', rtwType }, 'APPROVED'));
    // Act: uploads of every image type, a payroll tax statement, a VOG's paper certificate
    const images = enums.UPLOAD_IMAGE_TYPES.filter((t) => t !== 'PAYROLL_TAX_STATEMENT').map((type) => ({
      data: big,
      type,
      ...(type === 'ADDITIONAL' ? { additionalDocumentType: 'RTW_DOCUMENT' } : {}),
    }));
    const upload = await post(PATHS.idVerify, {
      product: 'RTW_STANDARD',
      images: [...images, { data: pdf, type: 'PAYROLL_TAX_STATEMENT' }],
    });
    await result(upload.transactionId as string);
    // Act: what only the controls produce
    const controlled = [
      { result: 'UNKNOWN' },
      { checks: { lostAndStolen: 'HIT', sanctionList: 'HIT' } },
      { checks: { lostAndStolen: 'NOT_EXECUTED', sanctionList: 'NOT_EXECUTED' } },
      { documentValidation: Object.fromEntries(SECURITY_FEATURES.map((f) => [f, 'NOT_APPLICABLE'])) },
      { documentValidation: Object.fromEntries(SECURITY_FEATURES.map((f) => [f, 'APPROVED'])) },
    ];
    for (const controls of controlled) {
      const transactionId = await link({ product: 'IDV_STANDARD' });
      await control('transaction-controls', { transactionId, ...controls });
      await control(`complete?transactionId=${transactionId}`);
      await result(transactionId);
    }
    // Act: communication statuses
    const modes = {
      communicationModes: ['MODE_EMAIL', 'MODE_SMS'],
      emailAddress: 'a@example.invalid',
      phoneNumber: '+31600000000',
    };
    await link(modes);
    await control('communications', { status: 'FAILED' });
    await link(modes);
    await control('communications', { status: 'SENT' });
    // Act: quality verdicts, one image each
    const truncated = Buffer.from([0xff, 0xd8, 0xff]).toString('base64');
    for (const image of [big, small, truncated, Buffer.from('not an image').toString('base64')]) {
      await post(PATHS.quality, { images: [image] });
    }

    // Assess
    const fields = responseEnumFields();
    expect(fields.map((f) => f.constant)).toEqual(
      expect.arrayContaining(['RESULT_VALUES', 'VERIFICATION_RESULTS', 'COMMUNICATION_STATUSES']),
    );
    const missing: string[] = [];
    for (const { field, constant } of fields) {
      const values = (enums as unknown as Record<string, readonly string[]>)[constant];
      expect(values, constant).toBeDefined();
      for (const value of values!) {
        if (!seen.get(field)?.has(value) && !NOT_IN_RESPONSES.has(`${field}=${value}`)) {
          missing.push(`${field}=${value}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
