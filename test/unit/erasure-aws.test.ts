import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  AbortMultipartUploadCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { findProjectionObjects, icebergProjectionRows } from '../../shared/analytics/erase';
import { type ErasureDeps, eraseResult, planErasure, selectResults } from '../../shared/erasure/erase-result';
import { ObjectDeletionError, purgePrefix } from '../../shared/erasure/s3-purge';
import { publishResultErased } from '../../shared/events/erased-event';
import { DETAIL_TYPES } from '../../shared/events/names';
import { awsErasureDeps } from '../support/erasure-deps';
import { eventValidators } from '../support/pipeline-fakes';

const s3Mock = mockClient(S3Client);
const ddbMock = mockClient(DynamoDBDocumentClient);
const ebMock = mockClient(EventBridgeClient);

const BUCKET = 'idvpipeline-production-data';
const TABLE = 'IdvPipeline-production-Results';
const MARKERS = 'IdvPipeline-production-PollMarkers';

function deps(published: unknown[] = []): ErasureDeps {
  const events = new EventBridgeClient({ region: 'eu-west-1' });
  return awsErasureDeps(
    {
      dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
      s3: new S3Client({ region: 'eu-west-1' }),
      tableName: TABLE,
      bucketName: BUCKET,
      markersTableName: MARKERS,
    },
    {
      find: async () => ['analytics/results/day=2026-08-10/res-1.stored.json'],
      remove: async (_resultId, rows) => rows.length,
    },
    {
      publish: async (detail) => {
        published.push(detail);
        await publishResultErased(events, 'bus', detail);
      },
    },
    { environment: 'production', now: () => new Date('2026-09-01T10:00:00.000Z') },
  );
}

describe('erasure against AWS (SDK calls)', () => {
  beforeEach(() => {
    s3Mock.reset();
    ddbMock.reset();
    ebMock.reset();
    ebMock.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e1' }] });
    s3Mock.on(ListMultipartUploadsCommand).resolves({ Uploads: [] });
  });

  it('deletes every version and delete marker by VersionId, across pages, until a listing is empty', async () => {
    // Prepare: two pages of versions, then (after the deletion) nothing.
    s3Mock
      .on(ListObjectVersionsCommand, { Prefix: 'results/res-1/' })
      .resolvesOnce({
        IsTruncated: true,
        NextKeyMarker: 'results/res-1/images/01-PASSPORT-FRONT.jpg',
        NextVersionIdMarker: 'v2',
        Versions: [
          { Key: 'results/res-1/images/01-PASSPORT-FRONT.jpg', VersionId: 'v1', IsLatest: false },
          { Key: 'results/res-1/images/01-PASSPORT-FRONT.jpg', VersionId: 'v2', IsLatest: true },
        ],
      })
      .resolvesOnce({
        Versions: [{ Key: 'results/res-1/result.json', VersionId: 'v3' }],
        DeleteMarkers: [{ Key: 'results/res-1/files/01-REPORT.pdf', VersionId: 'm1' }],
      })
      .resolves({});
    s3Mock.on(DeleteObjectsCommand).resolves({});

    // Act
    const counts = await purgePrefix(new S3Client({}), BUCKET, 'results/res-1/', 'aws');

    // Assess
    expect(counts).toEqual({ versions: 3, deleteMarkers: 1, keys: 3, uploads: 0 });
    const deleted = s3Mock
      .commandCalls(DeleteObjectsCommand)
      .flatMap((c) => c.args[0].input.Delete!.Objects!);
    expect(deleted).toEqual([
      { Key: 'results/res-1/images/01-PASSPORT-FRONT.jpg', VersionId: 'v1' },
      { Key: 'results/res-1/images/01-PASSPORT-FRONT.jpg', VersionId: 'v2' },
      { Key: 'results/res-1/result.json', VersionId: 'v3' },
      { Key: 'results/res-1/files/01-REPORT.pdf', VersionId: 'm1' },
    ]);
    expect(s3Mock.commandCalls(ListObjectVersionsCommand)[1]!.args[0].input).toMatchObject({
      KeyMarker: 'results/res-1/images/01-PASSPORT-FRONT.jpg',
      VersionIdMarker: 'v2',
    });
  });

  it('aborts multipart uploads in progress under the staging prefix', async () => {
    // Prepare
    s3Mock.on(ListObjectVersionsCommand).resolves({});
    s3Mock
      .on(ListMultipartUploadsCommand)
      .resolvesOnce({ Uploads: [{ Key: 'staging/res-1/images-01', UploadId: 'u1' }] })
      .resolves({});

    // Act
    const counts = await purgePrefix(new S3Client({}), BUCKET, 'staging/res-1/', 'aws');

    // Assess
    expect(counts.uploads).toBe(1);
    expect(s3Mock.commandCalls(AbortMultipartUploadCommand)[0]!.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'staging/res-1/images-01',
      UploadId: 'u1',
    });
  });

  it('fails naming the codes when S3 refuses a version (never reported as erased)', async () => {
    // Prepare
    s3Mock
      .on(ListObjectVersionsCommand)
      .resolves({ Versions: [{ Key: 'results/res-1/result.json', VersionId: 'v1' }] });
    s3Mock
      .on(DeleteObjectsCommand)
      .resolves({ Errors: [{ Key: 'results/res-1/result.json', Code: 'AccessDenied' }] });

    // Act / Assess
    await expect(purgePrefix(new S3Client({}), BUCKET, 'results/res-1/', 'aws')).rejects.toThrow(
      ObjectDeletionError,
    );
  });

  it('erases one result: fence first, then objects, items, record with counts, and a valid event', async () => {
    // Prepare
    const order: string[] = [];
    ddbMock.on(GetCommand).callsFake((input) => {
      const key = input.Key.resultId as string;
      if (key === 'res-1')
        return { Item: { resultId: 'res-1', status: 'STORED', transactionId: 'tx-1', bucket: BUCKET } };
      return {};
    });
    ddbMock.on(PutCommand).callsFake((input) => {
      order.push(`put ${input.Item.state}`);
      return {};
    });
    ddbMock.on(DeleteCommand).callsFake((input) => {
      order.push(`delete ${input.TableName}/${input.Key.resultId}`);
      return { Attributes: { resultId: input.Key.resultId } };
    });
    ddbMock.on(UpdateCommand).callsFake((input) => {
      order.push(`fence ${input.Key.resultId}`);
      return { Attributes: { resultId: input.Key.resultId, status: 'STORED' } };
    });
    s3Mock
      .on(ListObjectVersionsCommand, { Prefix: 'results/res-1/' })
      .resolvesOnce({
        Versions: [
          { Key: 'results/res-1/result.json', VersionId: 'v1' },
          { Key: 'results/res-1/result.json', VersionId: 'v0' },
        ],
        DeleteMarkers: [{ Key: 'results/res-1/images/01-PASSPORT-FRONT.jpg', VersionId: 'm1' }],
      })
      .resolves({});
    s3Mock.on(ListObjectVersionsCommand, { Prefix: 'staging/res-1/' }).resolves({});
    s3Mock.on(DeleteObjectsCommand).callsFake(() => {
      order.push('delete objects');
      return {};
    });
    const published: unknown[] = [];

    // Act
    const record = await eraseResult(deps(published), 'res-1', {
      principal: 'arn:aws:sts::123456789012:assumed-role/IdvEraser/ops',
      selectedBy: 'transaction-id',
    });

    // Assess
    expect(order[0]).toBe('put ERASING');
    // The publication record is fenced (replaced, not deleted) before anything is deleted.
    expect(order[1]).toBe('fence res-1#publication');
    expect(order.at(-1)).toBe('put ERASED');
    expect(order).toContain(`delete ${TABLE}/res-1`);
    expect(order).not.toContain(`delete ${TABLE}/res-1#publication`);
    expect(order).toContain(`delete ${TABLE}/res-1#poll`);
    expect(order).toContain(`delete ${MARKERS}/res-1`);
    expect(record).toMatchObject({
      resultId: 'res-1#erasure',
      erasedResultId: 'res-1',
      state: 'ERASED',
      erasedAt: '2026-09-01T10:00:00.000Z',
      selectedBy: 'transaction-id',
      counts: {
        objectVersions: 2,
        deleteMarkers: 1,
        objects: 2,
        // item, publication record (fenced), kept polling record, enqueue marker
        items: 4,
        analyticsRows: 1,
        uploadsAborted: 0,
      },
      expiresAt: Math.floor(Date.parse('2026-09-01T10:00:00.000Z') / 1000) + 1095 * 86_400,
    });
    const put = ebMock.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
    expect(put.DetailType).toBe(DETAIL_TYPES.resultErased);
    const detail = JSON.parse(put.Detail!);
    const validate = eventValidators()[DETAIL_TYPES.resultErased];
    expect(validate(detail), JSON.stringify(validate.errors)).toBe(true);
    expect(detail).toEqual({
      resultId: 'res-1',
      transactionId: 'tx-1',
      status: 'ERASED',
      erasedAt: '2026-09-01T10:00:00.000Z',
      environment: 'production',
      storage: { table: TABLE },
      removed: { objectVersions: 2, deleteMarkers: 1, items: 4, analyticsRows: 1 },
      // The default bounds: PITR exact, the lazy stores 2 days more.
      receipt: {
        dataBucket: { erased: true },
        tables: { erased: true },
        analyticsRow: { erased: true },
        tableBackups: { expiresBy: '2026-09-08T10:00:00.000Z' },
        eventArchive: { expiresBy: '2026-09-10T10:00:00.000Z' },
        analyticsSnapshots: { expiresBy: '2026-09-10T10:00:00.000Z' },
        queryResults: { expiresBy: '2026-09-10T10:00:00.000Z' },
        deliveryErrors: { expiresBy: '2026-09-10T10:00:00.000Z' },
      },
    });
    expect(record.receipt).toEqual(detail.receipt);
  });

  it('a dry run reads only: keys, version counts and rows, nothing deleted or written', async () => {
    // Prepare
    ddbMock.on(GetCommand).resolves({});
    s3Mock.on(ListObjectVersionsCommand, { Prefix: 'results/res-1/' }).resolves({
      Versions: [{ Key: 'results/res-1/result.json', VersionId: 'v1' }],
    });
    s3Mock.on(ListObjectVersionsCommand, { Prefix: 'staging/res-1/' }).resolves({});

    // Act
    const plan = await planErasure(deps(), 'res-1');

    // Assess
    expect(plan.objects).toEqual({
      keys: ['results/res-1/result.json'],
      versions: 1,
      deleteMarkers: 0,
      uploads: 0,
    });
    expect(plan.analyticsRows).toHaveLength(1);
    expect(s3Mock.commandCalls(DeleteObjectsCommand)).toHaveLength(0);
    expect(ddbMock.commandCalls(PutCommand)).toHaveLength(0);
    expect(ddbMock.commandCalls(DeleteCommand)).toHaveLength(0);
  });

  it('selects every result of a transaction through its index', async () => {
    // Prepare
    ddbMock.on(QueryCommand).resolves({ Items: [{ resultId: 'res-1' }, { resultId: 'res-2' }] });
    ddbMock.on(BatchGetCommand).resolves({
      Responses: { [TABLE]: [{ resultId: 'res-1' }, { resultId: 'res-2' }] },
    });

    // Act
    const ids = await selectResults(deps(), { by: 'transaction-id', value: 'tx-1' });

    // Assess
    expect(ids).toEqual(['res-1', 'res-2']);
    expect(ddbMock.commandCalls(QueryCommand)[0]!.args[0].input.IndexName).toBe('byTransactionId');
  });

  it('finds projection rows in every day partition, and not those of an id sharing the prefix', async () => {
    // Prepare
    s3Mock.on(ListObjectsV2Command, { Delimiter: '/' }).resolves({
      CommonPrefixes: [
        { Prefix: 'analytics/results/day=2026-08-10/' },
        { Prefix: 'analytics/results/day=2026-08-11/' },
      ],
    });
    s3Mock.on(ListObjectsV2Command, { Prefix: 'analytics/results/day=2026-08-10/abc.' }).resolves({
      Contents: [
        { Key: 'analytics/results/day=2026-08-10/abc.stored.json' },
        { Key: 'analytics/results/day=2026-08-10/abc.2Ex.stored.json' },
      ],
    });
    s3Mock.on(ListObjectsV2Command, { Prefix: 'analytics/results/day=2026-08-11/abc.' }).resolves({
      Contents: [{ Key: 'analytics/results/day=2026-08-11/abc.unavailable.json' }],
    });

    // Act
    const rows = await findProjectionObjects(new S3Client({}), 'analytics', 'abc');

    // Assess
    expect(rows).toEqual([
      'analytics/results/day=2026-08-10/abc.stored.json',
      'analytics/results/day=2026-08-11/abc.unavailable.json',
    ]);
  });
});

describe('the Iceberg projection row through Athena', () => {
  it('counts the row, deletes it with one DELETE, and puts no id that breaks the id rule into SQL', async () => {
    // Prepare: an engine that answers the count and records every statement
    const statements: string[] = [];
    const engine = {
      description: 'Athena workgroup wg (database db)',
      query: async (sql: string) => {
        statements.push(sql);
        return {
          columns: [],
          rows: sql.startsWith('SELECT') ? [{ n: statements.length === 1 ? 1 : 0 }] : [],
        };
      },
      close: async () => {},
    };
    const rows = icebergProjectionRows(engine);

    // Act
    const found = await rows.find('res-1');
    const removed = await rows.remove('res-1');
    const hostile = await rows.find("x' OR '1'='1").catch((error: unknown) => error);

    // Assess
    expect(found).toEqual(['result_rows (Athena workgroup wg (database db))']);
    expect(statements).toEqual([
      "SELECT count(*) AS n FROM result_rows WHERE result_id = 'res-1'",
      "SELECT count(*) AS n FROM result_rows WHERE result_id = 'res-1'",
    ]);
    expect(removed).toBe(0);
    expect(hostile).toBeInstanceOf(Error);
    expect(statements).toHaveLength(2);
  });

  it('deletes a row it found', async () => {
    // Prepare
    const statements: string[] = [];
    const engine = {
      description: 'Athena',
      query: async (sql: string) => {
        statements.push(sql);
        return { columns: [], rows: sql.startsWith('SELECT') ? [{ n: 1 }] : [] };
      },
      close: async () => {},
    };

    // Act
    const removed = await icebergProjectionRows(engine).remove('res-2');

    // Assess
    expect(removed).toBe(1);
    expect(statements.at(-1)).toBe("DELETE FROM result_rows WHERE result_id = 'res-2'");
  });
});
