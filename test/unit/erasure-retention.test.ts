import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListMultipartUploadsCommand, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkRetention, expirySchedule, type RetentionDeps } from '../../shared/erasure/retention';

const s3Mock = mockClient(S3Client);
const ddbMock = mockClient(DynamoDBDocumentClient);

const NOW = new Date('2026-09-01T12:00:00.000Z');
const DAY = 86_400_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

function deps(projection: { resultId: string; writtenAt: Date }[] = []): RetentionDeps {
  return {
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
    s3: new S3Client({ region: 'eu-west-1' }),
    tableName: 'results',
    bucketName: 'data',
    dialect: 'aws',
    projection: async () => projection,
    now: () => NOW,
  };
}

describe('retention', () => {
  beforeEach(() => {
    s3Mock.reset();
    ddbMock.reset();
    s3Mock.on(ListMultipartUploadsCommand).resolves({});
    ddbMock
      .on(ScanCommand)
      .resolvesOnce({
        Items: [
          { resultId: 'expired-long-ago', expiresAt: seconds(NOW.getTime() - 5 * DAY), objectCount: 3 },
          { resultId: 'expired-yesterday', expiresAt: seconds(NOW.getTime() - DAY), objectCount: 1 },
        ],
        LastEvaluatedKey: { resultId: 'expired-yesterday' },
      })
      .resolves({
        Items: [
          { resultId: 'fresh', expiresAt: seconds(NOW.getTime() + 10 * DAY) },
          { resultId: 'fresh#publication', expiresAt: seconds(NOW.getTime() - 50 * DAY) },
          { resultId: 'gone#erasure', expiresAt: seconds(NOW.getTime() + 900 * DAY) },
        ],
      });
  });

  it('lists results and objects by the day their retention ends, records left out', async () => {
    // Act
    const days = await expirySchedule(deps());

    // Assess
    expect(days).toEqual([
      { day: '2026-08-27', results: 1, objects: 4 },
      { day: '2026-08-31', results: 1, objects: 2 },
      { day: '2026-09-11', results: 1, objects: 1 },
    ]);
    expect(ddbMock.commandCalls(ScanCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({
      resultId: 'expired-yesterday',
    });
  });

  it('reports items, object versions and rows past retention + grace, not those within it', async () => {
    // Prepare: retention 30 days, grace 2: written before 2026-07-31T12:00Z is past.
    s3Mock.on(ListObjectVersionsCommand).resolves({
      Versions: [
        {
          Key: 'results/old-object/result.json',
          VersionId: 'v1',
          LastModified: new Date('2026-07-20T00:00:00Z'),
        },
        {
          Key: 'results/recent/result.json',
          VersionId: 'v2',
          LastModified: new Date('2026-08-15T00:00:00Z'),
        },
      ],
      DeleteMarkers: [
        {
          Key: 'results/marker-only/result.json',
          VersionId: 'm1',
          LastModified: new Date('2026-07-01T00:00:00Z'),
        },
      ],
    });
    const projection = [
      { resultId: 'old-row', writtenAt: new Date('2026-07-01T00:00:00Z') },
      { resultId: 'new-row', writtenAt: new Date('2026-08-31T00:00:00Z') },
    ];

    // Act
    const report = await checkRetention(deps(projection), { retentionDays: 30 });

    // Assess
    expect(report).toEqual({
      checkedAt: NOW.toISOString(),
      retentionDays: 30,
      graceDays: 2,
      pastRetention: { items: 1, objectVersions: 1, projectionRows: 1 },
      total: 3,
      resultIds: ['expired-long-ago', 'old-object', 'old-row'],
    });
  });
});
