import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { BatchGetIncompleteError, batchGetAll } from '../../shared/store/batch-get';
import { BATCH_RETRY_POLICY, batchRetryBackoffMs } from '../../shared/store/batch-retry';

const ddbMock = mockClient(DynamoDBDocumentClient);
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));

describe('batchRetryBackoffMs', () => {
  it('never waits before the first round, then a jittered doubling up to the cap', () => {
    // Assess
    expect(batchRetryBackoffMs(1, BATCH_RETRY_POLICY, 0.999)).toBe(0);
    expect(batchRetryBackoffMs(2, BATCH_RETRY_POLICY, 0.999)).toBe(49);
    expect(batchRetryBackoffMs(3, BATCH_RETRY_POLICY, 0.999)).toBe(99);
    expect(batchRetryBackoffMs(4, BATCH_RETRY_POLICY, 0.5)).toBe(100);
    expect(batchRetryBackoffMs(30, BATCH_RETRY_POLICY, 0.999)).toBe(1998);
    expect(batchRetryBackoffMs(30, BATCH_RETRY_POLICY, 0)).toBe(0);
  });
});

describe('batchGetAll', () => {
  beforeEach(() => ddbMock.reset());

  it('reads everything when DynamoDB throttles every round but the last, waiting between rounds', async () => {
    // Prepare: 3 keys; each answer gives one item back and leaves the rest unprocessed.
    const keys = ['a', 'b', 'c'].map((id) => ({ resultId: id }));
    ddbMock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { t: [{ resultId: 'a' }] },
        UnprocessedKeys: { t: { Keys: keys.slice(1) } },
      })
      .resolvesOnce({
        Responses: { t: [{ resultId: 'b' }] },
        UnprocessedKeys: { t: { Keys: keys.slice(2) } },
      })
      .resolvesOnce({ Responses: { t: [{ resultId: 'c' }] } });
    const waits: number[] = [];

    // Act
    const items = await batchGetAll(dynamo, 't', keys, {
      policy: { rounds: 3, baseDelayMs: 50, maxDelayMs: 2_000 },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });

    // Assess
    expect(items.map((item) => item.resultId)).toEqual(['a', 'b', 'c']);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThan(50);
    expect(waits[1]).toBeLessThan(100);
    const asked = ddbMock.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems?.t?.Keys);
    expect(asked).toEqual([keys, keys.slice(1), keys.slice(2)]);
  });

  it('fails naming the keys left when they stay unprocessed past the last round', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({ UnprocessedKeys: { t: { Keys: [{ resultId: 'a' }] } } });

    // Act / Assess
    const read = batchGetAll(dynamo, 't', [{ resultId: 'a' }], {
      policy: { rounds: 4, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => {},
    });
    await expect(read).rejects.toThrow(BatchGetIncompleteError);
    await expect(read).rejects.toThrow('DynamoDB left 1 key(s) of table t unread after 4 rounds');
    expect(ddbMock.commandCalls(BatchGetCommand)).toHaveLength(4);
  });

  it('asks each key once, at most 100 a request, with the projection and a consistent read', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({ Responses: { t: [] } });
    const keys = Array.from({ length: 150 }, (_, i) => ({ resultId: `r-${i}` }));

    // Act
    await batchGetAll(dynamo, 't', [...keys, { resultId: 'r-0' }], { attributes: ['resultId', 'status'] });

    // Assess
    const requests = ddbMock.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems?.t);
    expect(requests.map((r) => r?.Keys?.length)).toEqual([100, 50]);
    expect(requests[0]).toMatchObject({
      ConsistentRead: true,
      ProjectionExpression: '#a0, #a1',
      ExpressionAttributeNames: { '#a0': 'resultId', '#a1': 'status' },
    });
  });

  it('sends nothing for no keys', async () => {
    // Act / Assess
    expect(await batchGetAll(dynamo, 't', [])).toEqual([]);
    expect(ddbMock.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});
