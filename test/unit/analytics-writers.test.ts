import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attachAnalyticsSink } from '../../local/analytics-sink';
import type { PipelineEvent } from '../../shared/analytics/projection';
import { reportText } from '../../shared/analytics/report';
import { reportHtml } from '../../shared/analytics/report-html';
import { writeProjectionObject } from '../../shared/analytics/writer';
import { DETAIL_TYPES } from '../../shared/events/names';

const storedEvent = (resultId: string): PipelineEvent => ({
  'detail-type': DETAIL_TYPES.resultStored,
  detail: { resultId, status: 'STORED', result: 'APPROVED', storedAt: '2026-08-10T12:00:00Z', messages: [] },
});

describe('the projector core', () => {
  const s3Mock = mockClient(S3Client);
  beforeEach(() => s3Mock.reset());

  it('puts one object at the deterministic key of the record', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).resolves({});

    // Act
    const outcome = await writeProjectionObject(
      new S3Client({ region: 'eu-west-1' }),
      'analytics',
      storedEvent('r-1'),
    );

    // Assess
    expect(outcome).toEqual({ written: 'analytics/results/day=2026-08-10/r-1.stored.json' });
    const input = s3Mock.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      Bucket: 'analytics',
      Key: 'analytics/results/day=2026-08-10/r-1.stored.json',
    });
    expect(JSON.parse(String(input.Body))).toMatchObject({ result_id: 'r-1', status: 'STORED' });
    expect(input.ServerSideEncryption).toBeUndefined();
  });

  it('skips events that are not about a result, without calling S3', async () => {
    // Act
    const outcome = await writeProjectionObject(new S3Client({ region: 'eu-west-1' }), 'analytics', {
      'detail-type': DETAIL_TYPES.documentsUploaded,
      detail: { transactionId: 't' },
    });

    // Assess
    expect(outcome).toEqual({ skipped: 'not a result event' });
    expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(0);
  });
});

describe('the local analytics sink', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-sink-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  function fakeBus() {
    const listeners: ((event: PipelineEvent) => void)[] = [];
    return {
      on: (listener: (event: PipelineEvent) => void) => {
        listeners.push(listener);
        return () => undefined;
      },
      emit: (event: PipelineEvent) => {
        for (const listener of listeners) listener(event);
      },
    };
  }

  it('writes each result event as it is accepted, and reports (never throws) one it cannot project', () => {
    // Prepare
    const bus = fakeBus();
    const reports: string[] = [];
    attachAnalyticsSink(bus, dataDir, (line) => reports.push(line));

    // Act
    bus.emit(storedEvent('r-1'));
    bus.emit(storedEvent('r-1'));
    bus.emit({ 'detail-type': DETAIL_TYPES.resultStored, detail: { resultId: '../x' } });

    // Assess
    const day = join(dataDir, 'analytics', 'results', 'day=2026-08-10');
    expect(readdirSync(day)).toEqual(['r-1.stored.json']);
    expect(readFileSync(join(day, 'r-1.stored.json'), 'utf8').split('\n')).toHaveLength(2);
    expect(reports).toEqual([
      'analytics: the VerificationResultStored event was not projected (ProjectionError: VerificationResultStored event without a valid resultId: not projected)',
    ]);
  });

  it('fills a data directory from before the projection from its events.jsonl, once', () => {
    // Prepare
    writeFileSync(
      join(dataDir, 'events.jsonl'),
      `${JSON.stringify(storedEvent('old-1'))}\n${JSON.stringify({ 'detail-type': 'VerificationDocumentsUploaded', detail: {} })}\n`,
    );

    // Act
    attachAnalyticsSink(fakeBus(), dataDir, () => undefined);

    // Assess
    expect(existsSync(join(dataDir, 'analytics', 'results', 'day=2026-08-10', 'old-1.stored.json'))).toBe(
      true,
    );
  });
});

describe('the report', () => {
  const data = {
    source: 'test',
    since: '2026-08-01',
    generatedAt: '2026-08-31T00:00:00.000Z',
    byProductOutcome: [
      { product: 'IDV_LITE', outcome: 'APPROVED', results: 3 },
      { product: 'IDV_LITE', outcome: 'DISAPPROVED', results: 1 },
    ],
    approvalByDay: [
      { day: '2026-08-01', product: 'IDV_LITE', results: 4, approved: 3, approval_rate_pct: 75 },
    ],
    topRejectMessages: [{ message: '<script>alert(1)</script>', results: 1 }],
    unavailable: [],
    timing: [{ product: 'IDV_LITE', results: 4, median_seconds: 2.5, p90_seconds: 4, max_seconds: 4 }],
  };

  it('summarises in text', () => {
    // Act
    const text = reportText(data);

    // Assess
    expect(text).toContain('Results, since 2026-08-01 (test)');
    expect(text).toContain('4 result(s): 3 APPROVED, 1 DISAPPROVED');
    expect(text).toContain('Approval rate: 75% of 4 stored result(s)');
    expect(text).toContain('IDV_LITE       median 2.5  p90 4  max 4');
  });

  it('renders one page with inline SVG, escaped text and no external reference', () => {
    // Act
    const html = reportHtml(data);

    // Assess
    expect(html).toContain('<svg');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).not.toMatch(/\b(src|href)\s*=|@import|url\(/i);
  });
});
