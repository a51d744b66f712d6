/**
 * The erasure's fence on the publication record (shared/erasure/fence.ts): set at once when no claim is
 * live, after a live claim ends otherwise (a release seen within the poll interval, an expiry plus the
 * clocks' skew, or the same claim watched for a claim's whole life), never past its bound; and the
 * condition fragments the claims and marks use.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FenceTimeoutError, fencePublication } from '../../shared/erasure/fence';
import { reopeningFence, unlessFenced } from '../../shared/store/publication';

const ddbMock = mockClient(DynamoDBDocumentClient);
const TABLE = 'results';

/** A condition failure as DynamoDB sends it with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`. */
function heldBy(claimExpiresAt: number): Error {
  return Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
    Item: marshall({ resultId: 'res-1#publication', status: 'STORED', claim: 'm-1', claimExpiresAt }),
  });
}

/** A clock the fence's sleeps move. */
function fakeTime(start = 1_000_000) {
  const time = { ms: start, slept: [] as number[] };
  return {
    time,
    options: {
      now: () => time.ms,
      sleep: async (ms: number) => {
        time.slept.push(ms);
        time.ms += ms;
      },
      clockSkewMs: 2_000,
      pollMs: 250,
    },
  };
}

describe('fencePublication', () => {
  const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));

  beforeEach(() => ddbMock.reset());

  it('fences at once when no claim is live, and says whether a publication record was replaced', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { status: 'STORED', publishedAt: '2026-01-01' } });
    const { options } = fakeTime();

    // Act
    const result = await fencePublication(dynamo, TABLE, 'res-1', '2026-09-01T00:00:00Z', 99, options);

    // Assess: one conditional update on the publication record, refusing a live claim only.
    expect(result).toEqual({ waitedMs: 0, replacedRecord: true });
    const [call] = ddbMock.commandCalls(UpdateCommand);
    const input = call!.args[0].input;
    expect(input.Key).toEqual({ resultId: 'res-1#publication' });
    expect(input.ConditionExpression).toBe(
      'attribute_not_exists(#claimExpiresAt) OR #claimExpiresAt < :over',
    );
    expect(input.ExpressionAttributeValues).toMatchObject({ ':at': '2026-09-01T00:00:00Z', ':ttl': 99 });
    expect(input.ExpressionAttributeValues![':over']).toBe(1_000_000 - 2_000);
    expect(input.UpdateExpression).toBe(
      'SET #erasedAt = :at, #expiresAt = :ttl REMOVE #status, #publishedAt, #claim, #claimExpiresAt, #version, #claimVersion',
    );
    expect(Object.values(input.ExpressionAttributeNames!).sort()).toEqual([
      'claim',
      'claimExpiresAt',
      'claimVersion',
      'erasedAt',
      'expiresAt',
      'publishedAt',
      'status',
      'version',
    ]);
  });

  it('waits while a fetch holds a live claim and fences as soon as it is given up', async () => {
    // Prepare: the claim holds for a minute; the holder gives it up after three polls.
    const { time, options } = fakeTime();
    ddbMock
      .on(UpdateCommand)
      .rejectsOnce(heldBy(time.ms + 60_000))
      .rejectsOnce(heldBy(time.ms + 60_000))
      .rejectsOnce(heldBy(time.ms + 60_000))
      .resolves({});

    // Act
    const result = await fencePublication(dynamo, TABLE, 'res-1', 'at', 99, options);

    // Assess
    expect(result).toEqual({ waitedMs: 750, replacedRecord: false });
    expect(time.slept).toEqual([250, 250, 250]);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(4);
  });

  it('reads the record when the failure does not carry it, and sleeps no longer than the claim lives', async () => {
    // Prepare: a claim that ends 100 ms from now (plus the skew), and an emulator that sends no item back.
    const { time, options } = fakeTime();
    ddbMock
      .on(UpdateCommand)
      .rejectsOnce(Object.assign(new Error('failed'), { name: 'ConditionalCheckFailedException' }))
      .resolves({});
    ddbMock.on(GetCommand).resolves({ Item: { claimExpiresAt: time.ms - 1_900 } });

    // Act
    await fencePublication(dynamo, TABLE, 'res-1', 'at', 99, options);

    // Assess
    expect(time.slept).toEqual([101]);
    expect(ddbMock.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead).toBe(true);
  });

  it('gives up with FenceTimeoutError when a claim stays live past its bound', async () => {
    // Prepare: a claim that names an expiry far away, renewed on every read.
    const { time, options } = fakeTime();
    ddbMock.on(UpdateCommand).callsFake(() => Promise.reject(heldBy(time.ms + 3_600_000)));

    // Act
    const fencing = fencePublication(dynamo, TABLE, 'res-1', 'at', 99, { ...options, maxWaitMs: 10_000 });

    // Assess: no wait beyond maxWaitMs; the error says what to do.
    await expect(fencing).rejects.toBeInstanceOf(FenceTimeoutError);
    await expect(fencing).rejects.toThrow(/run it again/);
    expect(time.ms - 1_000_000).toBe(10_000);
  });

  it('says how long the claim held it up, and names itself in logs and stack traces', async () => {
    // Prepare: a claim renewed on every read; the bound is 12 s.
    const { time, options } = fakeTime();
    ddbMock.on(UpdateCommand).callsFake(() => Promise.reject(heldBy(time.ms + 3_600_000)));

    // Act
    const fencing = fencePublication(dynamo, TABLE, 'res-1', 'at', 99, { ...options, maxWaitMs: 12_000 });

    // Assess: the operator reads 12 s (not ms, not the clock's epoch), from a FenceTimeoutError.
    await expect(fencing).rejects.toThrow('held its publication claim for 12 s:');
    await expect(fencing).rejects.toMatchObject({ name: 'FenceTimeoutError', waitedMs: 12_000 });
  });

  it('gives up at its bound, not a poll later, when the bound falls between two polls', async () => {
    // Prepare: polls every 250 ms, a bound 100 ms past the 40th.
    const { time, options } = fakeTime();
    ddbMock.on(UpdateCommand).callsFake(() => Promise.reject(heldBy(time.ms + 3_600_000)));

    // Act
    const fencing = fencePublication(dynamo, TABLE, 'res-1', 'at', 99, { ...options, maxWaitMs: 10_100 });

    // Assess: the last wait is cut to the bound.
    await expect(fencing).rejects.toBeInstanceOf(FenceTimeoutError);
    expect(time.ms - 1_000_000).toBe(10_100);
    expect(time.slept.at(-1)).toBe(100);
  });

  it('tries again when the record that refused it is gone by the time it is read (TTL expiry)', async () => {
    // Prepare: the update is refused without the record; the read then finds none; the next try fences.
    const { time, options } = fakeTime();
    ddbMock
      .on(UpdateCommand)
      .rejectsOnce(Object.assign(new Error('failed'), { name: 'ConditionalCheckFailedException' }))
      .resolves({});
    ddbMock.on(GetCommand).resolves({});

    // Act
    const result = await fencePublication(dynamo, TABLE, 'res-1', 'at', 99, options);

    // Assess: one poll's wait, then fenced.
    expect(result).toEqual({ waitedMs: 250, replacedRecord: false });
    expect(time.slept).toEqual([250]);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(2);
  });

  it('a claim watched for a whole claim life is over, however far ahead its expiry says (clocks apart)', async () => {
    // Prepare: a claimer whose clock runs an hour fast; its claim never changes; the update succeeds
    // only once the condition names that very claim.
    const { time, options } = fakeTime();
    const until = time.ms + 3_600_000;
    ddbMock
      .on(UpdateCommand)
      .callsFake((input) =>
        input.ConditionExpression.includes(':seenToken')
          ? Promise.resolve({})
          : Promise.reject(heldBy(until)),
      );

    // Act
    const result = await fencePublication(dynamo, TABLE, 'res-1', 'at', 99, {
      ...options,
      maxClaimLifeMs: 100_000,
    });

    // Assess: waited a claim's life as this clock measures it, then fenced that claim only.
    expect(result.waitedMs).toBe(100_000);
    const last = ddbMock.commandCalls(UpdateCommand).at(-1)!.args[0].input;
    expect(last.ConditionExpression).toBe(
      'attribute_not_exists(#claimExpiresAt) OR #claimExpiresAt < :over OR (#claim = :seenToken AND #claimExpiresAt = :seenUntil)',
    );
    expect(last.ExpressionAttributeValues).toMatchObject({ ':seenToken': 'm-1', ':seenUntil': until });
  });

  describe('with its defaults (the clock and timers of the process)', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('tries again a quarter second after a refusal, not at once (DynamoDB is not hammered)', async () => {
      // Prepare: a claim live for a minute, given up after the first refusal.
      ddbMock
        .on(UpdateCommand)
        .rejectsOnce(heldBy(Date.now() + 60_000))
        .resolves({});

      // Act
      const fencing = fencePublication(dynamo, TABLE, 'res-1', 'at', 99);
      await vi.advanceTimersByTimeAsync(249);
      const before = ddbMock.commandCalls(UpdateCommand).length;
      await vi.advanceTimersByTimeAsync(1);

      // Assess: the second try waited the whole default poll.
      expect(before).toBe(1);
      await expect(fencing).resolves.toEqual({ waitedMs: 250, replacedRecord: false });
      expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(2);
    });
  });

  it('watches a claim its holder renews afresh: fenced a claim life after the renewal, never in a busy loop', async () => {
    // Prepare: a claimer whose clock runs an hour fast; 50 s in, the same delivery (a redelivered
    // message) claims again with a later expiry. The update honours the condition as DynamoDB would.
    const { time, options } = fakeTime();
    const started = time.ms;
    const first = started + 3_600_000;
    const renewed = first + 50_000;
    const until = () => (time.ms >= started + 50_000 ? renewed : first);
    ddbMock.on(UpdateCommand).callsFake((input) => {
      if (ddbMock.commandCalls(UpdateCommand).length > 50)
        return Promise.reject(new Error('tried too often'));
      const values = input.ExpressionAttributeValues;
      return values[':seenToken'] === 'm-1' && values[':seenUntil'] === until()
        ? Promise.resolve({})
        : Promise.reject(heldBy(until()));
    });

    // Act
    const result = await fencePublication(dynamo, TABLE, 'res-1', 'at', 99, {
      ...options,
      pollMs: 10_000,
      maxClaimLifeMs: 100_000,
    });

    // Assess: a whole claim life after the renewal was seen, one try per poll.
    expect(result.waitedMs).toBe(150_000);
    expect(ddbMock.commandCalls(UpdateCommand).at(-1)!.args[0].input.ExpressionAttributeValues).toMatchObject(
      {
        ':seenToken': 'm-1',
        ':seenUntil': renewed,
      },
    );
  });

  it('throws what is not a condition failure', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));

    // Act / Assess
    await expect(fencePublication(dynamo, TABLE, 'res-1', 'at', 99, fakeTime().options)).rejects.toThrow(
      'throttled',
    );
  });

  it('claims and marks refuse a fenced record; a refetch claim takes it', () => {
    // Act / Assess
    expect(unlessFenced('A OR B')).toBe('attribute_not_exists(#erasedAt) AND (A OR B)');
    expect(reopeningFence('A OR B')).toBe(
      '(A OR B) OR (attribute_exists(#erasedAt) AND attribute_not_exists(#status))',
    );
  });
});
