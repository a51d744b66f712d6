/**
 * Replaying the event archive after an erasure brings no row back (docs/erasure.md): the projection
 * transform looks up the batch's `<id>#erasure` records (one BatchGetItem per 100 ids, the key only) and
 * drops the events of erased results; the others become rows as before.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FirehoseInputRecord, recordResultId, transformBatch } from '../../shared/analytics/iceberg';
import { storedDetail } from '../../shared/events/details';
import { DETAIL_TYPES } from '../../shared/events/names';
import { BatchGetIncompleteError } from '../../shared/store/batch-get';
import { BATCH_RETRY_POLICY } from '../../shared/store/batch-retry';
import { ErasureRecords } from '../../shared/store/erasure-record';
import { buildStoredItem } from '../../shared/store/item';

const ddbMock = mockClient(DynamoDBDocumentClient);
const TABLE = 'results';
const target = { database: 'idv', table: 'result_rows', customerReference: 'omit' as const };

/** A Firehose record of the Stored event of `resultId`, as the archive replays it. */
function storedRecord(resultId: string, recordId = `rec-${resultId}`): FirehoseInputRecord {
  const item = buildStoredItem({
    hints: { resultId, source: 'poll', product: 'RTW_PREMIUM', completed: '2026-08-10T12:00:00Z' },
    document: { identity: { result: 'APPROVED' } },
    stored: { resultKey: `results/${resultId}/result.json`, objects: [], documentBytes: 10 },
    bucket: 'data',
    storedAt: '2026-08-10T12:00:03.512Z',
    retentionDays: 30,
  });
  const detail = {
    ...storedDetail(item, { environment: 'production', store: { table: TABLE, bucket: 'data' } }),
    replay: 'replay-1',
  };
  const event = { 'detail-type': DETAIL_TYPES.resultStored, source: 'idv.pipeline', detail };
  return { recordId, data: Buffer.from(JSON.stringify(event)).toString('base64') };
}

const records = () => new ErasureRecords(DynamoDBDocumentClient.from(new DynamoDBClient({})), TABLE);

describe('a replay after an erasure', () => {
  beforeEach(() => ddbMock.reset());

  it("drops the erased result's event and projects the other, reading only erasure keys", async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [{ resultId: 'res-erased#erasure' }] } });
    const batch = [storedRecord('res-erased'), storedRecord('res-kept'), storedRecord('res-erased', 'again')];

    // Act
    const { records: out, erased } = await transformBatch(batch, target, records());

    // Assess
    expect(out.map((r) => [r.recordId, r.result])).toEqual([
      ['rec-res-erased', 'Dropped'],
      ['rec-res-kept', 'Ok'],
      ['again', 'Dropped'],
    ]);
    expect(erased).toBe(2);
    const request = ddbMock.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems![TABLE]!;
    expect(request).toEqual({
      Keys: [{ resultId: 'res-erased#erasure' }, { resultId: 'res-kept#erasure' }],
      ProjectionExpression: '#a0',
      ExpressionAttributeNames: { '#a0': 'resultId' },
      ConsistentRead: true,
    });
  });

  it('projects every event without a look-up when no result is erased or none is asked', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [] } });
    const other = {
      recordId: 'x',
      data: Buffer.from('{"detail-type":"Other","detail":{}}').toString('base64'),
    };

    // Act
    const withLookup = await transformBatch([storedRecord('res-1')], target, records());
    const without = await transformBatch([storedRecord('res-1')], target, undefined);
    const noIds = await transformBatch([other], target, records());

    // Assess
    expect(withLookup.records[0]!.result).toBe('Ok');
    expect(without.records[0]!.result).toBe('Ok');
    expect(noIds.records[0]!.result).toBe('Dropped');
    expect(noIds.erased).toBe(0);
    expect(ddbMock.commandCalls(BatchGetCommand)).toHaveLength(1);
  });

  it('reads the resultId of a record without throwing on a broken one', () => {
    // Assess
    expect(recordResultId(storedRecord('res-9'))).toBe('res-9');
    expect(recordResultId({ recordId: 'b', data: Buffer.from('{').toString('base64') })).toBeUndefined();
    expect(
      recordResultId({ recordId: 'n', data: Buffer.from('{"detail":{"resultId":7}}').toString('base64') }),
    ).toBeUndefined();
    expect(recordResultId({ recordId: 'n', data: Buffer.from('null').toString('base64') })).toBeUndefined();
  });
});

describe('ErasureRecords.erasedAmong', () => {
  beforeEach(() => ddbMock.reset());
  afterEach(() => vi.restoreAllMocks());

  it('asks at most 100 keys a request, each id once, and asks again for unprocessed keys', async () => {
    // Prepare: 150 ids (one twice); the first answer leaves one key unprocessed.
    const ids = [...Array.from({ length: 150 }, (_, i) => `r-${i}`), 'r-0'];
    ddbMock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { [TABLE]: [{ resultId: 'r-3#erasure' }] },
        UnprocessedKeys: { [TABLE]: { Keys: [{ resultId: 'r-99#erasure' }] } },
      })
      .resolvesOnce({ Responses: { [TABLE]: [{ resultId: 'r-99#erasure' }] } })
      .resolves({ Responses: { [TABLE]: [{ resultId: 'r-120#erasure' }, { other: 1 }] } });

    // Act
    const erased = await records().erasedAmong(ids);

    // Assess
    expect([...erased].sort()).toEqual(['r-120', 'r-3', 'r-99']);
    const sizes = ddbMock
      .commandCalls(BatchGetCommand)
      .map((c) => c.args[0].input.RequestItems![TABLE]!.Keys!.length);
    expect(sizes).toEqual([100, 1, 50]);
  });

  it('fails after every round of the policy with keys still unprocessed (the transform then fails the batch)', async () => {
    // Prepare: the backoff's jitter at 0, so the rounds do not wait.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    ddbMock
      .on(BatchGetCommand)
      .resolves({ UnprocessedKeys: { [TABLE]: { Keys: [{ resultId: 'r-1#erasure' }] } } });

    // Act / Assess
    await expect(records().erasedAmong(['r-1'])).rejects.toThrow(BatchGetIncompleteError);
    expect(ddbMock.commandCalls(BatchGetCommand)).toHaveLength(BATCH_RETRY_POLICY.rounds);
  });

  it('asks nothing for no ids', async () => {
    // Act / Assess
    expect(await records().erasedAmong([])).toEqual(new Set());
    expect(ddbMock.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});
