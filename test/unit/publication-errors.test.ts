/**
 * A claim, mark or release that DynamoDB did not decide (throttling, a 500) is never read as a decision:
 * `Publications` lets the error through, and the batch then reports the record as failed, so SQS delivers
 * it again; only a failed condition means "held by another delivery" or "already marked". Against the
 * document client (aws-sdk-client-mock) and the batch as the fetch-result handler runs it.
 */
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  DynamoDBServiceException,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { processResultsBatch, type ResultsBatchDeps } from '../../shared/pipeline/results-batch';
import {
  isPublicationKey,
  namesIn,
  Publications,
  publicationKey,
  publishedAtOf,
} from '../../shared/store/publication';
import { NO_TRACER } from '../../shared/tracing';
import { FakePublisher, FakeSource, FakeStore, memoryLogger } from '../support/pipeline-fakes';

const ddbMock = mockClient(DynamoDBDocumentClient);
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const NOW = 1_800_000_000_000;
const CLAIM = { token: 'm-1', expiresAt: NOW + 60_000 };
/** A publication record a delivery holds. */
const HOLDER = { resultId: 'r-1#publication', status: 'STORED', claim: 'm-2', claimExpiresAt: NOW + 60_000 };

const throttled = () => new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: {} });
const serverError = () =>
  new DynamoDBServiceException({
    name: 'InternalServerError',
    $fault: 'server',
    $metadata: { httpStatusCode: 500 },
    message: 'internal error',
  });
const conditionFailed = (item?: Record<string, unknown>) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    ...(item && { Item: marshall(item) }),
  });

beforeEach(() => {
  ddbMock.reset();
});

describe('Publications: only a failed condition is a decision', () => {
  it.each([
    ['throttled', throttled],
    ['500', serverError],
  ])('a %s claim rejects: never "claimed elsewhere"', async (_, error) => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(error());

    // Act / Assess
    await expect(new Publications(dynamo, 't').claim('r-1', 'STORED', CLAIM, NOW)).rejects.toThrow(
      error().message,
    );
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('a failed condition is a refusal, with the record DynamoDB returned (no second read)', async () => {
    // Prepare
    ddbMock
      .on(UpdateCommand)
      .rejects(conditionFailed({ resultId: 'r-1#publication', status: 'STORED', claim: 'm-2' }));

    // Act
    const result = await new Publications(dynamo, 't').claim('r-1', 'STORED', CLAIM, NOW);

    // Assess
    expect(result).toEqual({
      claimed: false,
      record: { resultId: 'r-1#publication', status: 'STORED', claim: 'm-2' },
    });
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('a failed condition without the record reads it, strongly consistent', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(conditionFailed());
    ddbMock.on(GetCommand).resolves({ Item: { resultId: 'r-1#publication', status: 'UNAVAILABLE' } });

    // Act
    const result = await new Publications(dynamo, 't').claim('r-1', 'STORED', CLAIM, NOW);

    // Assess
    expect(result).toEqual({
      claimed: false,
      record: { resultId: 'r-1#publication', status: 'UNAVAILABLE' },
    });
    expect(ddbMock.commandCalls(GetCommand)[0]!.args[0].input).toEqual({
      TableName: 't',
      Key: { resultId: 'r-1#publication' },
      ConsistentRead: true,
    });
  });

  it.each([
    ['throttled', throttled],
    ['500', serverError],
  ])('a %s mark or release rejects; a failed condition is a no-op', async (_, error) => {
    // Prepare
    const publications = new Publications(dynamo, 't');
    ddbMock.on(UpdateCommand).rejects(error());

    // Act / Assess
    await expect(publications.mark('r-1', 'STORED', '2027-01-01T00:00:00.000Z')).rejects.toThrow(
      error().message,
    );
    await expect(publications.release('r-1', 'm-1')).rejects.toThrow(error().message);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());
    await expect(publications.mark('r-1', 'STORED', '2027-01-01T00:00:00.000Z')).resolves.toBeUndefined();
    await expect(publications.release('r-1', 'm-1')).resolves.toBeUndefined();
  });

  it('sends the claim, mark and release as conditional updates of the publication record', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({});
    const publications = new Publications(dynamo, 't');

    // Act
    const claimed = await publications.claim('r-1', 'UNAVAILABLE', CLAIM, NOW, 1_900_000_000);
    await publications.mark('r-1', 'UNAVAILABLE', '2027-01-01T00:00:00.000Z', 1_900_000_000);
    await publications.release('r-1', 'm-1');

    // Assess
    expect(claimed).toEqual({ claimed: true });
    const [claim, mark, release] = ddbMock.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(claim).toMatchObject({
      TableName: 't',
      Key: { resultId: 'r-1#publication' },
      UpdateExpression:
        'SET #status = :status, #claim = :token, #claimExpiresAt = :until, #expiresAt = :ttl REMOVE #publishedAt, #erasedAt',
      ExpressionAttributeValues: {
        ':status': 'UNAVAILABLE',
        ':token': 'm-1',
        ':until': NOW + 60_000,
        ':now': NOW,
        ':ttl': 1_900_000_000,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(mark).toMatchObject({
      UpdateExpression:
        'SET #status = :status, #publishedAt = :at, #expiresAt = :ttl REMOVE #claim, #claimExpiresAt, #claimVersion',
      ExpressionAttributeValues: {
        ':status': 'UNAVAILABLE',
        ':at': '2027-01-01T00:00:00.000Z',
        ':ttl': 1_900_000_000,
      },
    });
    expect(release).toMatchObject({
      UpdateExpression: 'REMOVE #claim, #claimExpiresAt, #claimVersion',
      ConditionExpression: '#claim = :token',
      // Each name the expressions use, and no other (DynamoDB refuses an unused one).
      ExpressionAttributeNames: {
        '#claim': 'claim',
        '#claimExpiresAt': 'claimExpiresAt',
        '#claimVersion': 'claimVersion',
      },
      ExpressionAttributeValues: { ':token': 'm-1' },
    });
  });
});

describe('the batch fails a record whose claim, mark or release DynamoDB did not decide', () => {
  function batch(results: Map<string, unknown>) {
    // The in-memory store, but the publication record's writes go to `Publications` on the mocked client.
    const store = new FakeStore();
    const publisher = new FakePublisher();
    const deps: ResultsBatchDeps = {
      source: new FakeSource(results),
      store,
      publications: new Publications(dynamo, 't'),
      publisher,
      environment: 'staging',
      retentionDays: 7,
      logger: memoryLogger().logger,
    };
    const run = async (resultId: string) =>
      (
        await processResultsBatch(
          [{ messageId: 'm-1', body: JSON.stringify({ resultId, source: 'poll' }) }],
          {
            deps,
            tracer: NO_TRACER,
            metrics: { addMetric: () => undefined } as never,
            // A Lambda invocation's time left: its deadline bounds the claim.
            remainingMs: () => 90_000,
          },
        )
      ).batchItemFailures.map((f) => f.itemIdentifier);
    return { store, publisher, run };
  }

  it.each([
    ['throttled', throttled],
    ['500', serverError],
  ])(
    'a %s claim (result found, or 404): not acknowledged, nothing written or announced',
    async (_, error) => {
      // Prepare
      ddbMock.on(UpdateCommand).rejects(error());
      const { store, publisher, run } = batch(new Map([['found', { result: 'APPROVED' }]]));

      // Act
      const found = await run('found');
      const gone = await run('gone');

      // Assess
      expect([found, gone]).toEqual([['m-1'], ['m-1']]);
      expect(store.items.size).toBe(0);
      expect(publisher.stored).toEqual([]);
      expect(publisher.unavailable).toEqual([]);
    },
  );

  it('a claim refused by a held record with nothing stored: not acknowledged', async () => {
    // Prepare
    ddbMock
      .on(UpdateCommand)
      .rejects(conditionFailed({ resultId: 'r#publication', status: 'STORED', claim: 'm-9' }));
    const { store, run } = batch(new Map());

    // Act
    const failures = await run('gone');

    // Assess
    expect(failures).toEqual(['m-1']);
    expect(store.items.size).toBe(0);
  });

  it('a throttled mark after the publish: not acknowledged (the redelivery marks; at least once)', async () => {
    // Prepare: the claim succeeds, the mark is throttled.
    ddbMock.on(UpdateCommand).resolvesOnce({}).rejects(throttled());
    const { store, publisher, run } = batch(new Map([['found', { result: 'APPROVED' }]]));

    // Act
    const failures = await run('found');

    // Assess
    expect(failures).toEqual(['m-1']);
    expect(store.items.get('found')?.status).toBe('STORED');
    expect(publisher.stored).toHaveLength(1);
  });

  it('a body that cannot be stored, then a throttled release: not acknowledged, the claim left to expire', async () => {
    // Prepare: the claim succeeds, the release is throttled; the body is not JSON that can be stored.
    ddbMock.on(UpdateCommand).resolvesOnce({}).rejects(throttled());
    const { store, publisher, run } = batch(new Map([['broken', [1, 2, 3]]]));

    // Act
    const failures = await run('broken');

    // Assess
    expect(failures).toEqual(['m-1']);
    const updates = ddbMock.commandCalls(UpdateCommand).map((c) => c.args[0].input.UpdateExpression);
    expect(updates).toHaveLength(2);
    expect(updates[1]).toBe('REMOVE #claim, #claimExpiresAt, #claimVersion');
    expect(store.items.size).toBe(0);
    expect(publisher.stored).toEqual([]);
  });
});

describe('publication record keys and marks', () => {
  it('keys a record beside its result, and tells the two apart', () => {
    // Act / Assess
    expect(publicationKey('r-1')).toBe('r-1#publication');
    expect(isPublicationKey('r-1#publication')).toBe(true);
    expect(isPublicationKey('r-1')).toBe(false);
    expect(isPublicationKey('#publication-r-1')).toBe(false);
  });

  it('names each attribute an expression uses once, and refuses a name the record does not have', () => {
    // Act / Assess
    expect(namesIn('SET #status = :s REMOVE #claim', 'attribute_not_exists(#pk) OR #claim = :t')).toEqual({
      '#status': 'status',
      '#claim': 'claim',
      '#pk': 'resultId',
    });
    expect(() => namesIn('SET #claimed = :t')).toThrow(
      '#claimed is not an attribute of the publication record',
    );
  });

  it('sends no TTL value when none is given', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({});
    const publications = new Publications(dynamo, 't');

    // Act
    await publications.claim('r-1', 'STORED', CLAIM, NOW);
    await publications.mark('r-1', 'STORED', '2027-01-01T00:00:00.000Z');

    // Assess
    for (const call of ddbMock.commandCalls(UpdateCommand)) {
      expect(Object.keys(call.args[0].input.ExpressionAttributeValues ?? {})).not.toContain(':ttl');
      expect(call.args[0].input.UpdateExpression).not.toContain(':ttl');
    }
  });

  it('reads an item`s publication from its own mark first, else from a record of its own status', () => {
    // Prepare
    const stored = { status: 'STORED' as const };
    const record = { status: 'STORED' as const, publishedAt: 'from-record' };

    // Act / Assess
    expect(publishedAtOf({ ...stored, eventPublishedAt: 'own' }, record)).toBe('own');
    expect(publishedAtOf(stored, record)).toBe('from-record');
    expect(publishedAtOf(stored, { status: 'UNAVAILABLE', publishedAt: 'other' })).toBeUndefined();
    expect(publishedAtOf(stored, undefined)).toBeUndefined();
  });

  it('reads a later version as published only once the record says that version is out', () => {
    // Prepare: version 2 of a stored result; its record about version 1, then version 2, then 3.
    const second = { status: 'STORED' as const, version: 2 };
    const first = { status: 'STORED' as const, publishedAt: 'first' };

    // Act / Assess
    expect(publishedAtOf(second, first)).toBeUndefined();
    expect(publishedAtOf(second, { ...first, version: 1 })).toBeUndefined();
    expect(publishedAtOf(second, { ...first, publishedAt: 'second', version: 2 })).toBe('second');
    expect(publishedAtOf(second, { ...first, publishedAt: 'third', version: 3 })).toBe('third');
    expect(publishedAtOf({ status: 'STORED' }, { ...first, version: 2 })).toBe('first');
  });

  it.each([
    [
      'a fence',
      (p: Publications) => p.fence('r-1', '2027-02-01T00:00:00.000Z', 1_910_000_000, { overBefore: NOW }),
      { fenced: false, holder: HOLDER },
    ],
    [
      'a later version`s claim',
      (p: Publications) => p.claim('r-1', 'STORED', CLAIM, NOW, undefined, 2),
      { claimed: false, record: HOLDER },
    ],
  ] as const)(
    '%s refused by a live claim names its holder from DynamoDB`s answer, without a second read',
    async (_, write, refused) => {
      // Prepare: DynamoDB returns the record with the failed condition only when asked to (ALL_OLD).
      ddbMock.on(UpdateCommand).callsFake((input: { ReturnValuesOnConditionCheckFailure?: string }) => {
        throw conditionFailed(input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' ? HOLDER : undefined);
      });
      ddbMock.on(GetCommand).resolves({ Item: HOLDER });

      // Act
      const outcome = await write(new Publications(dynamo, 't'));

      // Assess: one request, not two (a fence waits on a held record in a loop; a claim is on every delivery).
      expect(outcome).toEqual(refused);
      expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
    },
  );
});
