import { describe, expect, it } from 'vitest';
import { PROJECTION_COLUMNS } from '../../shared/analytics/columns';
import {
  PROJECTION_CUSTOMER_REFERENCE,
  ProjectionError,
  projectEvent,
  projectionKeyPart,
  recordKey,
  recordLine,
  sqlTimestamp,
} from '../../shared/analytics/projection';
import {
  CUSTOMER_REFERENCE,
  changedDetail,
  storedDetail,
  unavailableDetail,
} from '../../shared/events/details';
import { DETAIL_TYPES } from '../../shared/events/names';
import { buildStoredItem, buildUnavailableItem } from '../../shared/store/item';
import { resultIdKeyPart } from '../../shared/store/keys';
import { itemSummaryDetail, summarizeResult } from '../../shared/store/summary';
import { versionEntry } from '../../shared/store/versions';
import { eventValidators } from '../support/pipeline-fakes';

const store = { table: 'results', bucket: 'data' };

function storedItem(document: Record<string, unknown>, hints: Record<string, string> = {}) {
  return buildStoredItem({
    hints: {
      resultId: 'r-1',
      source: 'poll',
      product: 'RTW_PREMIUM',
      completed: '2026-08-10T12:00:00Z',
      ...hints,
    },
    document,
    stored: { resultKey: 'results/r-1/result.json', objects: [], documentBytes: 10 },
    bucket: 'data',
    storedAt: '2026-08-10T12:00:03.512Z',
    retentionDays: 30,
  });
}

const event = (detailType: string, detail: object) => ({ 'detail-type': detailType, detail });

describe('summary facts of a result', () => {
  it('counts images and files and keeps rtwType, document type, issuing state and additional results', () => {
    // Prepare
    const document = {
      images: [{}, {}, {}],
      files: [{}],
      identity: {
        result: 'APPROVED',
        data: { documentType: 'PASSPORT', issuingStateOrOrganization: 'NLD', surname: 'X' },
      },
      rightToWork: { result: 'APPROVED', rtwType: 'RTW_NL' },
      additionalDocuments: [{ result: 'APPROVED' }, { result: 'DISAPPROVED' }],
    };

    // Act
    const summary = summarizeResult(document);

    // Assess
    expect(summary).toEqual({
      imageCount: 3,
      fileCount: 1,
      rtwType: 'RTW_NL',
      documentType: 'PASSPORT',
      issuingState: 'NLD',
      additionalDocumentResults: ['APPROVED', 'DISAPPROVED'],
    });
  });

  it('drops values that are not codes (free text, numbers with separators, over-long values)', () => {
    // Prepare
    const document = {
      identity: {
        data: { documentType: 'Jan de Vries, 12-03-1980', issuingStateOrOrganization: 'N'.repeat(65) },
      },
      rightToWork: { rtwType: 42 },
      additionalDocuments: [{ result: 'APPROVED' }, { result: { nested: true } }],
    };

    // Act
    const summary = summarizeResult(document);

    // Assess
    expect(summary).toEqual({ imageCount: 0, fileCount: 0, additionalDocumentResults: ['APPROVED'] });
  });

  it('comes from the document for items stored before summaries existed', () => {
    // Prepare
    const { summary: _none, ...old } = storedItem({
      images: [{}],
      identity: { data: { documentType: 'ID' } },
    });

    // Act
    const detail = itemSummaryDetail(old);

    // Assess
    expect(detail).toEqual({ imageCount: 1, fileCount: 0, documentType: 'ID' });
  });
});

describe('projectEvent', () => {
  it('maps a Stored event with every section to one record of exactly the projection columns', () => {
    // Prepare
    const item = storedItem({
      transactionId: 'tx-1',
      customerReference: 'order-1',
      userId: 'api-user',
      result: 'DISAPPROVED',
      messages: ['DOCUMENT_EXPIRED', 'FACE_MISMATCH'],
      images: [{}, {}],
      files: [{}],
      identity: {
        result: 'APPROVED',
        data: { documentType: 'PASSPORT', issuingStateOrOrganization: 'NLD' },
        documentValidation: { font: 'APPROVED', hologram: 'APPROVED', stamps: 'NOT_APPLICABLE' },
        verifications: {
          sanctionList: { result: 'APPROVED', verificationResult: 'NO_HIT' },
          lostAndStolen: { verificationResult: 'NOT_EXECUTED' },
        },
      },
      rightToWork: { result: 'APPROVED', rtwType: 'RTW_NL' },
      faceVerify: { result: 'DISAPPROVED', messages: ['FACE_MISMATCH'] },
      drivingLicense: { result: 'APPROVED' },
      payrollTaxStatement: { result: 'TECHNICAL_REJECT', messages: ['SIGNATURE_MISSING'] },
      digitalSigning: { result: 'UNKNOWN' },
      vog: { result: 'APPROVED', status: 'COMPLETED' },
      faceLink: { result: 'APPROVED' },
      additionalDocuments: [{ result: 'APPROVED', additionalDocumentType: 'BANK_CARD' }],
    });
    const detail = storedDetail(item, {
      environment: 'production',
      store,
      eventCustomerReference: 'include',
    });

    // Act
    const record = projectEvent(event(DETAIL_TYPES.resultStored, detail), { customerReference: 'include' });

    // Assess
    expect(Object.keys(record!)).toEqual(PROJECTION_COLUMNS.map((c) => c.name));
    expect(record).toEqual({
      result_id: 'r-1',
      transaction_id: 'tx-1',
      customer_reference: 'order-1',
      user_id: 'api-user',
      product: 'RTW_PREMIUM',
      result: 'DISAPPROVED',
      status: 'STORED',
      completed: '2026-08-10 12:00:00.000',
      stored_at: '2026-08-10 12:00:03.512',
      day: '2026-08-10',
      environment: 'production',
      rtw_type: 'RTW_NL',
      identity_result: 'APPROVED',
      right_to_work_result: 'APPROVED',
      face_verify_result: 'DISAPPROVED',
      driving_license_result: 'APPROVED',
      payroll_tax_statement_result: 'TECHNICAL_REJECT',
      digital_signing_result: 'UNKNOWN',
      vog_result: 'APPROVED',
      face_link_result: 'APPROVED',
      additional_document_results: ['APPROVED'],
      messages: ['DOCUMENT_EXPIRED', 'FACE_MISMATCH'],
      image_count: 2,
      file_count: 1,
      document_type: 'PASSPORT',
      issuing_state: 'NLD',
      completed_to_stored_seconds: 3.512,
      document_validation_approved: 2,
      document_validation_not_applicable: 1,
      sanction_list_result: 'NO_HIT',
      lost_and_stolen_result: 'NOT_EXECUTED',
      vog_status: 'COMPLETED',
      additional_document_types: ['BANK_CARD'],
      identity_messages: null,
      right_to_work_messages: null,
      face_verify_messages: ['FACE_MISMATCH'],
      driving_license_messages: null,
      payroll_tax_statement_messages: ['SIGNATURE_MISSING'],
      digital_signing_messages: null,
      vog_messages: null,
      face_link_messages: null,
      version: 1,
      previous_result_id: null,
      previous_result: null,
    });
  });

  it('maps a Changed event to the record of its version, keyed apart from the first version', () => {
    // Prepare: version 2 of r-1 (the same resultId announced again), from the pipeline's own detail.
    const first = storedItem({ transactionId: 'tx-1', result: 'APPROVED', identity: { result: 'APPROVED' } });
    const second = {
      ...storedItem(
        {
          transactionId: 'tx-1',
          result: 'DISAPPROVED',
          messages: ['FRAUD_SUSPECTED'],
          identity: { result: 'DISAPPROVED' },
        },
        { completed: '2026-08-12T09:30:00Z' },
      ),
      version: 2,
    };
    const detail = changedDetail(
      second,
      { ...versionEntry(first), version: 1 },
      { environment: 'staging', store },
    );

    // Act
    const record = projectEvent(event(DETAIL_TYPES.resultChanged, { ...detail, customerReference: 'x' }))!;

    // Assess
    expect(record).toMatchObject({
      result_id: 'r-1',
      transaction_id: 'tx-1',
      status: 'STORED',
      result: 'DISAPPROVED',
      identity_result: 'DISAPPROVED',
      messages: ['FRAUD_SUSPECTED'],
      completed: '2026-08-12 09:30:00.000',
      day: '2026-08-12',
      version: 2,
      previous_result_id: 'r-1',
      previous_result: 'APPROVED',
      customer_reference: null,
    });
    expect(Object.keys(record).sort()).toEqual(PROJECTION_COLUMNS.map((c) => c.name).sort());
    expect(recordKey(record)).toBe('analytics/results/day=2026-08-12/r-1.v2.stored.json');
    expect(() => projectEvent(event(DETAIL_TYPES.resultChanged, { ...detail, version: 0 }))).toThrow(
      ProjectionError,
    );
  });

  it('exports customer_reference only when the environment includes it, and only shaped like a reference', () => {
    const detail = { resultId: 'r-1', storedAt: '2026-08-10T00:00:00Z', customerReference: 'order-1' };
    expect(projectEvent(event(DETAIL_TYPES.resultStored, detail))!.customer_reference).toBeNull();
    expect(
      projectEvent(event(DETAIL_TYPES.resultStored, detail), { customerReference: 'omit' })!
        .customer_reference,
    ).toBeNull();
    expect(
      projectEvent(event(DETAIL_TYPES.resultStored, detail), { customerReference: 'include' })!
        .customer_reference,
    ).toBe('order-1');
    const named = { ...detail, customerReference: 'Jane Example' };
    expect(
      projectEvent(event(DETAIL_TYPES.resultStored, named), { customerReference: 'include' })!
        .customer_reference,
    ).toBeNull();
  });

  it('keeps the projection reference rule equal to the events rule', () => {
    expect(PROJECTION_CUSTOMER_REFERENCE.source).toBe(CUSTOMER_REFERENCE.source);
  });

  it('leaves absent sections, additional documents and document facts NULL', () => {
    // Prepare
    const detail = storedDetail(storedItem({ result: 'APPROVED', identity: { result: 'APPROVED' } }), {
      environment: 'staging',
      store,
    });

    // Act
    const record = projectEvent(event(DETAIL_TYPES.resultStored, detail))!;

    // Assess
    expect(record.identity_result).toBe('APPROVED');
    for (const column of [
      'right_to_work_result',
      'face_verify_result',
      'driving_license_result',
      'payroll_tax_statement_result',
      'digital_signing_result',
      'vog_result',
      'face_link_result',
      'additional_document_results',
      'rtw_type',
      'document_type',
      'issuing_state',
    ] as const) {
      expect(record[column], column).toBeNull();
    }
    expect(record.messages).toEqual([]);
    expect(record.image_count).toBe(0);
  });

  it('maps an Unavailable event: no result, sections, messages or counts; day from the recorded time', () => {
    // Prepare
    const item = buildUnavailableItem({
      hints: { resultId: 'gone.1', transactionId: 'tx-9' },
      storedAt: '2026-08-11T23:59:59.999Z',
      retentionDays: 1,
    });
    const detail = unavailableDetail(item, { environment: 'staging', store });

    // Act
    const record = projectEvent(event(DETAIL_TYPES.resultUnavailable, detail))!;

    // Assess
    expect(record).toMatchObject({
      result_id: 'gone.1',
      transaction_id: 'tx-9',
      status: 'UNAVAILABLE',
      result: null,
      completed: null,
      stored_at: '2026-08-11 23:59:59.999',
      day: '2026-08-11',
      messages: null,
      image_count: null,
      identity_result: null,
    });
    expect(recordKey(record)).toBe('analytics/results/day=2026-08-11/gone.2E1.unavailable.json');
  });

  it('keys one object per result and status, and writes one line of JSON', () => {
    // Prepare
    const detail = storedDetail(storedItem({ result: 'APPROVED' }, { resultId: 'res.2026:0001' }), {
      environment: 'staging',
      store,
    });

    // Act
    const record = projectEvent(event(DETAIL_TYPES.resultStored, detail))!;

    // Assess
    expect(recordKey(record)).toBe('analytics/results/day=2026-08-10/res.2E2026.3A0001.stored.json');
    expect(recordLine(record).split('\n')).toEqual([JSON.stringify(record), '']);
  });

  it('ignores events that are not about a result', () => {
    // Act
    const record = projectEvent(event(DETAIL_TYPES.documentsUploaded, { transactionId: 't' }));

    // Assess
    expect(record).toBeUndefined();
  });

  it.each([
    [{ resultId: '../etc/passwd', storedAt: '2026-08-10T00:00:00Z' }, 'without a valid resultId'],
    [{ storedAt: '2026-08-10T00:00:00Z' }, 'without a valid resultId'],
    [{ resultId: 'r-1', storedAt: 'yesterday' }, 'without a valid time'],
  ])('refuses %j (%s)', (detail, message) => {
    // Act
    const project = () => projectEvent(event(DETAIL_TYPES.resultStored, detail));

    // Assess
    expect(project).toThrow(ProjectionError);
    expect(project).toThrow(message);
  });

  it('reads only the listed fields: extra detail fields never reach a record', () => {
    // Prepare
    const detail = {
      resultId: 'r-2',
      storedAt: '2026-08-10T00:00:00Z',
      status: 'STORED',
      sections: { identity: 'APPROVED', surname: 'Testpersoon' },
      messages: ['OK'],
      fullname: 'Jan Testpersoon',
      dateOfBirth: '1987-03-14',
    };

    // Act
    const line = recordLine(projectEvent(event(DETAIL_TYPES.resultStored, detail))!);

    // Assess
    expect(line).not.toMatch(/Testpersoon|1987-03-14/);
  });

  it('formats timestamps as UTC the way both engines read TIMESTAMP', () => {
    // Assess
    expect(sqlTimestamp('2026-08-10T14:00:00+02:00')).toBe('2026-08-10 12:00:00.000');
    expect(sqlTimestamp('not a time')).toBeNull();
  });
});

describe('VerificationResultStored details with summary facts', () => {
  it('validate against the schema', () => {
    // Prepare
    const validate = eventValidators()[DETAIL_TYPES.resultStored];
    const item = storedItem({
      result: 'APPROVED',
      images: [{}],
      identity: { result: 'APPROVED', data: { documentType: 'PASSPORT', issuingStateOrOrganization: 'D<<' } },
      rightToWork: { result: 'APPROVED', rtwType: 'RTW_DE' },
      additionalDocuments: [{ result: 'APPROVED' }],
    });

    // Act
    const detail = storedDetail(item, {
      environment: 'production',
      store,
      eventCustomerReference: 'include',
    });

    // Assess
    expect(validate(detail), JSON.stringify(validate.errors)).toBe(true);
    expect(detail).toMatchObject({
      rtwType: 'RTW_DE',
      imageCount: 1,
      fileCount: 0,
      documentType: 'PASSPORT',
      issuingState: 'D<<',
      additionalDocumentResults: ['APPROVED'],
    });
  });
});

describe('projection keys', () => {
  it.each(['6f1c2a9e-8d1b-4c51-9a57-0d3e2f4b7c10', 'res.2026:0001', 'R~42', 'acct@eu+7=', 'ü_x'])(
    'escape %s exactly as the data bucket keys do',
    (resultId) => {
      // Assess
      expect(projectionKeyPart(resultId)).toBe(resultIdKeyPart(resultId));
    },
  );
});
