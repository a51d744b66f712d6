/**
 * Tests that would catch a loss (docs/reliability.md): each fails on a small breaking change that the
 * rest of the suite let through.
 */
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ResponseFormatError } from '../../shared/client/errors';
import { processMessage } from '../../shared/pipeline/fetch-result';
import { buildUnavailableItem } from '../../shared/store/item';
import { ResultStore } from '../../shared/store/result-store';
import { FakePublisher, FakeStore, memoryLogger, sourceOf } from '../support/pipeline-fakes';

const ddb = mockClient(DynamoDBDocumentClient);

function store(): ResultStore {
  return new ResultStore({
    s3: new S3Client({ region: 'eu-west-1' }),
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
    bucket: 'bucket',
    table: 'table',
  });
}

const item = buildUnavailableItem({
  hints: { resultId: 'r-1', source: 'poll' },
  storedAt: '2026-08-11T08:00:00.000Z',
  retentionDays: 30,
});

describe('ResultStore conditional puts', () => {
  beforeEach(() => ddb.reset());

  it.each(['putStoredItem', 'putUnavailableItem'] as const)(
    '%s lets a throttling error propagate (only a failed condition means "already there")',
    async (method) => {
      // Prepare
      ddb
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
      ddb
        .on(PutCommand)
        .rejects(
          new ConditionalCheckFailedException({ message: 'exists', $metadata: {}, Item: marshall(old) }),
        );
      ddb.on(GetCommand).resolves({ Item: { status: 'STORED', publishedAt: '2026-08-11T08:01:00.000Z' } });

      // Act
      const put = await store()[method](item);

      // Assess
      expect(put).toEqual({
        written: false,
        current: { ...old, eventPublishedAt: '2026-08-11T08:01:00.000Z' },
      });
      expect(ddb.commandCalls(PutCommand)[0]!.args[0].input.ReturnValuesOnConditionCheckFailure).toBe(
        'ALL_OLD',
      );
      const reads = ddb.commandCalls(GetCommand).map((call) => call.args[0].input.Key);
      expect(reads).toEqual([{ resultId: 'r-1#publication' }]);
    },
  );

  it('a refused claim answers with the publication record DynamoDB returned, with no second read', async () => {
    // Prepare
    const record = { status: 'STORED', publishedAt: '2026-08-11T08:01:00.000Z' };
    ddb
      .on(UpdateCommand)
      .rejects(
        new ConditionalCheckFailedException({ message: 'held', $metadata: {}, Item: marshall(record) }),
      );

    // Act
    const result = await store().claimPublication('r-1', 'STORED', { token: 't', expiresAt: 2 }, 1);

    // Assess
    expect(result).toEqual({ claimed: false, record });
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input.ReturnValuesOnConditionCheckFailure).toBe(
      'ALL_OLD',
    );
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it.each(['putStoredItem', 'putUnavailableItem'] as const)(
    '%s reads the item again when the failure came without it',
    async (method) => {
      // Prepare
      ddb.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));
      ddb.on(GetCommand).resolves({});

      // Act
      const put = await store()[method](item);

      // Assess
      expect(put).toEqual({ written: false, current: undefined });
      expect(ddb.commandCalls(GetCommand)).toHaveLength(2);
    },
  );
});

describe('fetch-result with a result body that is a JSON array', () => {
  it('fails the message (redelivered, then the DLQ) and stores and announces nothing', async () => {
    // Prepare
    const fakeStore = new FakeStore();
    const publisher = new FakePublisher();
    const deps = {
      source: sourceOf(async () => Buffer.from('[{"transactionId":"t"}]')),
      store: fakeStore,
      publisher,
      environment: 'staging' as const,
      retentionDays: 30,
      logger: memoryLogger().logger,
    };

    // Act
    const outcome = processMessage({ resultId: 'r-array', source: 'poll' }, deps);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(ResponseFormatError);
    await expect(outcome).rejects.toThrow('JSON that is not an object');
    expect(fakeStore.items.size).toBe(0);
    expect(fakeStore.objectWrites).toBe(0);
    expect(publisher.stored).toHaveLength(0);
    expect(publisher.unavailable).toHaveLength(0);
  });
});
