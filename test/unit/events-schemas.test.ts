import { readFileSync } from 'node:fs';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { PRODUCTS, RESULT_VALUES } from '../../shared/api/enums';
import { RESULT_ID_PATTERN } from '../../shared/api/result-id';
import { RESULT_SECTIONS } from '../../shared/api/sections';
import { EventPublishError } from '../../shared/errors';
import {
  CUSTOMER_REFERENCE,
  ISSUING_STATE,
  REASON_KEY,
  storedDetail,
  UPPER_CODE,
  USER_ID,
  unavailableDetail,
} from '../../shared/events/details';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { buildStoredItem, buildUnavailableItem } from '../../shared/store/item';
import { eventValidators } from '../support/pipeline-fakes';

const ebMock = mockClient(EventBridgeClient);

const store = { table: 'results', bucket: 'data' };

describe('event details and schemas', () => {
  beforeEach(() => ebMock.reset());

  it('VerificationResultStored details built from items validate against the schema', () => {
    // Prepare
    const validate = eventValidators()[DETAIL_TYPES.resultStored];
    const item = buildStoredItem({
      hints: { resultId: 'r-1', source: 'poll', product: 'RTW_PREMIUM', completed: '2026-08-10T12:00:00Z' },
      document: {
        transactionId: 'tx',
        result: 'APPROVED',
        identity: { result: 'APPROVED' },
        faceVerify: { result: 'APPROVED' },
      },
      stored: { resultKey: 'results/r-1/result.json', objects: [], documentBytes: 100 },
      bucket: 'data',
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 30,
    });

    // Act
    const detail = storedDetail(item, { environment: 'production', store });

    // Assess
    expect(validate(detail), JSON.stringify(validate.errors)).toBe(true);
    expect(detail.sections).toEqual({ identity: 'APPROVED', faceVerify: 'APPROVED' });
  });

  it('VerificationResultStored details stay valid when the result carries over-long identifiers', () => {
    // Prepare
    const validate = eventValidators()[DETAIL_TYPES.resultStored];
    const item = buildStoredItem({
      hints: { resultId: 'r-3', source: 'webhook', product: `IDV_${'X'.repeat(100)}` },
      document: { result: 'APPROVED', customerReference: 'c'.repeat(300), userId: 'u'.repeat(257) },
      stored: { resultKey: 'results/r-3/result.json', objects: [], documentBytes: 100 },
      bucket: 'data',
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 30,
    });

    // Act
    const detail = storedDetail(item, { environment: 'production', store });

    // Assess
    expect(validate(detail), JSON.stringify(validate.errors)).toBe(true);
  });

  it('VerificationResultUnavailable details validate against the schema', () => {
    // Prepare
    const validate = eventValidators()[DETAIL_TYPES.resultUnavailable];
    const item = buildUnavailableItem({
      hints: { resultId: 'r-2' },
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 1,
    });

    // Act
    const detail = unavailableDetail(item, { environment: 'staging', store });

    // Assess
    expect(validate(detail), JSON.stringify(validate.errors)).toBe(true);
  });

  it('the schemas state the rules the details are built with', () => {
    // Prepare
    const properties = (name: string): unknown =>
      JSON.parse(
        readFileSync(new URL(`../../shared/events/schemas/${name}.schema.json`, import.meta.url), 'utf8'),
      ).properties;
    const at = (node: unknown, path: string): unknown =>
      path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown>)?.[key], node);
    const stored = properties(DETAIL_TYPES.resultStored);
    const unavailable = properties(DETAIL_TYPES.resultUnavailable);
    const uploaded = properties(DETAIL_TYPES.documentsUploaded);

    // Act
    const rules = {
      result: at(stored, 'result.enum'),
      sectionNames: at(stored, 'sections.propertyNames.enum'),
      sectionValues: at(stored, 'sections.additionalProperties.enum'),
      additional: at(stored, 'additionalDocumentResults.items.enum'),
      messages: at(stored, 'messages.items.pattern'),
      rtwType: at(stored, 'rtwType.pattern'),
      documentType: at(stored, 'documentType.pattern'),
      issuingState: at(stored, 'issuingState.pattern'),
      ids: [stored, unavailable].map((p) =>
        ['resultId', 'transactionId', 'userId', 'customerReference']
          .map((key) => at(p, `${key}.pattern`))
          .concat([at(p, 'product.enum')]),
      ),
      uploadIds: [at(uploaded, 'transactionId.pattern'), at(uploaded, 'secureId.pattern')],
    };

    // Assess
    const ids = [
      RESULT_ID_PATTERN.source,
      RESULT_ID_PATTERN.source,
      USER_ID.source,
      CUSTOMER_REFERENCE.source,
      [...PRODUCTS, 'UNKNOWN'],
    ];
    expect(rules).toEqual({
      result: [...RESULT_VALUES],
      sectionNames: [...RESULT_SECTIONS],
      sectionValues: [...RESULT_VALUES],
      additional: [...RESULT_VALUES],
      messages: REASON_KEY.source,
      rtwType: UPPER_CODE.source,
      documentType: UPPER_CODE.source,
      issuingState: ISSUING_STATE.source,
      ids: [ids, ids],
      uploadIds: [RESULT_ID_PATTERN.source, RESULT_ID_PATTERN.source],
    });
  });

  it('the schemas refuse personal data fields', () => {
    // Prepare
    const validate = eventValidators()[DETAIL_TYPES.documentsUploaded];

    // Act
    const ok = validate({
      transactionId: 't',
      uploadedAt: '2026-08-11T00:00:00.000Z',
      environment: 'staging',
    });
    const withName = validate({
      transactionId: 't',
      uploadedAt: '2026-08-11T00:00:00Z',
      environment: 'staging',
      fullname: 'x',
    });

    // Assess
    expect(ok).toBe(true);
    expect(withName).toBe(false);
  });

  it('publishes on the bus with the source and detail type, and fails on a rejected entry', async () => {
    // Prepare
    ebMock
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] })
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    const publisher = new EventBridgePublisher(new EventBridgeClient({ region: 'eu-west-1' }), 'bus');
    const detail = {
      transactionId: 't',
      uploadedAt: '2026-08-11T00:00:00.000Z',
      environment: 'staging' as const,
    };

    // Act
    await publisher.publishDocumentsUploaded(detail);
    const second = publisher.publishDocumentsUploaded(detail);

    // Assess
    await expect(second).rejects.toBeInstanceOf(EventPublishError);
    expect(ebMock.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]).toEqual({
      EventBusName: 'bus',
      Source: EVENT_SOURCE,
      DetailType: DETAIL_TYPES.documentsUploaded,
      Detail: JSON.stringify(detail),
    });
  });
});
