/**
 * The erasure module's own decisions (shared/erasure/erase-result.ts), with an in-memory table and bucket:
 * it deletes exactly the items the registry lists (none in a markers table it was not given), purges the
 * result's prefixes in its item's bucket too, goes through every reach it is handed (queues and journals
 * included), sums the counts of a second run, and plans without changing anything.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_COPY_BOUNDS } from '../../shared/erasure/bounds';
import {
  type ErasureDeps,
  eraseResult,
  planErasure,
  selectResults,
  unfinishedErasures,
} from '../../shared/erasure/erase-result';
import type { TraceReach } from '../../shared/erasure/traces';
import type { ResultErasedDetail } from '../../shared/events/detail-types';
import { VersionedBucket } from '../support/versioned-bucket';

const ddbMock = mockClient(DynamoDBDocumentClient);
const s3Mock = mockClient(S3Client);
const TABLE = 'results';
const MARKERS = 'markers';

/** Items by `table/key`, served by the DynamoDB mock. */
let items: Map<string, Record<string, unknown>>;
let bucket: VersionedBucket;

/** A reach over a list of names, recording what it was asked. */
function listReach(found: string[]): TraceReach & { removed: string[][] } {
  const removed: string[][] = [];
  return {
    removed,
    find: async () => [...found],
    remove: async (_id, names) => {
      removed.push([...names]);
      const n = found.length;
      found.length = 0;
      return n;
    },
  };
}

function deps(overrides: Partial<ErasureDeps> = {}, published: ResultErasedDetail[] = []): ErasureDeps {
  return {
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({})),
    s3: new S3Client({}),
    tableName: TABLE,
    bucketName: 'data',
    dialect: 'aws',
    markersTableName: MARKERS,
    reaches: { projection: listReach(['row r-1']) },
    receipt: { local: false, analytics: true, bounds: DEFAULT_COPY_BOUNDS },
    events: { publish: async (detail) => void published.push(detail) },
    now: () => new Date('2026-09-01T10:00:00.000Z'),
    ...overrides,
  };
}

/** Serves GetCommand and PutCommand from {@link items}. */
function serveGetAndPut(): void {
  ddbMock
    .on(GetCommand)
    .callsFake((input) => ({ Item: items.get(`${input.TableName}/${input.Key.resultId}`) }));
  ddbMock.on(PutCommand).callsFake((input) => {
    items.set(`${input.TableName}/${input.Item.resultId}`, input.Item);
    return {};
  });
}

/**
 * Serves the transaction index from {@link items}: a Query of `#pk = :pk` on an index lists the results
 * table's items whose attribute has that value, in the order they were added (oldest first); BatchGet reads them.
 */
function serveIndexQueries(): void {
  ddbMock.on(QueryCommand).callsFake((input) => {
    const attribute = input.ExpressionAttributeNames['#pk'];
    const value = input.ExpressionAttributeValues[':pk'];
    return {
      Items: [...items.entries()]
        .filter(([key, item]) => key.startsWith(`${TABLE}/`) && item[attribute] === value)
        .map(([, item]) => ({ resultId: item.resultId })),
    };
  });
  ddbMock.on(BatchGetCommand).callsFake((input) => ({
    Responses: Object.fromEntries(
      Object.entries(input.RequestItems as Record<string, { Keys: { resultId: string }[] }>).map(
        ([table, request]) => [
          table,
          request.Keys.flatMap((key) => items.get(`${table}/${key.resultId}`) ?? []),
        ],
      ),
    ),
  }));
}

/** A version of a verdict as a result item's history lists it. */
function version(n: number, resultId: string) {
  return {
    version: n,
    resultId,
    completed: `2026-08-0${n}T00:00:00.000Z`,
    completedKnown: true,
    storedAt: 'x',
  };
}

/** The counts every run has, whatever reaches it was given, in the order the record lists them. */
const EVERY_RUN_COUNTS = [
  'objectVersions',
  'deleteMarkers',
  'objects',
  'uploadsAborted',
  'items',
  'analyticsRows',
];

/**
 * r-1's erasure record as a first run left it: ERASING, requested on 31 August, with `counts` (those
 * every run has are 0 unless given).
 */
function firstRun(counts: Record<string, number>): void {
  const zero = Object.fromEntries(EVERY_RUN_COUNTS.map((name) => [name, 0]));
  items.set(`${TABLE}/r-1#erasure`, {
    resultId: 'r-1#erasure',
    state: 'ERASING',
    requestedAt: '2026-08-31T09:00:00.000Z',
    counts: { ...zero, ...counts },
  });
}

describe('eraseResult and planErasure', () => {
  beforeEach(() => {
    ddbMock.reset();
    s3Mock.reset();
    items = new Map([
      [`${TABLE}/r-1`, { resultId: 'r-1', status: 'STORED', bucket: 'own-bucket', transactionId: 'tx-1' }],
      [`${TABLE}/r-1#publication`, { resultId: 'r-1#publication', status: 'STORED', publishedAt: 'x' }],
      [`${TABLE}/r-1#poll`, { resultId: 'r-1#poll', pollRecord: { userId: 'u' } }],
      [`${MARKERS}/r-1`, { resultId: 'r-1' }],
      [`${TABLE}/r-10`, { resultId: 'r-10', status: 'STORED' }],
    ]);
    serveGetAndPut();
    // The fence (shared/erasure/fence.ts) replaces the publication record: `erasedAt`, no status, no token.
    ddbMock.on(UpdateCommand).callsFake((input) => {
      const key = `${input.TableName}/${input.Key.resultId}`;
      const old = items.get(key);
      items.set(key, { resultId: input.Key.resultId, erasedAt: input.ExpressionAttributeValues[':at'] });
      return old ? { Attributes: old } : {};
    });
    ddbMock.on(DeleteCommand).callsFake((input) => {
      const key = `${input.TableName}/${input.Key.resultId}`;
      const old = items.get(key);
      items.delete(key);
      return old ? { Attributes: old } : {};
    });
    bucket = new VersionedBucket();
    bucket.attach(s3Mock);
    bucket.versions.push(
      { key: 'results/r-1/result.json', versionId: 'a' },
      { key: 'staging/r-1/images-01', versionId: 'b' },
      { key: 'results/r-10/result.json', versionId: 'c' },
    );
    bucket.uploads.push({ key: 'staging/r-1/files-01', uploadId: 'u' });
  });

  it('plans every registered trace it finds, changing nothing', async () => {
    // Prepare
    const queues = listReach(['dlq: 2 message(s)']);
    const journals = listReach(['events.jsonl: 3 line(s)']);

    // Act
    const plan = await planErasure(deps({ reaches: { projection: listReach([]), queues, journals } }), 'r-1');

    // Assess
    expect(plan).toEqual({
      resultId: 'r-1',
      item: { status: 'STORED', transactionId: 'tx-1' },
      publicationRecord: true,
      pollRecord: true,
      enqueueMarker: true,
      // Listed in the data bucket and the item's own: the fake serves one set of objects under every name.
      objects: {
        keys: ['results/r-1/result.json', 'staging/r-1/images-01'],
        versions: 4,
        deleteMarkers: 0,
        uploads: 2,
      },
      analyticsRows: [],
      queueMessages: ['dlq: 2 message(s)'],
      journalLines: ['events.jsonl: 3 line(s)'],
    });
    expect(ddbMock.commandCalls(DeleteCommand)).toHaveLength(0);
    expect(ddbMock.commandCalls(PutCommand)).toHaveLength(0);
    expect(bucket.versions).toHaveLength(3);
  });

  it('erases every trace through every reach, and nothing of r-10', async () => {
    // Prepare
    const projection = listReach(['row r-1']);
    const queues = listReach(['queue: 1 message(s)', 'dlq: 1 message(s)']);
    const journals = listReach(['events.jsonl: 2 line(s)']);
    const published: ResultErasedDetail[] = [];

    // Act
    const record = await eraseResult(deps({ reaches: { projection, queues, journals } }, published), 'r-1', {
      principal: 'ops',
      selectedBy: 'result-id',
    });

    // Assess
    expect(record.counts).toEqual({
      objectVersions: 2,
      deleteMarkers: 0,
      objects: 2,
      uploadsAborted: 1,
      items: 4,
      analyticsRows: 1,
      queueMessages: 2,
      journalLines: 1,
    });
    // The publication record stays as the erasure's fence: erasedAt, nothing of the result.
    expect([...items.keys()].sort()).toEqual([
      `${TABLE}/r-1#erasure`,
      `${TABLE}/r-1#publication`,
      `${TABLE}/r-10`,
    ]);
    expect(Object.keys(items.get(`${TABLE}/r-1#publication`)!).sort()).toEqual(['erasedAt', 'resultId']);
    expect(bucket.keys()).toEqual(['results/r-10/result.json']);
    expect(bucket.uploads).toEqual([]);
    expect(queues.removed).toEqual([['queue: 1 message(s)', 'dlq: 1 message(s)']]);
    expect(journals.removed).toEqual([['events.jsonl: 2 line(s)']]);
    // The item's own bucket was purged too (it is listed: the fake serves every bucket name).
    expect(s3Mock.calls().some((c) => (c.args[0].input as { Bucket?: string }).Bucket === 'own-bucket')).toBe(
      true,
    );
    expect(published[0]).toMatchObject({ resultId: 'r-1', transactionId: 'tx-1', removed: { items: 4 } });
    expect(published[0]!.receipt).toEqual(record.receipt);
    expect(items.get(`${TABLE}/r-1#erasure`)).toMatchObject({ state: 'ERASED', receipt: record.receipt });
  });

  it("without a markers table, deletes only the results table's items", async () => {
    // Act: the clock too is the real one.
    const before = Date.now();
    const record = await eraseResult(deps({ markersTableName: undefined, now: undefined }), 'r-1', {
      principal: 'ops',
      selectedBy: 'result-id',
    });

    // Assess: read consistently, ended now.
    expect(ddbMock.commandCalls(GetCommand).every((c) => c.args[0].input.ConsistentRead === true)).toBe(true);
    expect(Date.parse(record.erasedAt!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(record.erasedAt!)).toBeLessThanOrEqual(Date.now());

    // Assess
    expect(record.counts?.items).toBe(3);
    expect(items.has(`${MARKERS}/r-1`)).toBe(true);
    expect(ddbMock.commandCalls(DeleteCommand).every((c) => c.args[0].input.TableName === TABLE)).toBe(true);
    expect(record.counts).not.toHaveProperty('queueMessages');
    expect(record.counts).not.toHaveProperty('journalLines');
  });

  it("adds a second run's counts to the first's and keeps the first request time", async () => {
    // Prepare: a first run that counted queue messages; the second has no queue reach.
    firstRun({
      objectVersions: 5,
      deleteMarkers: 1,
      objects: 3,
      uploadsAborted: 2,
      items: 1,
      queueMessages: 4,
    });

    // Act
    const record = await eraseResult(deps(), 'r-1', {
      principal: 'ops',
      selectedBy: 'customer-reference',
      auditRetentionDays: 10,
    });

    // Assess
    expect(record.counts).toEqual({
      objectVersions: 7,
      deleteMarkers: 1,
      objects: 5,
      uploadsAborted: 3,
      items: 5,
      analyticsRows: 1,
      queueMessages: 4,
    });
    expect(record.requestedAt).toBe('2026-08-31T09:00:00.000Z');
    expect(record.expiresAt).toBe(Date.parse('2026-08-31T09:00:00.000Z') / 1000 + 10 * 86_400);
    expect(record.selectedBy).toBe('customer-reference');
    // The fence went first, carrying the earlier counts.
    const fence = ddbMock.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(fence).toMatchObject({ state: 'ERASING', counts: { objectVersions: 5 } });
  });

  it('plans the keys of both buckets once each, in key order', async () => {
    // Prepare: the item's own bucket holds another key of r-1, listed after the data bucket's.
    s3Mock
      .on(ListObjectVersionsCommand, { Bucket: 'own-bucket', Prefix: 'results/r-1/' })
      .resolves({ Versions: [{ Key: 'results/r-1/images/01-PASSPORT-FRONT.jpg', VersionId: 'o' }] });
    s3Mock.on(ListObjectVersionsCommand, { Bucket: 'own-bucket', Prefix: 'staging/r-1/' }).resolves({});

    // Act
    const plan = await planErasure(deps(), 'r-1');

    // Assess
    expect(plan.objects).toMatchObject({
      keys: ['results/r-1/images/01-PASSPORT-FRONT.jpg', 'results/r-1/result.json', 'staging/r-1/images-01'],
      versions: 3,
    });
  });

  it('plans a result with nothing left: no item, no records, no marker; and a former erasure', async () => {
    // Prepare: only an erasure record, first half-way (no erasedAt), then ended.
    items.clear();
    bucket.versions = [
      { key: 'results/r-2/result.json', versionId: 'm', deleteMarker: true },
      { key: 'results/r-2/result.json', versionId: 'v' },
    ];
    bucket.uploads = [];
    items.set(`${TABLE}/r-2#erasure`, { resultId: 'r-2#erasure', state: 'ERASING' });

    // Act
    const halfway = await planErasure(deps(), 'r-2');
    items.set(`${TABLE}/r-2#erasure`, {
      resultId: 'r-2#erasure',
      state: 'ERASED',
      erasedAt: '2026-09-01T09:00:00.000Z',
    });
    const ended = await planErasure(deps(), 'r-2');

    // Assess
    expect(halfway).toStrictEqual({
      resultId: 'r-2',
      publicationRecord: false,
      pollRecord: false,
      enqueueMarker: false,
      objects: { keys: ['results/r-2/result.json'], versions: 1, deleteMarkers: 1, uploads: 0 },
      analyticsRows: ['row r-1'],
      erased: { state: 'ERASING' },
    });
    expect(ended.erased).toStrictEqual({ state: 'ERASED', erasedAt: '2026-09-01T09:00:00.000Z' });
  });

  it('selects a result id as given, without a query; a reference through its own index', async () => {
    // Prepare
    ddbMock.on(QueryCommand).resolves({ Items: [] });

    // Act
    const byId = await selectResults(deps(), { by: 'result-id', value: 'r-7' });
    const byReference = await selectResults(deps(), { by: 'customer-reference', value: 'ref' });

    // Assess
    expect(byId).toEqual(['r-7']);
    expect(byReference).toEqual([]);
    const queries = ddbMock.commandCalls(QueryCommand);
    expect(queries).toHaveLength(1);
    expect(queries[0]!.args[0].input.IndexName).toBe('byCustomerReference');
  });

  it('selects by result id the results that hold the other versions of its verdict, and no other result', async () => {
    // Prepare: after a review the service issued r-2 for r-1's transaction (r-2's history names r-1);
    // r-4 is another result of the transaction, linked to neither.
    serveIndexQueries();
    items.set(`${TABLE}/r-2`, {
      resultId: 'r-2',
      status: 'STORED',
      transactionId: 'tx-1',
      versions: [version(1, 'r-1'), version(2, 'r-2')],
    });
    items.set(`${TABLE}/r-4`, { resultId: 'r-4', status: 'STORED', transactionId: 'tx-1' });

    // Act
    const [first, later, unlinked, alone] = await Promise.all(
      ['r-1', 'r-2', 'r-4', 'r-10'].map((value) => selectResults(deps(), { by: 'result-id', value })),
    );

    // Assess: either version's id erases both; the unlinked result and the one without a transaction alone.
    expect(first).toEqual(['r-1', 'r-2']);
    expect(later).toEqual(['r-2', 'r-1']);
    expect(unlinked).toEqual(['r-4']);
    expect(alone).toEqual(['r-10']);
  });

  it('records the versions of the verdict the erased result held under its own id, with their prefixes', async () => {
    // Prepare: r-1 holds versions 2 and 3 of a verdict whose first version is r-0's.
    items.set(`${TABLE}/r-1`, {
      resultId: 'r-1',
      status: 'STORED',
      transactionId: 'tx-1',
      versions: [version(1, 'r-0'), version(2, 'r-1'), version(3, 'r-1')],
    });
    const versions = [
      { version: 2, resultId: 'r-1', objectsPrefix: 'results/r-1/versions/2/' },
      { version: 3, resultId: 'r-1', objectsPrefix: 'results/r-1/versions/3/' },
    ];

    // Act
    const record = await eraseResult(deps(), 'r-1', { principal: 'ops', selectedBy: 'result-id' });
    // A second erasure of the same result (its item gone now) keeps what the first recorded.
    const again = await eraseResult(deps(), 'r-1', { principal: 'ops', selectedBy: 'result-id' });

    // Assess: r-0's version is not claimed erased here (its own erasure erases it).
    expect(record.versions).toEqual(versions);
    expect(items.get(`${TABLE}/r-1#erasure`)).toMatchObject({ state: 'ERASED', versions });
    expect(again.versions).toEqual(versions);
  });

  it('erases a result whose item is already gone: its objects, no transaction in the event', async () => {
    // Prepare
    const published: ResultErasedDetail[] = [];
    bucket.versions.push({ key: 'results/r-3/result.json', versionId: 'z' });

    // Act
    const record = await eraseResult(deps({}, published), 'r-3', {
      principal: 'ops',
      selectedBy: 'result-id',
    });

    // Assess
    expect(record.counts).toMatchObject({ objectVersions: 1, items: 0 });
    expect(published[0]).not.toHaveProperty('transactionId');
    // No item, no former erasure: the record names no versions (the result had one, or none is known).
    expect(items.get(`${TABLE}/r-3#erasure`)).not.toHaveProperty('versions');
  });

  it('counts only the items that were there, each deleted with ALL_OLD', async () => {
    // Act: r-10 has a result item only.
    const record = await eraseResult(deps(), 'r-10', { principal: 'ops', selectedBy: 'result-id' });

    // Assess
    expect(record.counts?.items).toBe(1);
    // The result item, the polling record and the enqueue marker; the publication record is fenced instead.
    const deletes = ddbMock.commandCalls(DeleteCommand).map((c) => c.args[0].input);
    expect(deletes).toHaveLength(3);
    expect(deletes.every((d) => d.ReturnValues === 'ALL_OLD')).toBe(true);
  });

  it('sums optional counts of two runs whichever run had them, and adds every count', async () => {
    // Prepare: the first run counted journal lines but had no queue reach; the second has both.
    firstRun({ objectVersions: 1, deleteMarkers: 2, objects: 1, journalLines: 2 });
    bucket.versions.push({ key: 'results/r-1/x', versionId: 'dm', deleteMarker: true });
    const reaches = {
      projection: listReach([]),
      queues: listReach(['dlq: 3 message(s)', 'queue: 1 message(s)', 'dlq: 2']),
      journals: listReach(['events.jsonl: 1 line(s)']),
    };

    // Act
    const record = await eraseResult(deps({ reaches }), 'r-1', { principal: 'ops', selectedBy: 'result-id' });

    // Assess
    expect(record.counts).toStrictEqual({
      objectVersions: 3,
      deleteMarkers: 3,
      objects: 4,
      uploadsAborted: 1,
      items: 4,
      analyticsRows: 0,
      queueMessages: 3,
      journalLines: 3,
    });
  });

  it('leaves out optional counts neither run had', async () => {
    // Prepare
    firstRun({});

    // Act
    const record = await eraseResult(deps(), 'r-1', { principal: 'ops', selectedBy: 'result-id' });

    // Assess
    expect(Object.keys(record.counts!)).toEqual(EVERY_RUN_COUNTS);
  });
});

describe('a killed erasure', () => {
  beforeEach(() => {
    ddbMock.reset();
    s3Mock.reset();
    items = new Map([[`${TABLE}/r-1`, { resultId: 'r-1', status: 'STORED' }]]);
    serveGetAndPut();
    ddbMock.on(UpdateCommand).resolves({});
    ddbMock.on(DeleteCommand).resolves({});
    bucket = new VersionedBucket();
    bucket.attach(s3Mock);
  });

  it('stays ERASING naming the failed step and every later one, with the counts so far; publishes nothing', async () => {
    // Prepare: the journals' step dies (as a kill there would end the run).
    const published: ResultErasedDetail[] = [];
    const journals: TraceReach = {
      find: async () => ['events.jsonl: 1 line(s)'],
      remove: async () => {
        throw new Error('killed');
      },
    };

    // Act
    const run = eraseResult(
      deps(
        { reaches: { projection: listReach(['row r-1']), queues: listReach(['q']), journals } },
        published,
      ),
      'r-1',
      { principal: 'ops', selectedBy: 'result-id' },
    );

    // Assess
    await expect(run).rejects.toThrow('killed');
    expect(items.get(`${TABLE}/r-1#erasure`)).toMatchObject({
      state: 'ERASING',
      left: ['local-journals', 'result-item', 'poll-record', 'enqueue-marker'],
      counts: { analyticsRows: 1, queueMessages: 1 },
    });
    expect(published).toEqual([]);
  });

  it('stops at a refused S3 delete with the record naming every kind left, objects first, and no counts', async () => {
    // Prepare
    bucket.versions.push({ key: 'results/r-1/result.json', versionId: 'a' });
    s3Mock
      .on(DeleteObjectsCommand)
      .resolves({ Errors: [{ Key: 'results/r-1/result.json', VersionId: 'a', Code: 'AccessDenied' }] });
    const published: ResultErasedDetail[] = [];

    // Act
    const run = eraseResult(deps({}, published), 'r-1', { principal: 'ops', selectedBy: 'result-id' });

    // Assess: nothing counted as removed, every trace still to go.
    await expect(run).rejects.toThrow('AccessDenied');
    const record = items.get(`${TABLE}/r-1#erasure`);
    expect(record).toMatchObject({
      state: 'ERASING',
      left: [
        'result-objects',
        'staged-uploads',
        'analytics-row',
        'result-item',
        'poll-record',
        'enqueue-marker',
      ],
    });
    expect(record).not.toHaveProperty('counts');
    expect(published).toEqual([]);
  });

  it('killed at the projection (no queue reach), keeps the objects it removed in its counts for the next run', async () => {
    // Prepare: two versions in the bucket; the projection refuses once, then works.
    bucket.versions.push(
      { key: 'results/r-1/result.json', versionId: 'a' },
      { key: 'results/r-1/result.json', versionId: 'b' },
    );
    let refused = false;
    const projection: TraceReach = {
      find: async () => ['row r-1'],
      remove: async (_id, rows) => {
        if (refused) return rows.length;
        refused = true;
        throw new Error('Athena refused');
      },
    };
    const audit = { principal: 'ops', selectedBy: 'result-id' } as const;

    // Act
    const first = eraseResult(deps({ reaches: { projection } }), 'r-1', audit);
    await expect(first).rejects.toThrow('Athena refused');
    const killed = items.get(`${TABLE}/r-1#erasure`);
    const record = await eraseResult(deps({ reaches: { projection } }), 'r-1', audit);

    // Assess: the killed run's record names the row and the items left, and the versions it removed;
    // the finished record counts them though the second run found the bucket empty.
    expect(killed).toMatchObject({
      state: 'ERASING',
      left: ['analytics-row', 'result-item', 'poll-record', 'enqueue-marker'],
      counts: { objectVersions: 2, objects: 1, analyticsRows: 0 },
    });
    expect(record).toMatchObject({
      state: 'ERASED',
      counts: { objectVersions: 2, objects: 1, analyticsRows: 1 },
    });
  });

  it('killed at the queues, names the queue messages left and counts the row and objects removed', async () => {
    // Prepare
    bucket.versions.push({ key: 'staging/r-1/images-01', versionId: 'a' });
    const queues: TraceReach = {
      find: async () => ['queue: 1 message(s)'],
      remove: async () => {
        throw new Error('SQS refused');
      },
    };

    // Act
    const run = eraseResult(deps({ reaches: { projection: listReach(['row r-1']), queues } }), 'r-1', {
      principal: 'ops',
      selectedBy: 'result-id',
    });

    // Assess
    await expect(run).rejects.toThrow('SQS refused');
    expect(items.get(`${TABLE}/r-1#erasure`)).toMatchObject({
      state: 'ERASING',
      left: ['queue-messages', 'result-item', 'poll-record', 'enqueue-marker'],
      counts: { objectVersions: 1, analyticsRows: 1 },
    });
  });

  it('is found by unfinishedErasures with its principal and selector, for the next run to finish', async () => {
    // Prepare
    ddbMock
      .on(ScanCommand)
      .resolvesOnce({
        Items: [
          {
            resultId: 'r-9#erasure',
            erasedResultId: 'r-9',
            state: 'ERASING',
            principal: 'ops',
            selectedBy: 'customer-reference',
          },
        ],
        LastEvaluatedKey: { resultId: 'r-9#erasure' },
      })
      .resolvesOnce({ Items: [] });

    // Act
    const unfinished = await unfinishedErasures(DynamoDBDocumentClient.from(new DynamoDBClient({})), TABLE);

    // Assess
    expect(unfinished).toEqual([
      { resultId: 'r-9', audit: { principal: 'ops', selectedBy: 'customer-reference' } },
    ]);
    expect(ddbMock.commandCalls(ScanCommand)[0]!.args[0].input).toMatchObject({
      FilterExpression: expect.stringContaining(':erasing'),
      ExpressionAttributeValues: { ':erasing': 'ERASING' },
    });
  });
});
