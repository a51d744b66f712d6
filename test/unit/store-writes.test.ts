/**
 * Every write the pipeline makes to AWS is an SDK command of the client it was given: each test stubs the
 * client's `send` (aws-sdk-client-mock) and checks the command and the parameters that make it right —
 * bucket and key, checksum, table and key, the condition that keeps it idempotent, the event's bus.
 * Nothing here may reach the network: an unstubbed command fails the test.
 */
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { DynamoEnqueueMarkers } from '../../shared/pipeline/enqueue-markers';
import { ErasureRecords } from '../../shared/store/erasure-record';
import { buildUnavailableItem } from '../../shared/store/item';
import { PollRecords } from '../../shared/store/poll-records';
import { Publications } from '../../shared/store/publication';
import { ResultStore } from '../../shared/store/result-store';
import { PART_SIZE, S3BlobTarget } from '../../shared/store/s3-blobs';

const s3Mock = mockClient(S3Client);
const ddbMock = mockClient(DynamoDBDocumentClient);
const eventsMock = mockClient(EventBridgeClient);

const JPEG_TYPE = { contentType: 'image/jpeg', extension: 'jpg' } as const;
const NOT_ABORTED = new AbortController().signal;

const s3 = () => new S3Client({ region: 'eu-west-1' });
const dynamo = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const store = () => new ResultStore({ s3: s3(), dynamo: dynamo(), bucket: 'bucket', table: 'table' });
const publications = () => new Publications(dynamo(), 'table');

function conditionalFailure() {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
}

beforeEach(() => {
  s3Mock.reset();
  ddbMock.reset();
  eventsMock.reset();
});

describe('S3 writes', () => {
  it('puts a small blob with its SHA-256 as the checksum S3 checks and as metadata', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).resolves({});
    const body = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const digest = createHash('sha256').update(body).digest('hex');

    // Act
    await new S3BlobTarget(s3(), 'bucket').putSmall(
      'results/r/images/0.jpg',
      body,
      JPEG_TYPE,
      digest,
      NOT_ABORTED,
    );

    // Assess
    const [call] = s3Mock.commandCalls(PutObjectCommand);
    expect(call!.args[0].input).toMatchObject({
      Bucket: 'bucket',
      Key: 'results/r/images/0.jpg',
      ContentType: 'image/jpeg',
      Metadata: { sha256: digest },
      ChecksumSHA256: Buffer.from(digest, 'hex').toString('base64'),
    });
    expect(call!.args[0].input).not.toHaveProperty('ServerSideEncryption');
  });

  it('puts result.json with its SHA-256 in the metadata and the bucket default encryption', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).resolves({});

    // Act
    await store().storeResult(
      'res-1',
      (async function* () {
        yield Buffer.from('{"result":"APPROVED"}');
      })(),
    );

    // Assess
    const [call] = s3Mock.commandCalls(PutObjectCommand);
    const input = call!.args[0].input;
    expect(input).toMatchObject({
      Bucket: 'bucket',
      Key: 'results/res-1/result.json',
      ContentType: 'application/json',
    });
    const digest = createHash('sha256')
      .update(input.Body as Buffer)
      .digest('hex');
    expect(input.Metadata).toEqual({ sha256: digest });
    expect(input).not.toHaveProperty('ServerSideEncryption');
  });

  it('uploads a large blob in parts, completes it with every part, promotes it and deletes the staging key', async () => {
    // Prepare
    s3Mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'up-1' });
    s3Mock
      .on(UploadPartCommand)
      .callsFake((input: { PartNumber: number }) => ({ ETag: `"e${input.PartNumber}"` }));
    s3Mock.on(CompleteMultipartUploadCommand).resolves({});
    s3Mock.on(CopyObjectCommand).resolves({});
    s3Mock.on(DeleteObjectsCommand).resolves({});
    const target = new S3BlobTarget(s3(), 'bucket');

    // Act: one part and a bit.
    const upload = target.startLarge('staging/r/0', JPEG_TYPE, NOT_ABORTED);
    upload.write(Buffer.alloc(PART_SIZE + 10, 7));
    await upload.finish();
    await target.promote('staging/r/0', 'results/r/images/0.jpg', JPEG_TYPE, 'ab'.repeat(32), NOT_ABORTED);
    await target.discard(['staging/r/0']);

    // Assess
    expect(s3Mock.commandCalls(CreateMultipartUploadCommand)[0]!.args[0].input).toMatchObject({
      Bucket: 'bucket',
      Key: 'staging/r/0',
      ContentType: 'image/jpeg',
      ChecksumAlgorithm: 'CRC32',
    });
    const parts = s3Mock.commandCalls(UploadPartCommand).map((call) => call.args[0].input);
    expect(parts.map((p) => [p.Key, p.UploadId, p.PartNumber, (p.Body as Buffer).length])).toEqual([
      ['staging/r/0', 'up-1', 1, PART_SIZE],
      ['staging/r/0', 'up-1', 2, 10],
    ]);
    expect(s3Mock.commandCalls(CompleteMultipartUploadCommand)[0]!.args[0].input).toMatchObject({
      Key: 'staging/r/0',
      UploadId: 'up-1',
      MultipartUpload: {
        Parts: [
          { PartNumber: 1, ETag: '"e1"' },
          { PartNumber: 2, ETag: '"e2"' },
        ],
      },
    });
    expect(s3Mock.commandCalls(CopyObjectCommand)[0]!.args[0].input).toMatchObject({
      Bucket: 'bucket',
      Key: 'results/r/images/0.jpg',
      CopySource: 'bucket/staging/r/0',
      MetadataDirective: 'REPLACE',
      Metadata: { sha256: 'ab'.repeat(32) },
    });
    expect(s3Mock.commandCalls(DeleteObjectsCommand)[0]!.args[0].input).toMatchObject({
      Bucket: 'bucket',
      Delete: { Objects: [{ Key: 'staging/r/0' }] },
    });
  });
});

describe('DynamoDB writes of a result', () => {
  const item = buildUnavailableItem({
    hints: { resultId: 'res-1' },
    storedAt: '2026-08-11T00:00:00.000Z',
    retentionDays: 30,
  });

  it('puts an UNAVAILABLE item only where none is', async () => {
    // Prepare
    ddbMock.on(PutCommand).resolves({});

    // Act
    const put = await store().putUnavailableItem(item);

    // Assess
    expect(put).toEqual({ written: true });
    const input = ddbMock.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      TableName: 'table',
      Item: { resultId: 'res-1', status: 'UNAVAILABLE' },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'resultId' },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('claims the publication record with the token, its expiry and the TTL', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({});

    // Act
    const claim = await publications().claim(
      'res-1',
      'STORED',
      { token: 'msg-1', expiresAt: 2_000 },
      1_000,
      1_800_000_000,
    );

    // Assess
    expect(claim).toEqual({ claimed: true });
    const input = ddbMock.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      TableName: 'table',
      Key: { resultId: 'res-1#publication' },
      ExpressionAttributeValues: {
        ':status': 'STORED',
        ':token': 'msg-1',
        ':until': 2_000,
        ':now': 1_000,
        ':ttl': 1_800_000_000,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(input.UpdateExpression).toContain('#claim = :token');
    expect(input.ConditionExpression).toContain('#claimExpiresAt < :now');
  });

  it("releases only this delivery's claim, and takes a failed condition as done", async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(conditionalFailure());

    // Act
    await publications().release('res-1', 'msg-1');

    // Assess
    const input = ddbMock.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      TableName: 'table',
      Key: { resultId: 'res-1#publication' },
      UpdateExpression: 'REMOVE #claim, #claimExpiresAt, #claimVersion',
      ConditionExpression: '#claim = :token',
      ExpressionAttributeValues: { ':token': 'msg-1' },
    });
  });

  it('marks the publication with its time and drops the claim', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({});

    // Act
    await publications().mark('res-1', 'UNAVAILABLE', '2026-08-11T00:00:01.000Z');

    // Assess
    const input = ddbMock.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      TableName: 'table',
      Key: { resultId: 'res-1#publication' },
      ExpressionAttributeValues: { ':status': 'UNAVAILABLE', ':at': '2026-08-11T00:00:01.000Z' },
    });
    expect(input.UpdateExpression).toContain('REMOVE #claim, #claimExpiresAt');
  });

  it('writes the erasure record under its own key', async () => {
    // Prepare
    ddbMock.on(PutCommand).resolves({});
    const record = {
      resultId: 'res-1#erasure',
      erasedResultId: 'res-1',
      state: 'ERASING' as const,
      requestedAt: '2026-08-11T00:00:00.000Z',
      principal: 'operator',
      selectedBy: 'result-id',
      expiresAt: 1_900_000_000,
    };

    // Act
    await new ErasureRecords(dynamo(), 'table').put(record);

    // Assess
    expect(ddbMock.commandCalls(PutCommand)[0]!.args[0].input).toEqual({ TableName: 'table', Item: record });
  });

  it('keeps a polling record as one map attribute under its own key, with a TTL', async () => {
    // Prepare
    ddbMock.on(PutCommand).resolves({});

    // Act
    await new PollRecords(dynamo(), 'table', 30, () => 1_000_000).keep('res-1', {
      product: 'BASIC',
      transactionId: 't-1',
    });

    // Assess
    expect(ddbMock.commandCalls(PutCommand)[0]!.args[0].input).toEqual({
      TableName: 'table',
      Item: {
        resultId: 'res-1#poll',
        pollRecord: { product: 'BASIC', transactionId: 't-1' },
        expiresAt: 1_000 + 30 * 86_400,
      },
    });
  });
});

describe('enqueue markers', () => {
  const markers = () =>
    new DynamoEnqueueMarkers({ client: dynamo(), tableName: 'markers', windowSeconds: 60 });

  it('claims a marker with a put conditioned on no marker younger than the window', async () => {
    // Prepare
    ddbMock.on(PutCommand).resolves({});
    const now = new Date(1_000_000);

    // Act
    const claimed = await markers().claim(['res-1'], now);

    // Assess
    expect(claimed).toEqual(new Set(['res-1']));
    expect(ddbMock.commandCalls(PutCommand)[0]!.args[0].input).toEqual({
      TableName: 'markers',
      Item: { resultId: 'res-1', enqueuedAt: 1_000_000, expiresAt: 1_120 },
      ConditionExpression: 'attribute_not_exists(resultId) OR enqueuedAt <= :cutoff',
      ExpressionAttributeValues: { ':cutoff': 940_000 },
    });
  });

  it('releases only its own marker', async () => {
    // Prepare
    ddbMock.on(PutCommand).resolves({});

    // Act
    await markers().release(['res-1'], new Date(1_000_000));

    // Assess
    expect(ddbMock.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      TableName: 'markers',
      Item: { resultId: 'res-1', enqueuedAt: 0 },
      ConditionExpression: 'enqueuedAt = :mine',
      ExpressionAttributeValues: { ':mine': 1_000_000 },
    });
  });
});

describe('events', () => {
  it('publishes one PutEvents entry on the bus, and fails on a rejected entry', async () => {
    // Prepare
    eventsMock
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] })
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    const publisher = new EventBridgePublisher(new EventBridgeClient({ region: 'eu-west-1' }), 'bus');
    const detail = {
      transactionId: 't-1',
      uploadedAt: '2026-08-11T00:00:00.000Z',
      environment: 'staging' as const,
    };

    // Act
    await publisher.publishDocumentsUploaded(detail);
    const second = publisher.publishDocumentsUploaded(detail);

    // Assess
    await expect(second).rejects.toThrow('InternalFailure');
    const [entry] = eventsMock.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries!;
    expect(entry).toEqual({
      EventBusName: 'bus',
      Source: 'idv.pipeline',
      DetailType: 'VerificationDocumentsUploaded',
      Detail: JSON.stringify(detail),
    });
  });
});
