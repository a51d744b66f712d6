import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLocalAnalytics } from '../../local/analytics-duckdb';
import { attachAnalyticsSink } from '../../local/analytics-sink';
import { compactLocalProjection, localIncomingFiles } from '../../local/analytics-store';
import type { PipelineEvent } from '../../shared/analytics/projection';
import { reportText } from '../../shared/analytics/report';
import { reportHtml } from '../../shared/analytics/report-html';
import { DETAIL_TYPES } from '../../shared/events/names';

const storedEvent = (resultId: string): PipelineEvent => ({
  'detail-type': DETAIL_TYPES.resultStored,
  detail: { resultId, status: 'STORED', result: 'APPROVED', storedAt: '2026-08-10T12:00:00Z', messages: [] },
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

  it('appends each result event as it is accepted, and reports (never throws) one it cannot project', () => {
    // Prepare
    const bus = fakeBus();
    const reports: string[] = [];
    attachAnalyticsSink(bus, dataDir, (line) => reports.push(line));

    // Act
    bus.emit(storedEvent('r-1'));
    bus.emit(storedEvent('r-1'));
    bus.emit({ 'detail-type': DETAIL_TYPES.resultStored, detail: { resultId: '../x' } });

    // Assess
    const lines = readFileSync(join(dataDir, 'analytics', 'incoming.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((line) => JSON.parse(line).result_id)).toEqual(['r-1', 'r-1']);
    expect(reports).toEqual([
      'analytics: the VerificationResultStored event was not projected (ProjectionError: VerificationResultStored event without a valid resultId: not projected)',
    ]);
  });

  it('compacts into one Parquet file with one row per result: STORED replaces UNAVAILABLE, a repeat changes nothing', async () => {
    // Prepare
    const bus = fakeBus();
    attachAnalyticsSink(bus, dataDir, () => undefined);
    bus.emit({
      'detail-type': DETAIL_TYPES.resultUnavailable,
      detail: { resultId: 'r-1', status: 'UNAVAILABLE', recordedAt: '2026-08-09T12:00:00Z' },
    });
    bus.emit(storedEvent('r-1'));
    bus.emit(storedEvent('r-1'));
    bus.emit(storedEvent('r-2'));

    // Act
    const first = await compactLocalProjection(dataDir);
    bus.emit(storedEvent('r-2'));
    const second = await compactLocalProjection(dataDir);
    const engine = await openLocalAnalytics(dataDir);
    const rows = await engine.query(
      // After the compaction every row comes from the Parquet file (nothing is left incoming).
      'SELECT result_id, status FROM result_rows ORDER BY 1',
    );
    await engine.close();

    // Assess
    expect(first).toMatchObject({ rows: 2, merged: 4 });
    expect(second).toMatchObject({ rows: 2, merged: 1 });
    expect(rows.rows).toEqual([
      { result_id: 'r-1', status: 'STORED' },
      { result_id: 'r-2', status: 'STORED' },
    ]);
    expect(existsSync(join(dataDir, 'analytics', 'incoming.jsonl'))).toBe(false);
  });

  it('fills a data directory from before the projection from its events.jsonl, once, replacing the per-result JSON files', () => {
    // Prepare
    mkdirSync(join(dataDir, 'analytics', 'results', 'day=2026-08-10'), { recursive: true });
    writeFileSync(join(dataDir, 'analytics', 'results', 'day=2026-08-10', 'old-1.stored.json'), '{}\n');
    writeFileSync(
      join(dataDir, 'events.jsonl'),
      `${JSON.stringify(storedEvent('old-1'))}\n${JSON.stringify({ 'detail-type': 'VerificationDocumentsUploaded', detail: {} })}\n`,
    );

    // Act
    attachAnalyticsSink(fakeBus(), dataDir, () => undefined);

    // Assess
    // (the compaction the sink starts may already have moved the lines aside: read wherever they are)
    const lines = localIncomingFiles(dataDir).flatMap((file) =>
      readFileSync(file, 'utf8').trim().split('\n'),
    );
    expect(lines.map((line) => JSON.parse(line).result_id)).toEqual(['old-1']);
    expect(existsSync(join(dataDir, 'analytics', 'results'))).toBe(false);
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
    sectionOutcomes: [
      { section: 'identity', outcome: 'APPROVED', results: 3 },
      { section: 'identity', outcome: 'DISAPPROVED', results: 1 },
    ],
  };

  it('summarises in text', () => {
    // Act
    const text = reportText(data);

    // Assess
    expect(text).toContain('Results, since 2026-08-01 (test)');
    expect(text).toContain('4 result(s): 3 APPROVED, 1 DISAPPROVED');
    expect(text).toContain('Approval rate: 75% of 4 stored result(s)');
    expect(text).toContain('IDV_LITE       median 2.5  p90 4  max 4');
    expect(text).toContain('identity               3 APPROVED, 1 DISAPPROVED');
  });

  it('renders one page with inline SVG, escaped text and no external reference', () => {
    // Act
    const html = reportHtml(data);

    // Assess
    expect(html).toContain('<svg');
    for (const heading of [
      'Approval rate per day and product',
      'Top reject reasons',
      'Completed → stored: median and 90th percentile',
      'Section outcomes',
    ]) {
      expect(html).toContain(heading);
    }
    expect(html).toContain('<polyline');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).not.toMatch(/\b(src|href)\s*=|@import|url\(/i);
  });

  it('draws one day of data: a dot per product, since a line of one point shows nothing', () => {
    // Act (the data above holds a single day)
    const html = reportHtml(data);

    // Assess
    const lines = html.slice(html.indexOf('class="lines"'));
    expect(lines).toMatch(
      /<circle cx="[\d.]+" cy="[\d.]+" r="3.5" fill="#0072b2"><title>IDV_LITE 2026-08-01: 75% approved \(3 of 4\)<\/title><\/circle>/,
    );
  });
});
