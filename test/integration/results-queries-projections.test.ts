import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  listResults,
  type ResultsQueryDeps,
  resultsByReference,
  resultsByTransaction,
} from '../../shared/queries/results';
import type { ResultItem } from '../../shared/store/item';
import { resultsTableDefinition } from '../../shared/store/table-schema';
import { clientConfig, type LocalAws, startLocalAws } from '../support/local-aws';

/**
 * The analyst queries against a table whose indexes project what the deployed table's do (keys only,
 * `result`/`product` on the day index — dynalite honours projections): the answers are the whole items,
 * in index order, exactly as they were with indexes that projected everything.
 */
describe('results queries over key-only indexes', () => {
  let aws: LocalAws;
  let deps: ResultsQueryDeps;
  let dynamo: DynamoDBDocumentClient;
  const items: ResultItem[] = [];

  beforeAll(async () => {
    aws = await startLocalAws();
    const raw = new DynamoDBClient(clientConfig(aws, 'dynamodb'));
    dynamo = DynamoDBDocumentClient.from(raw);
    const tableName = 'projections-test';
    await raw.send(new CreateTableCommand(resultsTableDefinition(tableName)));
    // 230 results of one transaction and reference on one day (three BatchGetItem calls of at most
    // 100 keys), their completion times out of insertion order.
    for (let i = 0; i < 230; i++) {
      const n = (i * 37) % 230;
      items.push({
        resultId: `r-${String(i).padStart(3, '0')}`,
        status: 'STORED',
        transactionId: 'tx-many',
        customerReference: 'ref-many',
        product: i % 2 === 0 ? 'IDV_STANDARD' : 'RTW_PREMIUM',
        completed: `2025-03-04T10:${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.000Z`,
        completedKnown: true,
        completedDay: '2025-03-04',
        result: i % 3 === 0 ? 'DECLINED' : 'APPROVED',
        sections: { identity: 'APPROVED' },
        messages: ['REASON_A'],
        bucket: 'b',
        resultKey: `results/r-${i}/result.json`,
        objects: [
          {
            key: `results/r-${i}/images/00-PASSPORT-FRONT.jpg`,
            contentType: 'image/jpeg',
            bytes: 3,
            sha256: 'x',
          },
        ],
        document: { result: 'APPROVED', identity: { data: { name: { lastName: 'Doe' } } } },
        storedAt: '2025-03-04T11:00:00.000Z',
        expiresAt: 1_900_000_000,
      } as ResultItem);
    }
    for (let i = 0; i < items.length; i += 25) {
      await dynamo.send(
        new BatchWriteCommand({
          RequestItems: { [tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    }
    deps = { dynamo, s3: new S3Client(clientConfig(aws, 's3')), tableName };
  }, 60_000);

  afterAll(async () => {
    dynamo?.destroy();
    await aws?.close();
  });

  const inCompletedOrder = (list: ResultItem[]) =>
    [...list].sort((a, b) => a.completed.localeCompare(b.completed));

  it('answers by transaction and by reference with the whole items, oldest first', async () => {
    // Act
    const byTransaction = await resultsByTransaction(deps, 'tx-many');
    const byReference = await resultsByReference(deps, 'ref-many');

    // Assess
    expect(byTransaction).toEqual(inCompletedOrder(items));
    expect(byReference).toEqual(inCompletedOrder(items));
  });

  it('filters the day index by result and product before reading any item', async () => {
    // Act
    const declined = await listResults(deps, {
      since: new Date('2025-03-04T00:00:00Z'),
      until: new Date('2025-03-04T23:59:59Z'),
      result: 'DECLINED',
      product: 'RTW_PREMIUM',
    });

    // Assess
    const expected = items.filter((item) => item.result === 'DECLINED' && item.product === 'RTW_PREMIUM');
    expect(declined.length).toBeGreaterThan(0);
    expect(declined).toEqual(inCompletedOrder(expected));
  });

  it('answers an empty list for an unknown transaction', async () => {
    // Act
    const none = await resultsByTransaction(deps, 'tx-unknown');

    // Assess
    expect(none).toEqual([]);
  });
});
