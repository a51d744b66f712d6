/**
 * Issue 11's acceptance, locally: after `npm start -- --service-url … --once` against a service whose
 * results are full of planted personal data, `idv analytics query --local` answers from the projection
 * with one row per result, the right per-section columns and none of the planted values — in the
 * projection files, in `SELECT *` and in every saved query's answer. Also the CLI's formats, errors and
 * the report page, and `idv results list --format`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAVED_QUERY_NAMES, savedQuery } from '../../shared/analytics/queries';
import { DETAIL_TYPES } from '../../shared/events/names';
import { augustList } from '../support/cli';
import { jpegBytes, type OtherService, pdfBytes, startOtherService } from '../support/other-service';
import { npmStartOnce, type Run, run } from '../support/run-process';

const idv = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'bin/idv.ts', ...args]);

/** Distinctive personal data planted in every personal field the spec knows; none may reach analytics. */
const PLANTED = {
  givenNames: 'Zebedeus Quirinus',
  surname: 'Plantenga',
  fullname: 'Zebedeus Quirinus Plantenga',
  dateOfBirth: '1961-11-29',
  dateOfIssuance: '2019-04-17',
  dateOfExpiry: '2029-04-16',
  dueDate: '2031-02-03',
  documentNumber: 'NQ7Z41KX8',
  drivingLicenceNumber: 'DLX9Q27731',
  bsn: '999993367',
  socialSecurityNumber: 'SSN-778899001',
  mrz1: 'P<NLDPLANTENGA<<ZEBEDEUS<QUIRINUS<<<<<<<<<<<',
  mrz2: 'NQ7Z41KX85NLD6111292M2904168999993367<<<<<80',
  placeOfBirth: 'Oosterwolde-Plantinga',
  street: 'Plantengastraat',
  postalCode: '9431 ZX',
  city: 'Westerbork-Zuid',
  latitude: '52.837465',
  longitude: '6.604721',
  company: 'Plantenga Holding BV',
};

const name = { fullname: PLANTED.fullname, givenNames: PLANTED.givenNames, surname: PLANTED.surname };
const jpeg = jpegBytes(11);
const pdf = pdfBytes(12);

/** A result with every section, each full of personal data. */
const everySection = {
  transactionId: 'tx-plant-1',
  customerReference: 'order-plant-1',
  result: 'APPROVED',
  images: [
    {
      data: jpeg.toString('base64'),
      documentType: 'PASSPORT',
      pageType: 'FRONT',
      metadata: { gps: `${PLANTED.latitude},${PLANTED.longitude}` },
    },
  ],
  files: [{ data: pdf.toString('base64'), documentType: 'TRANSACTION_REPORT' }],
  identity: {
    result: 'APPROVED',
    messages: [],
    customerReferences: [PLANTED.surname],
    data: {
      name,
      dateOfBirth: PLANTED.dateOfBirth,
      dateOfIssuance: PLANTED.dateOfIssuance,
      dateOfExpiry: PLANTED.dateOfExpiry,
      documentType: 'PASSPORT',
      documentNumber: PLANTED.documentNumber,
      issuingStateOrOrganization: 'NLD',
      nationality: 'NLD',
      personalGovernmentId: PLANTED.bsn,
      placeOfBirth: PLANTED.placeOfBirth,
      mrzLines: [PLANTED.mrz1, PLANTED.mrz2],
    },
  },
  rightToWork: {
    result: 'APPROVED',
    rtwType: 'RTW_NL',
    data: {
      personalGovernmentId: PLANTED.bsn,
      vsDueDate: PLANTED.dueDate,
      employmentRemark: PLANTED.fullname,
    },
  },
  faceVerify: { result: 'APPROVED', messages: [] },
  drivingLicense: {
    result: 'DISAPPROVED',
    data: {
      name,
      dateOfBirth: PLANTED.dateOfBirth,
      documentNumber: PLANTED.drivingLicenceNumber,
      placeOfBirth: PLANTED.placeOfBirth,
    },
  },
  payrollTaxStatement: {
    result: 'APPROVED',
    data: { personalGovernmentId: PLANTED.bsn, signDate: PLANTED.dateOfIssuance },
    inputData: {
      bsn: PLANTED.bsn,
      fullname: PLANTED.fullname,
      dateOfBirth: PLANTED.dateOfBirth,
      street: PLANTED.street,
      houseNumber: '417',
      postalCode: PLANTED.postalCode,
      city: PLANTED.city,
    },
  },
  digitalSigning: { result: 'APPROVED', linkedTransactions: ['tx-plant-0'] },
  vog: {
    result: 'APPROVED',
    data: {
      givenNames: PLANTED.givenNames,
      surname: PLANTED.surname,
      dateOfBirth: PLANTED.dateOfBirth,
      companyName: PLANTED.company,
    },
  },
  faceLink: {
    result: 'APPROVED',
    gpsLocation: { latitude: Number(PLANTED.latitude), longitude: Number(PLANTED.longitude) },
  },
  additionalDocuments: [
    {
      additionalDocumentType: 'DRIVING_LICENSE',
      result: 'APPROVED',
      data: { socialSecurityNumber: PLANTED.socialSecurityNumber, personalGovernmentId: PLANTED.bsn, name },
    },
  ],
};

describe('idv analytics --local after npm start --once', () => {
  const credentials = { clientId: 'analytics-client', clientSecret: 'analytics-secret-value' };
  let service: OtherService;
  let dataDir: string;
  let started: Run;
  const local = (...args: string[]) => idv('analytics', ...args, '--local', '--data-dir', dataDir);
  const query = async (sql: string) => {
    const answer = await local('query', sql);
    expect(answer.code, answer.stderr).toBe(0);
    return JSON.parse(answer.stdout) as Record<string, unknown>[];
  };
  const expectNoPlantedData = (text: string, where: string) => {
    for (const value of Object.values(PLANTED)) {
      expect(text.toLowerCase(), `${value} in ${where}`).not.toContain(value.toLowerCase());
    }
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-analytics-local-'));
    service = await startOtherService(credentials);
    service.add({
      pollId: 'plant-1',
      completed: '2026-08-10T12:00:00Z',
      attachments: [jpeg, pdf],
      body: everySection,
    });
    service.add({
      pollId: 'plant-2',
      completed: '2026-08-11T08:30:00Z',
      attachments: [],
      body: {
        transactionId: 'tx-plant-2',
        result: 'DISAPPROVED',
        messages: ['DOCUMENT_EXPIRED'],
        identity: {
          result: 'DISAPPROVED',
          data: { name, documentNumber: PLANTED.documentNumber, mrzLines: [PLANTED.mrz1] },
        },
      },
    });
    service.add({
      pollId: 'plant-3',
      completed: '2026-08-11T09:00:00Z',
      attachments: [],
      body: { transactionId: 'tx-plant-3', result: 'TECHNICAL_REJECT', messages: ['IMAGE_TOO_BLURRY'] },
    });
    // A verdict changed after a review: a new result of plant-2's transaction (a later version).
    service.add({
      pollId: 'plant-5',
      completed: '2026-08-12T10:00:00Z',
      attachments: [],
      body: {
        transactionId: 'tx-plant-2',
        result: 'APPROVED',
        identity: { result: 'APPROVED', data: { name, documentNumber: PLANTED.documentNumber } },
      },
    });
    service.add({
      pollId: 'plant-gone-4',
      status: 404,
      completed: '2026-08-09T07:00:00Z',
      attachments: [],
      body: {},
    });
    started = await npmStartOnce({ url: service.url, ...credentials }, dataDir, ['--timeout', '120']);
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts match what was stored, one row per result', async () => {
    // Prepare
    expect(started.code, started.stderr).toBe(0);
    const events = readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { 'detail-type': string; detail: { product?: string; result?: string } },
      )
      // A changed verdict is a later row of a result already counted by its Stored event.
      .filter(
        (e) =>
          e['detail-type'] !== DETAIL_TYPES.documentsUploaded &&
          e['detail-type'] !== DETAIL_TYPES.resultChanged,
      );
    const expected = new Map<string, number>();
    for (const { detail } of events) {
      const key = `${detail.product ?? null}|${detail.result ?? null}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }

    // Act
    const grouped = await query(
      'SELECT product, result, count(*) AS n FROM results GROUP BY product, result',
    );
    const counts = await query(
      'SELECT count(*) AS total, count(DISTINCT result_id) AS distinct_results FROM results',
    );
    const recent = await query(
      "SELECT result_id FROM results WHERE completed >= TIMESTAMP '2026-01-01 00:00:00' AND day >= '2026-01-01' ORDER BY result_id",
    );

    // Assess
    expect(new Map(grouped.map((r) => [`${r['product']}|${r['result']}`, r['n']]))).toEqual(expected);
    expect(counts).toEqual([{ total: 5, distinct_results: 5 }]);
    const unnamed = await query(
      "SELECT count(*) AS n FROM results WHERE status = 'STORED' AND (product IS NULL OR completed IS NULL)",
    );
    expect(unnamed).toEqual([{ n: 0 }]);
    expect(recent.map((r) => r['result_id'])).toEqual([
      'plant-1',
      'plant-2',
      'plant-3',
      'plant-5',
      'plant-gone-4',
    ]);
    // plant-5 is version 2 of plant-2's transaction: a row of its own, with the verdict it replaced.
    expect(
      await query(
        "SELECT version, previous_result_id, previous_result FROM results WHERE result_id = 'plant-5'",
      ),
    ).toEqual([{ version: 2, previous_result_id: 'plant-2', previous_result: 'DISAPPROVED' }]);
  });

  it('fills the per-section columns for results with and without each section', async () => {
    // Act
    const rows = await query('SELECT * FROM results ORDER BY result_id');
    const byId = new Map(rows.map((r) => [r['result_id'], r]));

    // Assess
    expect(byId.get('plant-1')).toMatchObject({
      status: 'STORED',
      result: 'APPROVED',
      product: 'IDV_STANDARD',
      completed: '2026-08-10T12:00:00.000Z',
      day: '2026-08-10',
      rtw_type: 'RTW_NL',
      identity_result: 'APPROVED',
      right_to_work_result: 'APPROVED',
      face_verify_result: 'APPROVED',
      driving_license_result: 'DISAPPROVED',
      payroll_tax_statement_result: 'APPROVED',
      digital_signing_result: 'APPROVED',
      vog_result: 'APPROVED',
      face_link_result: 'APPROVED',
      additional_document_results: ['APPROVED'],
      messages: [],
      image_count: 1,
      file_count: 1,
      document_type: 'PASSPORT',
      issuing_state: 'NLD',
    });
    expect(byId.get('plant-2')).toMatchObject({
      result: 'DISAPPROVED',
      identity_result: 'DISAPPROVED',
      right_to_work_result: null,
      face_link_result: null,
      additional_document_results: null,
      messages: ['DOCUMENT_EXPIRED'],
      image_count: 0,
      document_type: null,
    });
    expect(byId.get('plant-3')).toMatchObject({
      result: 'TECHNICAL_REJECT',
      identity_result: null,
      rtw_type: null,
    });
    expect(byId.get('plant-gone-4')).toMatchObject({ status: 'UNAVAILABLE', result: null, messages: null });
  });

  it('puts none of the planted personal data in the projection, SELECT * or any saved query', async () => {
    // Prepare
    // The local store: results.parquet and any incoming lines not compacted yet (local/analytics-store.ts).
    const dir = join(dataDir, 'analytics');
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());

    // Act
    const everything = await local('query', 'SELECT * FROM results');
    const answers = await Promise.all(
      SAVED_QUERY_NAMES.map((n, i) =>
        i % 2 === 0
          ? local('query', '--saved', n)
          : idv('analytics', 'query', '--local', '--data-dir', dataDir, '--', savedQuery(n).sql),
      ),
    );

    // Assess
    expect(files.map((f) => f.name)).toContain('results.parquet');
    for (const file of files)
      expectNoPlantedData(readFileSync(join(file.parentPath, file.name)).toString('latin1'), file.name);
    expectNoPlantedData(everything.stdout, 'SELECT *');
    for (const [i, answer] of answers.entries()) {
      expect(answer.code, answer.stderr).toBe(0);
      expect(JSON.parse(answer.stdout).length, SAVED_QUERY_NAMES[i]).toBeGreaterThan(0);
      expectNoPlantedData(answer.stdout, SAVED_QUERY_NAMES[i]!);
    }
  }, 120_000);

  it('prints tables and CSV, and refuses bad SQL with the engine message and no stack', async () => {
    // Act
    const [table, csv, bad, noEngine] = await Promise.all([
      local('query', '--format', 'table', 'SELECT result_id, image_count FROM results ORDER BY 1'),
      local('query', '--format', 'csv', 'SELECT result_id, messages FROM results ORDER BY 1'),
      local('query', 'SELECT nope FROM results'),
      idv('analytics', 'query', 'SELECT 1'),
    ]);

    // Assess
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      'result_id     image_count',
      '------------  -----------',
      'plant-1                 1',
    ]);
    expect(csv.stdout.split('\n').slice(0, 3)).toEqual([
      'result_id,messages',
      'plant-1,',
      'plant-2,DOCUMENT_EXPIRED',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^idv: Binder Error: .*nope/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(noEngine.code).toBe(2);
    expect(noEngine.stderr).toContain('pass --local or --workgroup WG');
  });

  it('reports a summary and writes a self-contained HTML page', async () => {
    // Prepare
    const page = join(dataDir, 'report.html');

    // Act
    const report = await local('report', '--since', '2026-08-10', '--until', '2026-08-11', '--html', page);

    // Assess
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('Results, 2026-08-10 … 2026-08-11');
    expect(report.stdout).toContain('3 result(s): 1 APPROVED, 1 DISAPPROVED, 1 TECHNICAL_REJECT');
    expect(report.stdout).toMatch(/Approval rate: 33\.3% of 3 stored result\(s\)/);
    const html = readFileSync(page, 'utf8');
    expect(statSync(page).size).toBeGreaterThan(1000);
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/\b(src|href)\s*=|@import|url\(/i);
    expectNoPlantedData(html, 'report.html');
  });

  it('idv results list --format table|csv', async () => {
    // Act
    const list = (format: string) => idv(...augustList(format), '--local', '--data-dir', dataDir);
    // One after the other: each --local run opens the emulators' files in the data directory.
    const csv = await list('csv');
    const table = await list('table');

    // Assess
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...lines] = csv.stdout.trim().split('\n');
    expect(header).toBe(
      'resultId,status,product,result,completed,storedAt,transactionId,customerReference,userId,messages',
    );
    expect(lines).toHaveLength(5);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^resultId\s+status\s+product\s+result\s+completed/);
  });
});
