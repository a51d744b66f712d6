/**
 * No personal data in any column: a result with personal data planted in every field of the spec, also
 * where codes belong (a name as documentType, a date as vog.status, a BSN as a reason key), goes the whole
 * way — item, event, projection, compaction into Parquet, `SELECT *` on DuckDB — and no column of the
 * row holds a planted value. Every column is looked at by name, so a new column is covered as it is added.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLocalAnalytics } from '../../local/analytics-duckdb';
import { appendRecord, compactLocalProjection, localParquetFile } from '../../local/analytics-store';
import { PROJECTION_COLUMNS } from '../../shared/analytics/columns';
import { projectEvent } from '../../shared/analytics/projection';
import type { CustomerReferenceMode } from '../../shared/config';
import { storedDetail } from '../../shared/events/details';
import { DETAIL_TYPES } from '../../shared/events/names';
import { buildStoredItem } from '../../shared/store/item';

const PLANTED = {
  fullname: 'Zebedeus Quirinus Plantenga',
  surname: 'Plantenga',
  email: 'zebedeus.plantenga@example.org',
  dateOfBirth: '1961-11-29',
  documentNumber: 'NQ7Z41KX8',
  bsn: '999993367',
  mrz: 'P<NLDPLANTENGA<<ZEBEDEUS<QUIRINUS<<<<<<<<<<<',
  placeOfBirth: 'Oosterwolde-Plantinga',
  gps: '52.837465',
  street: 'Plantengastraat 12',
};
const name = { fullname: PLANTED.fullname, surname: PLANTED.surname, givenNames: 'Zebedeus Quirinus' };
const personalMessages = [
  PLANTED.fullname,
  PLANTED.bsn,
  PLANTED.dateOfBirth,
  PLANTED.email,
  'DOCUMENT_EXPIRED',
];

/** Every section, every personal field, and personal values where codes belong. */
const document = {
  transactionId: 'tx-plant',
  customerReference: PLANTED.fullname,
  userId: PLANTED.email,
  result: 'DISAPPROVED',
  messages: personalMessages,
  images: [{ data: 'AA==', documentType: PLANTED.fullname, metadata: { gps: PLANTED.gps } }],
  files: [{ data: 'AA==', documentType: PLANTED.documentNumber }],
  identity: {
    result: 'APPROVED',
    messages: personalMessages,
    customerReferences: [PLANTED.surname],
    data: {
      name,
      dateOfBirth: PLANTED.dateOfBirth,
      documentType: PLANTED.surname,
      documentNumber: PLANTED.documentNumber,
      issuingStateOrOrganization: PLANTED.placeOfBirth,
      personalGovernmentId: PLANTED.bsn,
      placeOfBirth: PLANTED.placeOfBirth,
      mrzLines: [PLANTED.mrz],
    },
    documentValidation: { font: PLANTED.surname, hologram: 'APPROVED' },
    verifications: {
      sanctionList: {
        result: 'APPROVED',
        verificationResult: PLANTED.fullname,
        foundOnLists: [PLANTED.surname],
      },
      lostAndStolen: { verificationResult: PLANTED.documentNumber, messages: [PLANTED.bsn] },
    },
  },
  rightToWork: {
    result: 'APPROVED',
    rtwType: PLANTED.dateOfBirth,
    messages: [PLANTED.street],
    data: { personalGovernmentId: PLANTED.bsn },
  },
  faceVerify: { result: 'APPROVED', messages: [PLANTED.email], customerReferences: [PLANTED.fullname] },
  drivingLicense: { result: 'APPROVED', data: { name, documentNumber: PLANTED.documentNumber } },
  payrollTaxStatement: { result: 'APPROVED', inputData: { bsn: PLANTED.bsn, street: PLANTED.street } },
  digitalSigning: { result: 'APPROVED', messages: [PLANTED.mrz] },
  vog: { result: 'APPROVED', status: PLANTED.dateOfBirth, data: { surname: PLANTED.surname } },
  faceLink: { result: 'APPROVED', gpsLocation: { latitude: 52.837465, longitude: 6.604721 } },
  additionalDocuments: [
    {
      additionalDocumentType: PLANTED.fullname,
      result: 'APPROVED',
      data: { socialSecurityNumber: PLANTED.bsn },
    },
  ],
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function expectNothingPlanted(text: string, where: string): void {
  for (const value of Object.values(PLANTED)) {
    expect(text.toLowerCase(), `${value} in ${where}`).not.toContain(value.toLowerCase());
  }
}

describe('planted personal data', () => {
  it.each<CustomerReferenceMode>(['include', 'omit'])(
    'reaches no column of the projection (customer references: %s)',
    async (mode) => {
      // Prepare
      const dataDir = mkdtempSync(join(tmpdir(), 'idv-planted-'));
      dirs.push(dataDir);
      const item = buildStoredItem({
        hints: {
          resultId: 'plant-1',
          source: 'poll',
          product: 'RTW_PREMIUM',
          completed: '2026-08-10T12:00:00Z',
          customerReference: PLANTED.fullname,
          userId: PLANTED.email,
        },
        document,
        stored: { resultKey: 'results/plant-1/result.json', objects: [], documentBytes: 10 },
        bucket: 'data',
        storedAt: '2026-08-10T12:00:03.000Z',
        retentionDays: 30,
      });
      const detail = storedDetail(item, {
        environment: 'staging',
        store: { table: 't', bucket: 'b' },
        eventCustomerReference: mode,
      });

      // Act
      const record = projectEvent(
        { 'detail-type': DETAIL_TYPES.resultStored, detail },
        { customerReference: mode },
      )!;
      appendRecord(dataDir, record);
      await compactLocalProjection(dataDir);
      const engine = await openLocalAnalytics(dataDir);
      const [row] = (await engine.query('SELECT * FROM results')).rows;
      await engine.close();

      // Assess
      expect(Object.keys(row!)).toEqual(PROJECTION_COLUMNS.map((c) => c.name));
      for (const column of PROJECTION_COLUMNS) {
        expectNothingPlanted(JSON.stringify(row![column.name] ?? null), column.name);
      }
      expectNothingPlanted(JSON.stringify(detail), 'the event');
      expectNothingPlanted(readFileSync(localParquetFile(dataDir)).toString('latin1'), 'the Parquet file');
      // What is kept is still there: the outcomes and the reason key that is one.
      expect(row).toMatchObject({ result: 'DISAPPROVED', identity_messages: ['DOCUMENT_EXPIRED'] });
      expect(row!['messages']).toEqual(['DOCUMENT_EXPIRED']);
    },
  );
});
