import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  buildStoredItem,
  buildUnavailableItem,
  MAX_DOCUMENT_BYTES_IN_ITEM,
  ResultStore,
} from '../../shared/store/result-store';

const s3Mock = mockClient(S3Client);
const ddbMock = mockClient(DynamoDBDocumentClient);

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
const PDF = Buffer.from('%PDF-1.4 test');

function store(): ResultStore {
  return new ResultStore({
    s3: new S3Client({ region: 'eu-west-1' }),
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
    bucket: 'bucket',
    table: 'table',
  });
}

function conditionalFailure() {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
}

describe('ResultStore', () => {
  beforeEach(() => {
    s3Mock.reset();
    ddbMock.reset();
  });

  it('decodes images and files into S3 objects with sniffed type, SHA-256 and deterministic keys', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).resolves({});
    const result: Record<string, unknown> = {
      images: [
        { data: JPEG.toString('base64'), documentType: 'PASSPORT', pageType: 'FRONT' },
        { data: JPEG.toString('base64'), documentType: 'SOMETHING_NEW', pageType: '../x' },
      ],
      files: [{ data: PDF.toString('base64'), documentType: 'TRANSACTION_REPORT' }],
    };

    // Act
    const stored = await store().writeObjects('res-1', result);

    // Assess
    const puts = s3Mock.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    expect(puts.map((p) => p.Key)).toEqual([
      'results/res-1/images/01-PASSPORT-FRONT.jpg',
      'results/res-1/images/02-UNKNOWN-UNKNOWN.jpg',
      'results/res-1/files/01-TRANSACTION_REPORT.pdf',
      'results/res-1/result.json',
    ]);
    const sha = createHash('sha256').update(JPEG).digest('hex');
    expect(puts[0]).toMatchObject({
      Bucket: 'bucket',
      ContentType: 'image/jpeg',
      Metadata: { sha256: sha },
    });
    // The bucket's default encryption (customer-managed KMS key) applies only when the request names none.
    expect(puts[0]!.ServerSideEncryption).toBeUndefined();
    expect(puts[0]!.SSEKMSKeyId).toBeUndefined();
    expect(puts[2]).toMatchObject({ ContentType: 'application/pdf' });
    expect((result.images as { data: unknown }[])[0]!.data).toEqual({
      key: 'results/res-1/images/01-PASSPORT-FRONT.jpg',
      contentType: 'image/jpeg',
      bytes: JPEG.length,
      sha256: sha,
    });
    const json = JSON.parse(String(puts[3]!.Body)) as Record<string, unknown>;
    expect(JSON.stringify(json)).not.toContain(JPEG.toString('base64'));
    expect(stored.objects).toHaveLength(3);
    expect(stored.resultKey).toBe('results/res-1/result.json');
  });

  it('writes the item with a condition and treats a failed condition as already stored', async () => {
    // Prepare
    ddbMock.on(PutCommand).rejectsOnce(conditionalFailure()).resolves({});
    const item = buildUnavailableItem({
      hints: { resultId: 'r', transactionId: '' },
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 1,
    });

    // Act
    const first = await store().putUnavailableItem(item);
    const second = await store().putUnavailableItem(item);

    // Assess
    expect(first).toBe(false);
    expect(second).toBe(true);
    const input = ddbMock.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(#pk)');
    // An empty string is not a valid index key, so it is left out.
    expect(input.Item).not.toHaveProperty('transactionId');
  });

  it('lets a STORED item replace only a missing or UNAVAILABLE item', async () => {
    // Prepare
    ddbMock.on(PutCommand).resolves({});
    const item = buildStoredItem({
      hints: { resultId: 'r', source: 'poll' },
      document: { result: 'APPROVED' },
      stored: { resultKey: 'results/r/result.json', objects: [], documentBytes: 10 },
      bucket: 'bucket',
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 7,
    });

    // Act
    await store().putStoredItem(item);

    // Assess
    const input = ddbMock.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(#pk) OR #status = :unavailable');
    expect(input.Item).toMatchObject({ completed: '2026-08-11T00:00:00.000Z', completedKnown: false });
  });

  it('keeps only the S3 reference when the stripped result is too large for an item', () => {
    // Act
    const item = buildStoredItem({
      hints: { resultId: 'r' },
      document: { result: 'APPROVED' },
      stored: {
        resultKey: 'results/r/result.json',
        objects: [],
        documentBytes: MAX_DOCUMENT_BYTES_IN_ITEM + 1,
      },
      bucket: 'bucket',
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 7,
    });

    // Assess
    expect(item.document).toBeUndefined();
    expect(item.documentInItem).toBe(false);
    expect(item.resultKey).toBe('results/r/result.json');
  });

  it('marks the event published once, conditionally on status', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejectsOnce(conditionalFailure()).resolves({});

    // Act
    await store().markPublished('r', 'STORED', '2026-08-11T00:00:00.000Z');
    await store().markPublished('r', 'STORED', '2026-08-11T00:00:00.000Z');

    // Assess
    const input = ddbMock.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toContain('attribute_not_exists(eventPublishedAt)');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':status': 'STORED' });
  });
});
