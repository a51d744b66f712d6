import { describe, expect, it } from 'vitest';
import type { SizeFigures } from '../../bench/sizes';
import {
  type CostAssumptions,
  fullCost,
  lambdaMemoryFor,
  lambdaSeconds,
  storagePerResult,
  xraySampledShare,
} from '../../bench/support/cost-model';
import { costTable, profileCosts } from '../../bench/support/cost-section';
import { PRICE_SOURCES, PRICES, readUnitsOf } from '../../bench/support/prices';
import { newTraceHeader } from '../../bench/support/trace-header';

const ASSUMPTIONS: CostAssumptions = {
  retentionDays: 30,
  logRetentionDays: 30,
  memoryMb: 256,
  resultsPerSecond: 0.1,
  tracedFunctions: 2,
  coldStartShare: 0.05,
  initSeconds: 1,
  pollEnqueueShare: 0,
  webhookCpuMs: 1,
  webhookWaitMs: 15,
  waf: false,
  bucketKeys: true,
  storageClasses: false,
  earlyReadsPerObject: 2,
  lateReadsPerObject: 0.1,
  erasedShare: 0,
  erasedAtDay: 30,
  eventBytes: 1024,
  platformLogBytes: 700,
  webhookLogBytes: 400,
  accessLogBytes: 450,
};

const RUN = {
  ms: 500,
  cpuMs: 100,
  peakRssBytes: 120 * 1024 * 1024,
  requests: {
    DYNAMODB: { GetItem: 2, PutItem: 1, UpdateItem: 2 },
    S3: { PutObject: 5, DeleteObjects: 1 },
    EVENTBRIDGE: { PutEvents: 1 },
  },
  logBytes: 800,
  itemBytes: 1500,
  indexesWritten: 3,
};
const COLD = { SECRETS_MANAGER: { GetSecretValue: 2 } };
const line = (cost: ReturnType<typeof fullCost>, service: string) =>
  cost.lines.find((l) => l.service === service)!;

describe('full cost model (issue 25, item 3)', () => {
  it('has a source for every price, and a date and region', () => {
    // Act
    const names = Object.keys(PRICES).filter((k) => k !== 'region' && k !== 'date');

    // Assess
    expect(Object.keys(PRICE_SOURCES).sort()).toEqual(names.sort());
    for (const url of Object.values(PRICE_SOURCES)) expect(url).toMatch(/^https:\/\/aws\.amazon\.com\//);
    expect(PRICES.date).toMatch(/^\d{4}-\d{2}$/);
  });

  it('stores 200 MB of images for 30 days at about $3.4 per 1,000 results (the issue figure)', () => {
    // Act: 40 images of 3.75 MiB (the 200mb profile's 150 MiB decoded), 30 days + 2 of overhang
    const { standard } = storagePerResult({ images: 40, imageBytes: 3840 * 1024 }, ASSUMPTIONS);

    // Assess
    expect(standard.days).toBe(32);
    expect(1000 * standard.storage).toBeCloseTo((150 / 1024) * 0.023 * (32 / (365 / 12)) * 1000, 6);
    expect(1000 * standard.storage).toBeGreaterThan(3.4);
    expect(1000 * standard.storage).toBeLessThan(3.7);
  });

  it('samples everything up to 1 trace a second, then 5 % of the rest', () => {
    // Act / Assess
    expect(xraySampledShare(0.1)).toBe(1);
    expect(xraySampledShare(1)).toBe(1);
    expect(xraySampledShare(21)).toBeCloseTo((1 + 0.05 * 20) / 21, 12);
  });

  it('bills the memory the peak needs, and CPU at the vCPU share of that memory', () => {
    // Act / Assess
    expect(lambdaMemoryFor(120 * 1024 * 1024, 256)).toBe(256);
    expect(lambdaMemoryFor(800 * 1024 * 1024, 256)).toBe(880);
    expect(lambdaSeconds(500, 100, 256)).toBeCloseTo(0.4 + 0.1 / (256 / 1769), 12);
    expect(lambdaSeconds(500, 100, 4096)).toBeCloseTo(0.5, 12);
  });

  it('adds every service, each with its arithmetic, and the total is their sum', () => {
    // Act
    const cost = fullCost(RUN, { images: 4, imageBytes: 192 * 1024 }, ASSUMPTIONS, COLD);

    // Assess
    expect(cost.lines.map((l) => l.service)).toEqual([
      'Lambda fetch-result',
      'Lambda cold starts (INIT)',
      'Webhook (API Gateway, WAF, Lambda)',
      'SQS',
      'DynamoDB',
      'S3 requests',
      'S3 storage',
      'S3 transitions',
      'S3 reads',
      'KMS',
      'Secrets Manager',
      'EventBridge (events, archive)',
      'Analytics (Firehose, transform)',
      'CloudWatch Logs',
      'X-Ray',
    ]);
    expect(cost.total).toBeCloseTo(
      cost.lines.reduce((n, l) => n + l.usd, 0),
      12,
    );
    // X-Ray: 2 traces per result at $5/M = $0.01 per 1,000.
    expect(line(cost, 'X-Ray').usd).toBeCloseTo(0.01, 12);
    // S3: 5 PUTs; DeleteObjects is free.
    expect(line(cost, 'S3 requests').usd).toBeCloseTo(5 * 0.005, 12);
    // DynamoDB: 1 × (2 + 3) + 2 = 7 WRU and 2 RRU, plus storage.
    expect(line(cost, 'DynamoDB').usd).toBeGreaterThan(1000 * (7 * 0.625e-6 + 2 * 0.125e-6));
    expect(line(cost, 'DynamoDB').usd).toBeLessThan(1000 * (7 * 0.625e-6 + 2 * 0.125e-6) + 0.001);
    // Secrets: 0.05 cold starts × 2 GetSecretValue × $0.05/10k per result.
    expect(line(cost, 'Secrets Manager').usd).toBeCloseTo(1000 * 0.05 * 2 * 0.05e-4, 12);
    // Logs: 800 + 700 × 2 + 400 + 450 bytes at $0.50/GB, plus storage.
    expect(line(cost, 'CloudWatch Logs').usd).toBeGreaterThan((1000 * 3050 * 0.5) / 1024 ** 3);
    expect(line(cost, 'Lambda fetch-result').arithmetic).toContain('256 MB (peak RSS 120 MiB)');
  });

  it('charges KMS per object without Bucket Keys, WAF when it is on, nothing for tracing that is off', () => {
    // Act
    const base = fullCost(RUN, { images: 4, imageBytes: 192 * 1024 }, ASSUMPTIONS, COLD);
    const other = fullCost(
      RUN,
      { images: 4, imageBytes: 192 * 1024 },
      { ...ASSUMPTIONS, bucketKeys: false, waf: true, tracedFunctions: 0 },
      COLD,
    );

    // Assess: 5 GenerateDataKey at $0.03/10k; WAF $0.60/M
    expect(line(other, 'KMS').usd - line(base, 'KMS').usd).toBeCloseTo(1000 * 5 * 0.03e-4, 12);
    expect(
      line(other, 'Webhook (API Gateway, WAF, Lambda)').usd -
        line(base, 'Webhook (API Gateway, WAF, Lambda)').usd,
    ).toBeCloseTo(1000 * 0.6e-6, 12);
    expect(line(other, 'X-Ray').usd).toBe(0);
  });

  it('makes sampled trace headers as the Lambda runtime does', () => {
    // Act
    const header = newTraceHeader(Date.UTC(2026, 10, 27));

    // Assess
    expect(header).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=1$/);
    expect(header.slice(7, 15)).toBe((Date.UTC(2026, 10, 27) / 1000).toString(16));
  });
});

describe('DynamoDB read units', () => {
  it('bills a BatchGetItem per key read (the result state: item, publication, erasure), a GetItem as one', () => {
    expect(readUnitsOf({ BatchGetItem: 1, PutItem: 1, UpdateItem: 2 })).toBe(3);
    expect(readUnitsOf({ BatchGetItem: 1, GetItem: 2, Query: 1 })).toBe(6);
    expect(readUnitsOf(undefined)).toBe(0);
  });
});

describe('cost section', () => {
  it('costs the pipeline and the naive peer of a measured row, the peer at the memory its peak needs', () => {
    // Prepare: a 200mb-like row whose naive peer peaked at 800 MiB
    const row: SizeFigures = {
      profile: '200mb',
      ok: true,
      bodyBytes: 200 * 1024 * 1024,
      images: 40,
      store: {
        ms: 9000,
        cpuMs: 1700,
        mbPerSecond: 22,
        rssGrowthBytes: 0,
        peakRssBytes: 190 * 1024 ** 2,
        samples: [],
      },
      requests: RUN.requests,
      itemBytes: 500,
      indexesWritten: 3,
      logBytes: 800,
      coldStartRequests: COLD,
      naive: {
        ms: 8000,
        cpuMs: 3000,
        rssGrowthBytes: 0,
        peakRssBytes: 800 * 1024 ** 2,
        logBytes: 0,
        requests: RUN.requests,
        itemBytes: 500,
      },
    };

    // Act
    const [cost] = profileCosts([row, { ...row, profile: 'failed', ok: false }], ASSUMPTIONS);
    const table = costTable(cost ? [cost] : []);

    // Assess: the failed row is left out; 40 images of 3.75 MiB stored; the naive peer billed at 880 MB
    expect(cost?.shape).toEqual({ images: 40, imageBytes: 3840 * 1024 });
    expect(cost?.pipeline.memoryMb).toBe(256);
    expect(cost?.naive?.memoryMb).toBe(880);
    expect(table).toContain('pipeline');
    expect(table).toMatch(/naive\s+880/);
  });
});

describe('storage classes in the cost', () => {
  const SHAPE = { images: 20, imageBytes: 1920 * 1024 };
  const PLANNED: CostAssumptions = {
    ...ASSUMPTIONS,
    retentionDays: 90,
    storageClasses: { standardDays: 1, lateReadsPerObject: 0.1 },
    erasedShare: 0.01,
  };

  it("prices the plan's class, its transitions and its late reads' retrieval; Standard pays none of them", () => {
    // Act
    const planned = fullCost(RUN, SHAPE, PLANNED, COLD);
    const standard = fullCost(RUN, SHAPE, { ...PLANNED, storageClasses: false }, COLD);

    // Assess: 20 transitions into Glacier IR at $0.02/1k, per 1,000 results.
    expect(line(planned, 'S3 transitions').usd).toBeCloseTo(1000 * 20 * 0.02e-3, 12);
    expect(line(standard, 'S3 transitions').usd).toBe(0);
    expect(line(planned, 'S3 storage').arithmetic).toContain('GLACIER_IR');
    // Late reads pay the retrieval per GB in Glacier IR, not in Standard.
    expect(line(planned, 'S3 reads').usd).toBeGreaterThan(line(standard, 'S3 reads').usd);
    expect(line(planned, 'S3 storage').usd).toBeLessThan(line(standard, 'S3 storage').usd);
    // Everything else is the same run.
    const others = (c: ReturnType<typeof fullCost>) =>
      c.lines.filter((l) => !l.service.startsWith('S3 ')).map((l) => l.usd);
    expect(others(planned)).toEqual(others(standard));
  });

  it('bills an erased object in Glacier IR its 90 days: erasure makes the plan dearer, Standard cheaper', () => {
    // Act
    const kept = storagePerResult(SHAPE, { ...PLANNED, erasedShare: 0 });
    const erased = storagePerResult(SHAPE, { ...PLANNED, erasedShare: 1, erasedAtDay: 10 });

    // Assess
    expect(erased.planned.storage).toBeGreaterThan(0.97 * kept.planned.storage);
    expect(erased.standard.storage).toBeCloseTo((10 / 92) * kept.standard.storage, 12);
  });

  it('keeps objects too small to gain in Standard: no transitions for 50 KiB images', () => {
    // Act
    const cost = fullCost(RUN, { images: 1000, imageBytes: 50 * 1024 }, PLANNED, COLD);

    // Assess
    expect(line(cost, 'S3 transitions').usd).toBe(0);
    expect(line(cost, 'S3 storage').arithmetic).toContain('S3 Standard');
  });
});
