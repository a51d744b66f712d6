import { createHash } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_OPTIONS } from '../../shared/client/retry';
import { BATCH_RETRY_POLICY } from '../../shared/store/batch-retry';
import {
  buildStoredItem,
  buildUnavailableItem,
  dynamoItemSize,
  dynamoSize,
  INLINE_ITEM_BYTES,
  MAX_ITEM_BYTES,
} from '../../shared/store/item';
import { resultJsonKey } from '../../shared/store/keys';
import { Publications } from '../../shared/store/publication';
import { ResultStore } from '../../shared/store/result-store';
import { ResultContentError } from '../../shared/stream/errors';
import { storedItemOf } from '../support/result-items';

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

/** The publication records of the same table. */
function publications(): Publications {
  return new Publications(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), 'table');
}

/** A result body as the service streams it, in two chunks. */
async function* bodyOf(result: unknown): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(JSON.stringify(result));
  yield bytes.subarray(0, 7);
  yield bytes.subarray(7);
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
    const { document, stored } = await store().storeResult('res-1', bodyOf(result));

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
    expect((document.images as { data: unknown }[])[0]!.data).toEqual({
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
    ddbMock.on(GetCommand).resolves({});
    const item = buildUnavailableItem({
      hints: { resultId: 'r', transactionId: '' },
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 1,
    });

    // Act
    const first = await store().putUnavailableItem(item);
    const second = await store().putUnavailableItem(item);

    // Assess
    expect(first).toEqual({ written: false, current: undefined });
    expect(second).toEqual({ written: true });
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
    const item = storedItemOf({
      result: 'APPROVED',
      identity: { data: { note: 'x'.repeat(MAX_ITEM_BYTES) } },
    });

    // Assess
    expect(item.document).toBeUndefined();
    expect(item.documentInItem).toBe(false);
    expect(item.resultKey).toBe('results/r/result.json');
  });

  it('sizes the whole item as DynamoDB counts it, not the JSON length of the document', () => {
    // Prepare: lists of small numbers count 3 bytes per element in DynamoDB but 2 in JSON.
    const numeric = {
      result: 'APPROVED',
      images: Array.from({ length: 40 }, () => ({ metadata: { points: new Array(3_500).fill(7) } })),
    };
    // Many images: every reference is in the document and again in `objects`.
    const refs = Array.from({ length: 1_300 }, (_, i) => ({
      key: `results/r/images/${String(i + 1).padStart(2, '0')}-IDENTITY_CARD-FRONT.jpg`,
      contentType: 'image/jpeg',
      bytes: 1_234_567,
      sha256: 'ab'.repeat(32),
    }));
    const manyImages = { result: 'APPROVED', images: refs.map((ref) => ({ data: ref, metadata: {} })) };

    // Act
    const numericItem = storedItemOf(numeric);
    const manyImagesItem = storedItemOf(manyImages, refs);
    const small = storedItemOf({
      result: 'APPROVED',
      images: [{ data: refs[0], metadata: { points: [1, 2] } }],
    });

    // Assess
    expect(JSON.stringify(numeric).length).toBeLessThan(300 * 1024);
    expect(dynamoSize(numeric)).toBeGreaterThan(400 * 1024);
    expect(numericItem.documentInItem).toBe(false);
    expect(JSON.stringify(manyImages).length).toBeLessThan(300 * 1024);
    expect(dynamoSize(manyImages) + dynamoSize(refs)).toBeGreaterThan(400 * 1024);
    expect(manyImagesItem.documentInItem).toBe(false);
    // 1,300 references do not fit an inline item either: result.json has them, the item their number.
    expect(manyImagesItem.objects).toBeUndefined();
    expect(manyImagesItem.objectCount).toBe(1_300);
    expect(dynamoItemSize(manyImagesItem)).toBeLessThanOrEqual(INLINE_ITEM_BYTES);
    expect(small.documentInItem).toBe(true);
    expect(small.document).toBeDefined();
  });

  it('keeps the document (or else the object list) inline only while the item fits its inline budget', () => {
    // Prepare: a document just too large for an inline item, with a few object references.
    const refs = Array.from({ length: 3 }, (_, i) => ({
      key: `results/r/images/0${i + 1}-PASSPORT-FRONT.jpg`,
      contentType: 'image/jpeg',
      bytes: 1_000,
      sha256: 'cd'.repeat(32),
    }));
    const images = refs.map((ref) => ({ data: ref }));

    // Act
    const fits = storedItemOf({ result: 'APPROVED', images }, refs);
    const large = storedItemOf({ result: 'APPROVED', images, note: 'y'.repeat(INLINE_ITEM_BYTES) }, refs);

    // Assess
    // Inline, the document holds the references in place: the item does not list them twice.
    expect(fits).toMatchObject({ documentInItem: true, objectCount: 3 });
    expect(fits.objects).toBeUndefined();
    expect(dynamoItemSize(fits)).toBeLessThanOrEqual(INLINE_ITEM_BYTES);
    expect(large).toMatchObject({ documentInItem: false, objects: refs, objectCount: 3 });
    expect(large.document).toBeUndefined();
  });

  it('counts sizes the way DynamoDB documents them', () => {
    // Assess
    expect(dynamoSize('héllo')).toBe(6);
    expect(dynamoSize(12_345)).toBe(4);
    expect(dynamoSize(true)).toBe(1);
    expect(dynamoSize(null)).toBe(1);
    expect(dynamoSize([])).toBe(3);
    expect(dynamoSize({ ab: 'c' })).toBe(3 + 1 + 2 + 1);
    expect(dynamoItemSize({ resultId: 'r', skipped: undefined })).toBe(8 + 1);
  });

  it('keeps identifiers too long for an index key or an event schema out of the item', () => {
    // Act
    const item = buildStoredItem({
      hints: { resultId: 'r', customerReference: 'hint-ref', product: 'P'.repeat(65) },
      document: { result: 'APPROVED', customerReference: 'c'.repeat(3_000), transactionId: 't'.repeat(257) },
      stored: { resultKey: 'results/r/result.json', objects: [], documentBytes: 10 },
      bucket: 'bucket',
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 7,
    });

    // Assess: the long values stay in the stored document, the hint fills in where it is usable.
    expect(item.customerReference).toBe('hint-ref');
    expect(item).not.toHaveProperty('transactionId');
    expect(item).not.toHaveProperty('product');
    expect((item.document as { customerReference: string }).customerReference).toHaveLength(3_000);
  });

  it('marks the event published in the small publication record, never in the result item', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejectsOnce(conditionalFailure()).resolves({});

    // Act: a failed condition (already marked) is not an error.
    await publications().mark('r', 'STORED', '2026-08-11T00:00:00.000Z', 1_800_000_000);
    await publications().mark('r', 'STORED', '2026-08-11T00:00:00.000Z', 1_800_000_000);

    // Assess
    const calls = ddbMock.commandCalls(UpdateCommand);
    expect(calls).toHaveLength(2);
    const input = calls[0]!.args[0].input;
    expect(input.Key).toEqual({ resultId: 'r#publication' });
    expect(input.ConditionExpression).toContain('attribute_not_exists(#publishedAt)');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':status': 'STORED', ':ttl': 1_800_000_000 });
  });
});

describe('ResultStore.readState (one BatchGetItem)', () => {
  beforeEach(() => {
    ddbMock.reset();
    // The backoff between attempts is real time: keep it at its shortest.
    vi.spyOn(DEFAULT_RETRY_OPTIONS, 'random').mockReturnValue(0);
  });
  afterEach(() => vi.restoreAllMocks());

  it('asks again for the keys DynamoDB left unprocessed, and only for those', async () => {
    // Prepare: the first answer holds the item and leaves the publication and erasure records out.
    ddbMock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { table: [{ resultId: 'r', status: 'STORED' }] },
        UnprocessedKeys: {
          table: { Keys: [{ resultId: 'r#publication' }, { resultId: 'r#erasure' }], ConsistentRead: true },
        },
      })
      .resolvesOnce({
        Responses: {
          table: [{ resultId: 'r#publication', status: 'STORED', publishedAt: '2027-01-01T00:00:00Z' }],
        },
      });

    // Act
    const state = await store().readState('r');

    // Assess
    expect(state).toEqual({
      item: { resultId: 'r', status: 'STORED', eventPublishedAt: '2027-01-01T00:00:00Z' },
      erased: false,
    });
    const inputs = ddbMock.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems);
    expect(inputs).toEqual([
      {
        table: {
          Keys: [{ resultId: 'r' }, { resultId: 'r#publication' }, { resultId: 'r#erasure' }],
          ConsistentRead: true,
        },
      },
      { table: { Keys: [{ resultId: 'r#publication' }, { resultId: 'r#erasure' }], ConsistentRead: true } },
    ]);
  });

  it('reads no erasure record for a refetch', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({ Responses: { table: [] } });

    // Act
    const state = await store().readState('r', { erasure: false });

    // Assess
    expect(state).toEqual({ item: undefined, erased: false });
    const keys = ddbMock.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems?.['table']?.Keys;
    expect(keys).toEqual([{ resultId: 'r' }, { resultId: 'r#publication' }]);
  });

  it('fails, naming what was left, when keys stay unprocessed after every round of the policy', async () => {
    // Prepare: the backoff's jitter at 0, so the rounds do not wait.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    ddbMock.on(BatchGetCommand).resolves({
      Responses: { table: [] },
      UnprocessedKeys: { table: { Keys: [{ resultId: 'r#erasure' }], ConsistentRead: true } },
    });

    // Act / Assess: the record fails (and is delivered again); it never goes on as if nothing were erased.
    await expect(store().readState('r')).rejects.toThrow(
      `DynamoDB left 1 key(s) of table table unread after ${BATCH_RETRY_POLICY.rounds} rounds`,
    );
    expect(ddbMock.commandCalls(BatchGetCommand)).toHaveLength(BATCH_RETRY_POLICY.rounds);
  });
});

describe('ResultStore conditional puts', () => {
  beforeEach(() => ddbMock.reset());

  const item = buildUnavailableItem({
    hints: { resultId: 'r-1', source: 'poll' },
    storedAt: '2026-08-11T08:00:00.000Z',
    retentionDays: 30,
  });

  it.each(['putStoredItem', 'putUnavailableItem'] as const)(
    '%s lets a throttling error propagate (only a failed condition means "already there")',
    async (method) => {
      // Prepare
      ddbMock
        .on(PutCommand)
        .rejects(new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: {} }));

      // Act
      const put = store()[method](item);

      // Assess
      await expect(put).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
    },
  );

  it.each(['putStoredItem', 'putUnavailableItem'] as const)(
    '%s answers "not written" with the item DynamoDB returned on the failed condition, reading only its publication',
    async (method) => {
      // Prepare: the condition fails with the old item (ALL_OLD); its event was published
      const old = { ...item, status: 'STORED', result: 'APPROVED' };
      ddbMock
        .on(PutCommand)
        .rejects(
          new ConditionalCheckFailedException({ message: 'exists', $metadata: {}, Item: marshall(old) }),
        );
      ddbMock
        .on(GetCommand)
        .resolves({ Item: { status: 'STORED', publishedAt: '2026-08-11T08:01:00.000Z' } });

      // Act
      const put = await store()[method](item);

      // Assess
      expect(put).toEqual({
        written: false,
        current: { ...old, eventPublishedAt: '2026-08-11T08:01:00.000Z' },
      });
      expect(ddbMock.commandCalls(PutCommand)[0]!.args[0].input.ReturnValuesOnConditionCheckFailure).toBe(
        'ALL_OLD',
      );
      const reads = ddbMock.commandCalls(GetCommand).map((call) => call.args[0].input.Key);
      expect(reads).toEqual([{ resultId: 'r-1#publication' }]);
    },
  );

  it('answers a refused publication claim with the record DynamoDB returned, with no second read', async () => {
    // Prepare
    const record = { status: 'STORED', publishedAt: '2026-08-11T08:01:00.000Z' };
    ddbMock
      .on(UpdateCommand)
      .rejects(
        new ConditionalCheckFailedException({ message: 'held', $metadata: {}, Item: marshall(record) }),
      );

    // Act
    const result = await publications().claim('r-1', 'STORED', { token: 't', expiresAt: 2 }, 1);

    // Assess
    expect(result).toEqual({ claimed: false, record });
    expect(ddbMock.commandCalls(UpdateCommand)[0]!.args[0].input.ReturnValuesOnConditionCheckFailure).toBe(
      'ALL_OLD',
    );
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it.each(['putStoredItem', 'putUnavailableItem'] as const)(
    '%s reads the item again when the failure came without it',
    async (method) => {
      // Prepare
      ddbMock
        .on(PutCommand)
        .rejects(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));
      ddbMock.on(GetCommand).resolves({});

      // Act
      const put = await store()[method](item);

      // Assess
      expect(put).toEqual({ written: false, current: undefined });
      expect(ddbMock.commandCalls(GetCommand)).toHaveLength(2);
    },
  );
});

describe('ResultStore with results another implementation of the service may send', () => {
  beforeEach(() => s3Mock.reset());

  const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  const PNG = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 37) & 0xff)),
  ]);
  const JFIF = Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xfb, 0xff, 0xfe, 0xd9,
  ]);

  /** A result body as the service streams it, in uneven chunks of 97 bytes. */
  async function* bodyInChunks(result: unknown): AsyncIterable<Uint8Array> {
    const bytes = Buffer.from(JSON.stringify(result));
    for (let at = 0; at < bytes.length; at += 97) yield bytes.subarray(at, at + 97);
  }

  it('stores every base64 dialect exactly, keeps entries without data and the unknown parts', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).resolves({});
    const result: Record<string, unknown> = {
      result: 'PENDING_REVIEW',
      images: [
        {
          data: `data:image/jpeg;base64,${JFIF.toString('base64')}`,
          documentType: 'PASSPORT',
          pageType: 'FRONT',
        },
        { data: PNG.toString('base64').replace(/(.{76})/g, '$1\r\n'), documentType: 'NEW_TYPE' },
        { documentType: 'IDENTITY_CARD', pageType: 'BACK' },
        { data: null, documentType: 'IDENTITY_CARD' },
        'not an object',
        { data: JFIF.toString('base64'), documentType: 'LIVE' },
      ],
      files: [{ data: PNG.toString('base64url') }],
      riskAssessment: { result: 'LOW' },
    };

    // Act
    const { stored } = await store().storeResult('res.2026:0001', bodyInChunks(result));
    const bad = { ...result, images: [{ data: 'this is %% not base64', documentType: 'LIVE' }] };
    const refused = await store()
      .storeResult('res-bad', bodyInChunks(bad))
      .catch((error: unknown) => error);

    // Assess
    const puts = s3Mock.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    const bodies = new Map(puts.map((p) => [p.Key!, p.Body as Buffer]));
    expect([...bodies.keys()]).toEqual([
      'results/res.2E2026.3A0001/images/01-PASSPORT-FRONT.jpg',
      'results/res.2E2026.3A0001/images/02-UNKNOWN-UNKNOWN.png',
      'results/res.2E2026.3A0001/images/06-LIVE-UNKNOWN.jpg',
      'results/res.2E2026.3A0001/files/01-UNKNOWN.png',
      'results/res.2E2026.3A0001/result.json',
    ]);
    expect(sha(bodies.get('results/res.2E2026.3A0001/images/01-PASSPORT-FRONT.jpg')!)).toBe(sha(JFIF));
    expect(sha(bodies.get('results/res.2E2026.3A0001/images/02-UNKNOWN-UNKNOWN.png')!)).toBe(sha(PNG));
    expect(sha(bodies.get('results/res.2E2026.3A0001/files/01-UNKNOWN.png')!)).toBe(sha(PNG));
    expect(stored.objects).toHaveLength(4);
    // Not base64 in any form: one rule everywhere — the result is refused with a reason code (the message
    // then goes to the DLQ), its value is never stored as something else and no result.json is written.
    expect(refused).toBeInstanceOf(ResultContentError);
    expect(refused).toMatchObject({ reason: 'DATA_NOT_BASE64', transient: false });
    expect(String((refused as Error).message)).not.toContain('this is');
    expect([...bodies.keys()].some((key) => key.includes('res-bad'))).toBe(false);
    const document = JSON.parse(bodies.get('results/res.2E2026.3A0001/result.json')!.toString()) as {
      images: unknown[];
      riskAssessment: unknown;
      result: string;
    };
    expect(document.images.slice(2, 5)).toEqual([
      { documentType: 'IDENTITY_CARD', pageType: 'BACK' },
      { data: null, documentType: 'IDENTITY_CARD' },
      'not an object',
    ]);
    expect(document.riskAssessment).toEqual({ result: 'LOW' });
    expect(document.result).toBe('PENDING_REVIEW');
  });

  it('falls back to storedAt for a completed time it cannot read', () => {
    // Act
    const item = buildStoredItem({
      hints: { resultId: 'r', completed: '10/08/2026 12:00' },
      document: {},
      stored: { resultKey: resultJsonKey('r'), objects: [], documentBytes: 2 },
      bucket: 'b',
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 1,
    });

    // Assess
    expect(item).toMatchObject({ completed: '2026-08-11T00:00:00.000Z', completedKnown: false });
  });
});
