/**
 * Issue 5's acceptance against *another implementation* of the service (test/support/other-service.ts,
 * not our simulator): `npm start -- --service-url … --once` stores every pending result exactly once,
 * byte-identical, with one event each and no personal data in its output; `idv results get ID --local
 * --out DIR` returns each afterwards; a second `--once` fetches only what is new.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAIL_TYPES } from '../../shared/events/names';
import {
  jpegBytes,
  mimeBase64,
  type OtherResult,
  type OtherService,
  pdfBytes,
  pngBytes,
  startOtherService,
} from '../support/other-service';
import { npmStartOnce, type Run, run } from '../support/run-process';

const idv = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'bin/idv.ts', ...args]);

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Personal data the other service puts into its results: none of it may appear in the run's output. */
const PERSONAL = {
  fullname: 'Jantje Otherservice Testpersoon',
  surname: 'Testpersoon',
  documentNumber: 'XK0042TQ9',
  dateOfBirth: '1987-03-14',
  personalGovernmentId: '999990019',
  mrz: 'P<NLDTESTPERSOON<<JANTJE<OTHERSERVICE<<<<<<<<',
};

function identity(result: string) {
  return {
    result,
    messages: [],
    data: {
      name: { fullname: PERSONAL.fullname, givenNames: 'Jantje', surname: PERSONAL.surname },
      dateOfBirth: PERSONAL.dateOfBirth,
      documentNumber: PERSONAL.documentNumber,
      personalGovernmentId: PERSONAL.personalGovernmentId,
      mrzLines: [PERSONAL.mrz],
      // A field our schema does not know.
      chipReadOutcome: 'READ_OK',
    },
  };
}

function fixtures(): OtherResult[] {
  const jpegA = jpegBytes(1);
  const pngA = pngBytes(2);
  const pdfA = pdfBytes(3);
  const jpegB = jpegBytes(4);
  const pngC = pngBytes(5);
  const jpegD = jpegBytes(6);
  const jpegE = jpegBytes(7);
  return [
    {
      pollId: 'res.2026:0001',
      completed: '10/08/2026 12:00:00',
      attachments: [jpegA, pngA, pdfA],
      body: {
        transactionId: 'tx.2026:0001',
        customerReference: 'order:1',
        result: 'PENDING_REVIEW',
        images: [
          {
            data: `data:image/jpeg;base64,${jpegA.toString('base64')}`,
            documentType: 'PASSPORT',
            pageType: 'FRONT',
          },
          { data: mimeBase64(pngA), documentType: 'SELFIE_VIDEO_FRAME', pageType: 'ANY' },
          { documentType: 'IDENTITY_CARD', pageType: 'BACK', reason: 'not captured' },
          { data: null, documentType: 'IDENTITY_CARD', pageType: 'FRONT' },
        ],
        files: [{ data: pdfA.toString('base64url'), documentType: 'TRANSACTION_REPORT' }],
        identity: identity('APPROVED'),
        riskAssessment: { result: 'LOW', score: 0.12 },
        processedBy: { node: 'eu-2', version: 7 },
      },
    },
    {
      pollId: 'R~42',
      completed: 1786364400000,
      attachments: [jpegB],
      body: {
        transactionId: 'tx-42',
        result: 'APPROVED',
        images: [{ data: jpegB.toString('base64'), documentType: 'PASSPORT', pageType: 'FRONT' }],
        identity: identity('APPROVED'),
      },
    },
    {
      pollId: '0b7e3c52-7f0e-4f7e-9a51-3c2f8d9e6a10',
      completed: '2026-08-10T12:00:00Z',
      attachments: [pngC],
      body: {
        transactionId: '5a0e9f1c-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
        result: 'DISAPPROVED',
        messages: ['DOCUMENT_EXPIRED'],
        images: [{ data: pngC.toString('base64'), documentType: 'IDENTITY_CARD', pageType: 'FRONT' }],
        identity: identity('DISAPPROVED'),
      },
    },
    {
      pollId: 90817,
      attachments: [jpegD],
      body: {
        transactionId: 'tx-90817',
        result: 'APPROVED',
        images: [{ data: jpegD.toString('base64'), documentType: 'LIVE', pageType: 'ANY' }],
      },
    },
    {
      pollId: 'acct@eu+7=',
      attachments: [jpegE],
      body: {
        transactionId: 'tx-acct',
        result: 'TECHNICAL_REJECT',
        images: [{ data: jpegE.toString('base64'), documentType: 'PASSPORT', pageType: 'FRONT' }],
      },
    },
    { pollId: 'expired.0001', status: 410, attachments: [], body: { transactionId: 'tx-expired' } },
    { pollId: 'missing-0002', status: 404, attachments: [], body: { transactionId: 'tx-missing' } },
  ];
}

describe('npm start --once against another implementation of the service', () => {
  const credentials = { clientId: 'other-client', clientSecret: 'other-secret-value' };
  let service: OtherService;
  let dataDir: string;
  let stored: OtherResult[];
  let first: Run;

  const once = () => npmStartOnce({ url: service.url, ...credentials }, dataDir, ['--timeout', '120']);

  const events = () =>
    readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { 'detail-type': string; detail: { resultId: string } });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-other-service-'));
    service = await startOtherService(credentials);
    const all = fixtures();
    for (const result of all) service.add(result);
    stored = all.filter((r) => r.status === undefined);
    first = await once();
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores every pending result exactly once, with one event each, and exits 0', () => {
    // Assess
    expect(first.code, first.stderr).toBe(0);
    expect(first.summary).toMatchObject({ polled: 1, stored: stored.length, unavailable: 2, dlq: 0 });
    for (const result of stored) {
      expect(service.successfulGets.get(String(result.pollId)), String(result.pollId)).toBe(1);
    }
    const storedEvents = events().filter((e) => e['detail-type'] === DETAIL_TYPES.resultStored);
    expect(storedEvents.map((e) => e.detail.resultId).sort()).toEqual(
      stored.map((r) => String(r.pollId)).sort(),
    );
    const unavailable = events().filter((e) => e['detail-type'] === DETAIL_TYPES.resultUnavailable);
    expect(unavailable.map((e) => e.detail.resultId).sort()).toEqual(['expired.0001', 'missing-0002']);
    expect(service.pending().sort()).toEqual(['expired.0001', 'missing-0002']);
  });

  it('sends the spec token request and puts no personal data or secret in its output', () => {
    // Assess
    expect(service.tokenRequests.length).toBeGreaterThan(0);
    for (const request of service.tokenRequests) {
      expect(request.authorization).toMatch(/^Basic /);
      expect(request.body).toEqual({ scopes: expect.any(Array) });
    }
    const output = first.stdout + first.stderr;
    for (const value of [...Object.values(PERSONAL), credentials.clientSecret]) {
      expect(output).not.toContain(value);
    }
  });

  it('returns each stored result byte-identical with idv results get --local --out', async () => {
    for (const [i, result] of stored.entries()) {
      // Prepare
      const out = join(dataDir, `out-${i}`);

      // Act
      const get = await idv(
        'results',
        'get',
        String(result.pollId),
        '--local',
        '--data-dir',
        dataDir,
        '--out',
        out,
      );

      // Assess
      expect(get.code, get.stderr).toBe(0);
      const files = readdirSync(out).filter((name) => name !== 'result.json');
      expect(files.map((name) => sha(readFileSync(join(out, name)))).sort()).toEqual(
        result.attachments.map(sha).sort(),
      );
      const document = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Record<string, unknown>;
      expect(document.transactionId).toBe(result.body.transactionId);
      expect(document.result).toBe(result.body.result);
    }
  }, 120_000);

  it('keeps entries without data, unknown sections, fields and enum values in the stored document', async () => {
    // Act
    const get = await idv('results', 'get', 'res.2026:0001', '--local', '--data-dir', dataDir);

    // Assess
    expect(get.code, get.stderr).toBe(0);
    const item = JSON.parse(get.stdout) as {
      result: string;
      objects: { contentType: string }[];
      document: {
        images: Record<string, unknown>[];
        riskAssessment: unknown;
        processedBy: unknown;
        identity: { data: { chipReadOutcome: string } };
      };
    };
    expect(item.result).toBe('PENDING_REVIEW');
    expect(item.objects.map((o) => o.contentType)).toEqual(['image/jpeg', 'image/png', 'application/pdf']);
    expect(item.document.images).toHaveLength(4);
    expect(item.document.images[2]).toEqual({
      documentType: 'IDENTITY_CARD',
      pageType: 'BACK',
      reason: 'not captured',
    });
    expect(item.document.images[3]).toMatchObject({ data: null, documentType: 'IDENTITY_CARD' });
    expect(item.document.images[1]).toMatchObject({ documentType: 'SELFIE_VIDEO_FRAME' });
    expect(item.document.riskAssessment).toEqual({ result: 'LOW', score: 0.12 });
    expect(item.document.processedBy).toEqual({ node: 'eu-2', version: 7 });
    expect(item.document.identity.data.chipReadOutcome).toBe('READ_OK');
  });

  it('fetches only what is new on a second --once', async () => {
    // Prepare
    const fresh = jpegBytes(9);
    service.add({
      pollId: 'res.2026:0002',
      attachments: [fresh],
      body: {
        transactionId: 'tx.2026:0002',
        result: 'APPROVED',
        images: [{ data: fresh.toString('base64'), documentType: 'PASSPORT', pageType: 'FRONT' }],
      },
    });

    // Act
    const second = await once();

    // Assess
    expect(second.code, second.stderr).toBe(0);
    expect(second.summary).toMatchObject({ polled: 1, stored: 1, dlq: 0 });
    expect(service.successfulGets.get('res.2026:0002')).toBe(1);
    for (const result of stored) expect(service.successfulGets.get(String(result.pollId))).toBe(1);
    const storedEvents = events().filter((e) => e['detail-type'] === DETAIL_TYPES.resultStored);
    expect(storedEvents).toHaveLength(stored.length + 1);
    expect(events().filter((e) => e['detail-type'] === DETAIL_TYPES.resultUnavailable)).toHaveLength(2);
  }, 180_000);
});
