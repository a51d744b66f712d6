/**
 * The planted-marker scan at the SDK level (the same flow as test/integration/erasure-marker-scan.test.ts,
 * without emulators): the real poll, results batch, result store, publisher, projection transform and
 * erasure run against in-memory DynamoDB tables and a versioned S3 bucket behind aws-sdk-client-mock.
 * A result with a marker in every field is polled, stored, delivered again (a redrive), its archived events
 * replayed into the projection, then erased; afterwards no item, object version, upload part or projection
 * row holds any of its markers (raw, hex or base64), a replay after the erasure makes no row, and the event
 * archive holds nothing of it beyond the identifiers a result event carries. A second result stays whole.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FirehoseInputRecord, transformBatch } from '../../shared/analytics/iceberg';
import type { PollResponse } from '../../shared/api/schemas';
import { eraseResult } from '../../shared/erasure/erase-result';
import { itemTraceKind, objectTraceKind } from '../../shared/erasure/traces';
import { publishResultErased } from '../../shared/events/erased-event';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { DynamoEnqueueMarkers } from '../../shared/pipeline/enqueue-markers';
import { pollAndEnqueue } from '../../shared/pipeline/poll';
import { processResultsBatch } from '../../shared/pipeline/results-batch';
import { ErasureRecords } from '../../shared/store/erasure-record';
import { PollRecords } from '../../shared/store/poll-records';
import { Publications } from '../../shared/store/publication';
import { ResultStore } from '../../shared/store/result-store';
import { NO_TRACER } from '../../shared/tracing';
import { awsErasureDeps } from '../support/erasure-deps';
import { MemoryTables } from '../support/memory-dynamo';
import { FakeSource, memoryLogger } from '../support/pipeline-fakes';
import { EVENT_IDENTIFIER_FIELDS, MARKED_FIELDS, markedPair, markersIn } from '../support/planted-markers';
import { VersionedBucket } from '../support/versioned-bucket';

const ddbMock = mockClient(DynamoDBDocumentClient);
const s3Mock = mockClient(S3Client);
const sqsMock = mockClient(SQSClient);
const ebMock = mockClient(EventBridgeClient);

const ERASED = 'res-sdk-1';
const KEPT = 'res-sdk-2';
const { ofErased, ofKept, pollRecord, result } = markedPair(ERASED, KEPT);
const TABLE = 'results';
const MARKERS = 'markers';
const BUCKET = 'data';
const target = { database: 'idv', table: 'result_rows', customerReference: 'include' as const };

const tables = new MemoryTables();
const bucket = new VersionedBucket();
/** Bodies sent to the results queue, and the events put on the bus (the archive). */
const queue: string[] = [];
const archive: { source: string; 'detail-type': string; detail: unknown }[] = [];
/** The projection: rows by result id, written by the transform from archived events. */
const rows = new Map<string, string>();
/** Where the other result's markers were found before the erasure (the scan's positive control). */
const keptBefore: string[] = [];

const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const s3 = new S3Client({ region: 'eu-west-1' });
const events = new EventBridgeClient({ region: 'eu-west-1' });

/** Replays the whole archive into the projection (as a replay feeds the delivery stream). */
async function replayArchive(): Promise<void> {
  const records: FirehoseInputRecord[] = archive.map((event, i) => ({
    recordId: String(i),
    data: Buffer.from(JSON.stringify(event)).toString('base64'),
  }));
  const { records: out } = await transformBatch(records, target, new ErasureRecords(dynamo, TABLE));
  for (const [i, record] of out.entries()) {
    const resultId = (archive[i]!.detail as { resultId: string }).resultId;
    if (record.result === 'Ok') rows.set(resultId, Buffer.from(record.data, 'base64').toString());
  }
}

/** Everything the stores hold, as named blobs (the queue and the archive apart). */
function stored(): { where: string; bytes: Buffer }[] {
  return [
    ...[...tables.tables].flatMap(([name, table]) =>
      [...table].map(([key, item]) => ({
        where: `${name}/${key}`,
        bytes: Buffer.from(JSON.stringify(item)),
      })),
    ),
    ...bucket.versions.map((v) => ({
      where: `s3/${v.key}#${v.versionId}`,
      bytes: v.body ?? Buffer.alloc(0),
    })),
    ...bucket.uploads.flatMap((u) =>
      [...(u.parts ?? new Map<number, Buffer>())].map(([n, bytes]) => ({
        where: `upload/${u.key}#${n}`,
        bytes,
      })),
    ),
    ...[...rows].map(([id, row]) => ({ where: `row/${id}`, bytes: Buffer.from(row) })),
  ];
}

describe('planted-marker scan against the SDK-level stores', () => {
  beforeAll(async () => {
    tables.attach(ddbMock);
    bucket.attach(s3Mock);
    sqsMock.on(SendMessageBatchCommand).callsFake((input) => {
      for (const entry of input.Entries ?? []) queue.push(entry.MessageBody!);
      return {
        Successful: (input.Entries ?? []).map((e: { Id?: string }) => ({ Id: e.Id, MessageId: e.Id })),
      };
    });
    ebMock.on(PutEventsCommand).callsFake((input) => {
      for (const entry of input.Entries ?? [])
        archive.push({
          source: entry.Source!,
          'detail-type': entry.DetailType!,
          detail: JSON.parse(entry.Detail!),
        });
      return { FailedEntryCount: 0, Entries: (input.Entries ?? []).map(() => ({ EventId: 'e' })) };
    });
    const service = {
      poll: async () => ({ results: [pollRecord(ERASED), pollRecord(KEPT)] }) as PollResponse,
    };
    // Prepare: polled (enqueue markers, messages with the polling records) …
    await pollAndEnqueue({
      source: service,
      sqs: new SQSClient({ region: 'eu-west-1' }),
      queueUrl: 'https://sqs.invalid/results',
      logger: memoryLogger().logger,
      markers: new DynamoEnqueueMarkers({ client: dynamo, tableName: MARKERS, windowSeconds: 30 }),
    });
    const deps = {
      source: new FakeSource(
        new Map<string, unknown>([
          [ERASED, result(ERASED)],
          [KEPT, result(KEPT)],
        ]),
      ),
      pollSource: service,
      pollRecords: new PollRecords(dynamo, TABLE, 30),
      // A small-blob limit under the image's size: the PDF goes through a staged multipart upload.
      store: new ResultStore({
        s3,
        dynamo,
        bucket: BUCKET,
        table: TABLE,
        ingest: { smallLimit: 40 },
      }),
      publications: new Publications(dynamo, TABLE),
      publisher: new EventBridgePublisher(events, 'bus'),
      environment: 'staging' as const,
      eventCustomerReference: 'include' as const,
      retentionDays: 30,
      logger: memoryLogger().logger,
    };
    const context = { deps, tracer: NO_TRACER, metrics: { addMetric: () => undefined } as never };
    // … stored from the queue's messages and a webhook hint (its polling record kept) …
    const batch = [
      ...queue.map((body, i) => ({ messageId: `m-${i}`, body })),
      { messageId: 'hint', body: JSON.stringify({ resultId: ERASED, source: 'webhook' }) },
    ];
    expect((await processResultsBatch(batch, context)).batchItemFailures).toEqual([]);
    // … delivered again from the DLQ (a redrive: acknowledged as stored) …
    const redrive = queue.map((body, i) => ({
      messageId: `r-${i}`,
      body: JSON.stringify({ ...JSON.parse(body), source: 'redrive' }),
    }));
    expect((await processResultsBatch(redrive, context)).batchItemFailures).toEqual([]);
    // … and the archive replayed into the projection.
    await replayArchive();
    keptBefore.push(...markersIn(stored(), ofKept));
  });

  it('leaves only keys the erasure module registers (a new per-result record fails here)', () => {
    // Act
    const unknown = [
      ...[...tables.tables].flatMap(([name, table]) =>
        [...table.keys()]
          .filter((key) => key.includes(ERASED))
          .filter((key) => !itemTraceKind(name === MARKERS ? 'markers' : 'results', key, ERASED))
          .map((key) => `${name}/${key}`),
      ),
      ...bucket.versions
        .map((v) => v.key)
        .filter((key) => key.includes(ERASED) && !objectTraceKind(key, ERASED)),
      ...bucket.uploads
        .map((u) => u.key)
        .filter((key) => key.includes(ERASED) && !objectTraceKind(key, ERASED)),
    ];

    // Assess
    expect(unknown).toEqual([]);
    expect([...tables.table(TABLE).keys()].filter((k) => k.startsWith(ERASED)).sort()).toEqual([
      ERASED,
      `${ERASED}#poll`,
      `${ERASED}#publication`,
    ]);
  });

  it('stores every marker before the erasure (the scan sees them)', () => {
    // Act
    const found = markersIn(stored(), ofErased);

    // Assess
    for (const field of MARKED_FIELDS)
      expect(
        found.some((f) => f.includes(`: ${field} (`)),
        field,
      ).toBe(true);
    expect(rows.has(ERASED)).toBe(true);
  });

  it('after the erasure no item, version, upload part or row holds a marker; a replay brings no row back', async () => {
    // Act
    const record = await eraseResult(
      awsErasureDeps(
        { dynamo, s3, tableName: TABLE, bucketName: BUCKET, markersTableName: MARKERS },
        {
          find: async (id) => (rows.has(id) ? [`row ${id}`] : []),
          remove: async (id, found) => (rows.delete(id) ? found.length : 0),
        },
        { publish: (detail) => publishResultErased(events, 'bus', detail) },
      ),
      ERASED,
      { principal: 'dpo', selectedBy: 'result-id' },
    );
    await replayArchive();

    // Assess
    expect(record.state).toBe('ERASED');
    expect(markersIn(stored(), ofErased)).toEqual([]);
    expect(rows.has(ERASED)).toBe(false);
    // Positive control: the other result is whole, found where it was.
    expect(markersIn(stored(), ofKept)).toEqual(keptBefore);
    expect(keptBefore.length).toBeGreaterThanOrEqual(MARKED_FIELDS.length - 1);
    // The archive (a bounded copy out of reach) holds the identifiers a result event carries, nothing else.
    const inArchive = markersIn(
      archive.map((e, i) => ({ where: `event ${i}`, bytes: Buffer.from(JSON.stringify(e)) })),
      ofErased,
    );
    expect(inArchive.every((f) => EVENT_IDENTIFIER_FIELDS.some((field) => f.includes(`: ${field} (`)))).toBe(
      true,
    );
    expect(inArchive).not.toEqual([]);
    // The queue's messages are the CLI's to remove after the erasure (a bounded walk of the queue and the
    // DLQ, shared/erasure/queue-purge.ts): erasure-queue-purge.test.ts and, end to end on the local run,
    // the integration marker scan and erasure-queues-local.test.ts.
  });
});
