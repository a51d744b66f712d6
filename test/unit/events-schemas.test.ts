import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventPublishError } from '../../shared/errors';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { storedDetail, unavailableDetail } from '../../shared/pipeline/fetch-result';
import { buildStoredItem, buildUnavailableItem } from '../../shared/store/result-store';
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
