import {
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadRetentionCheckConfig } from '../../shared/config';
import { ConfigError } from '../../shared/errors';

const s3Mock = mockClient(S3Client);
const ddbMock = mockClient(DynamoDBDocumentClient);

const ENVIRONMENT = {
  IDV_ENVIRONMENT: 'production',
  IDV_RESULTS_TABLE: 'results',
  IDV_DATA_BUCKET: 'data',
  IDV_RETENTION_DAYS: '30',
  IDV_ANALYTICS_BUCKET: 'analytics',
};

describe('retention-check function', () => {
  beforeEach(() => {
    s3Mock.reset();
    ddbMock.reset();
    vi.resetModules();
    for (const [name, value] of Object.entries(ENVIRONMENT)) vi.stubEnv(name, value);
  });

  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('reads its configuration through one loader, naming a missing variable', () => {
    // Act / Assess
    expect(loadRetentionCheckConfig(ENVIRONMENT)).toMatchObject({
      retentionDays: 30,
      analyticsBucketName: 'analytics',
    });
    expect(
      loadRetentionCheckConfig({ ...ENVIRONMENT, IDV_ANALYTICS_BUCKET: '' }).analyticsBucketName,
    ).toBeUndefined();
    expect(() => loadRetentionCheckConfig({ ...ENVIRONMENT, IDV_RETENTION_DAYS: undefined })).toThrow(
      ConfigError,
    );
    expect(() => loadRetentionCheckConfig({ ...ENVIRONMENT, IDV_RETENTION_DAYS: undefined })).toThrow(
      /IDV_RETENTION_DAYS/,
    );
  });

  it('emits ResultsPastRetention with the count of what it found', async () => {
    // Prepare: one item 40 days past its TTL, one old object version, one old projection row.
    const old = new Date(Date.now() - 90 * 86_400_000);
    ddbMock.on(ScanCommand).resolves({
      Items: [{ resultId: 'old-1', expiresAt: Math.floor(Date.now() / 1000) - 40 * 86_400 }],
    });
    s3Mock.on(ListObjectVersionsCommand).resolves({
      Versions: [{ Key: 'results/old-1/result.json', VersionId: 'v1', LastModified: old }],
    });
    s3Mock.on(ListMultipartUploadsCommand).resolves({});
    s3Mock.on(ListObjectsV2Command).resolves({
      Contents: [{ Key: 'analytics/results/day=2026-01-01/old-1.stored.json', LastModified: old }],
    });
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void printed.push(String(line)));
    vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void printed.push(String(line)));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
    const { handler } = await import('../../functions/retention-check/handler');

    // Act
    const report = await handler();

    // Assess
    vi.restoreAllMocks();
    expect(report.pastRetention).toEqual({ items: 1, objectVersions: 1, projectionRows: 1 });
    const emf = printed.map((line) => line.trim()).find((line) => line.includes('"ResultsPastRetention"'));
    expect(emf, printed.join('\n')).toBeDefined();
    expect(JSON.parse(emf!)).toMatchObject({ ResultsPastRetention: 3, environment: 'production' });
  });
});
