import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { athenaEngine, databaseOfWorkgroup } from '../../bin/cli/analytics-athena';
import { toCsv, toTable } from '../../bin/cli/output-format';
import { openLocalAnalytics } from '../../local/analytics-duckdb';
import { appendRecord, compactLocalProjection } from '../../local/analytics-store';
import { duckdbType, PROJECTION_COLUMNS } from '../../shared/analytics/columns';
import type { QueryEngine } from '../../shared/analytics/engine';
import { projectEvent } from '../../shared/analytics/projection';
import { restrictDays, SAVED_QUERY_NAMES, savedQuery } from '../../shared/analytics/queries';
import { DETAIL_TYPES } from '../../shared/events/names';

let dir: string;
let engine: QueryEngine;

function put(detailType: string, detail: Record<string, unknown>): void {
  appendRecord(dir, projectEvent({ 'detail-type': detailType, detail })!);
}

function stored(resultId: string, product: string, result: string, day: string, extra: object = {}): void {
  put(DETAIL_TYPES.resultStored, {
    resultId,
    product,
    status: 'STORED',
    result,
    sections: { identity: result },
    messages: result === 'APPROVED' ? [] : ['DOCUMENT_EXPIRED'],
    completed: `${day}T10:00:00.000Z`,
    storedAt: `${day}T10:00:04.000Z`,
    environment: 'staging',
    imageCount: 2,
    fileCount: 1,
    ...extra,
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idv-analytics-'));
  stored('a1', 'IDV_STANDARD', 'APPROVED', '2026-08-01');
  stored('a2', 'IDV_STANDARD', 'DISAPPROVED', '2026-08-01', {
    messages: ['DOCUMENT_EXPIRED', 'FACE_MISMATCH'],
  });
  stored('a3', 'RTW_PREMIUM', 'APPROVED', '2026-08-02', { storedAt: '2026-08-02T10:00:10.000Z' });
  // A repeated event changes nothing; what is compacted and what came in since are read together.
  stored('a3', 'RTW_PREMIUM', 'APPROVED', '2026-08-02', { storedAt: '2026-08-02T10:00:10.000Z' });
  await compactLocalProjection(dir);
  stored('a4', 'RTW_PREMIUM', 'TECHNICAL_REJECT', '2026-08-02', { messages: ['DOCUMENT_EXPIRED'] });
  // A webhook-only result: completion unknown, day from the storage time.
  stored('a5', 'IDV_LITE', 'APPROVED', '2026-08-03', { completed: undefined });
  // 404 first (recorded on another day), then served after all: one row, the STORED one.
  put(DETAIL_TYPES.resultUnavailable, {
    resultId: 'a3',
    status: 'UNAVAILABLE',
    reason: 'NOT_FOUND',
    recordedAt: '2026-07-31T23:00:00.000Z',
    environment: 'staging',
  });
  put(DETAIL_TYPES.resultUnavailable, {
    resultId: 'gone-1',
    product: 'IDV_LITE',
    status: 'UNAVAILABLE',
    reason: 'NOT_FOUND',
    recordedAt: '2026-08-02T08:00:00.000Z',
    environment: 'staging',
  });
  // Approved, then overturned by a manual review (a changed verdict: version 2 of the same result).
  stored('a6', 'IDV_LITE', 'APPROVED', '2026-08-05', { transactionId: 'tx-a6' });
  put(DETAIL_TYPES.resultChanged, {
    transactionId: 'tx-a6',
    resultId: 'a6',
    previousResultId: 'a6',
    version: 2,
    previousVersion: 1,
    result: 'DISAPPROVED',
    previousResult: 'APPROVED',
    sections: { identity: 'DISAPPROVED' },
    previousSections: { identity: 'APPROVED' },
    messages: ['FRAUD_SUSPECTED'],
    product: 'IDV_LITE',
    completed: '2026-08-06T09:00:00.000Z',
    previousCompleted: '2026-08-05T10:00:00.000Z',
    storedAt: '2026-08-06T09:00:05.000Z',
    environment: 'staging',
    storage: { table: 't', bucket: 'b', resultKey: 'results/a6/versions/2/result.json' },
  });
  engine = await openLocalAnalytics(dir, { compact: false });
});

afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the results view on DuckDB', () => {
  it('has exactly the projection columns, with their types', async () => {
    // Act
    const answer = await engine.query('SELECT * FROM results LIMIT 0');

    // Assess
    expect(answer.columns).toEqual(
      PROJECTION_COLUMNS.map((c) => ({ name: c.name, type: duckdbType(c.kind) })),
    );
  });

  it('holds exactly one row per result (its latest version), the STORED one when a result was unavailable first', async () => {
    // Act
    const counts = await engine.query('SELECT count(*) AS n, count(DISTINCT result_id) AS d FROM results');
    const a3 = await engine.query("SELECT status, day FROM results WHERE result_id = 'a3'");

    // Assess
    expect(counts.rows).toEqual([{ n: 7, d: 7 }]);
    expect(a3.rows).toEqual([{ status: 'STORED', day: '2026-08-02' }]);
  });

  it('filters on TIMESTAMP and day literals and answers timestamps as ISO strings', async () => {
    // Act
    const answer = await engine.query(
      "SELECT result_id, completed FROM results WHERE completed >= TIMESTAMP '2026-08-02 00:00:00' AND day >= '2026-08-02' ORDER BY result_id",
    );

    // Assess
    expect(answer.rows).toEqual([
      { result_id: 'a3', completed: '2026-08-02T10:00:00.000Z' },
      { result_id: 'a4', completed: '2026-08-02T10:00:00.000Z' },
      { result_id: 'a6', completed: '2026-08-06T09:00:00.000Z' },
    ]);
  });

  it('is empty, with the same columns, before anything was projected', async () => {
    // Prepare
    const empty = mkdtempSync(join(tmpdir(), 'idv-analytics-empty-'));
    const fresh = await openLocalAnalytics(empty);

    // Act
    const answer = await fresh.query('SELECT * FROM results');
    await fresh.close();
    rmSync(empty, { recursive: true, force: true });

    // Assess
    expect(answer.rows).toEqual([]);
    expect(answer.columns.map((c) => c.name)).toEqual(PROJECTION_COLUMNS.map((c) => c.name));
  });

  it('reports a bad query with the engine message', async () => {
    // Act
    const failing = engine.query('SELEC 1');

    // Assess
    await expect(failing).rejects.toThrow(/syntax error/);
  });
});

describe('every saved query runs unchanged on DuckDB', () => {
  it.each(SAVED_QUERY_NAMES)('%s', async (name) => {
    // Act
    const answer = await engine.query(savedQuery(name).sql);

    // Assess
    expect(answer.rows.length).toBeGreaterThan(0);
    for (const row of answer.rows) {
      for (const value of Object.values(row)) expect(typeof value).not.toBe('bigint');
    }
  });

  it('answers the questions right', async () => {
    // Act
    const outcomes = await engine.query(savedQuery('results-by-product-and-outcome').sql);
    const rates = await engine.query(savedQuery('approval-rate-by-product-per-day').sql);
    const rejects = await engine.query(savedQuery('top-reject-messages').sql);
    const unavailable = await engine.query(savedQuery('unavailable-results').sql);
    const timing = await engine.query(savedQuery('time-completed-to-stored').sql);

    // Assess
    expect(outcomes.rows).toContainEqual({ product: 'IDV_STANDARD', outcome: 'DISAPPROVED', results: 1 });
    expect(outcomes.rows).toContainEqual({ product: 'IDV_LITE', outcome: 'UNAVAILABLE', results: 1 });
    expect(rates.rows).toContainEqual({
      day: '2026-08-01',
      product: 'IDV_STANDARD',
      results: 2,
      approved: 1,
      approval_rate_pct: 50,
    });
    expect(rejects.rows[0]).toEqual({ message: 'DOCUMENT_EXPIRED', results: 2 });
    expect(unavailable.rows.map((r) => r['result_id'])).toEqual(['gone-1']);
    // A changed verdict: the results view holds its latest version, result_rows one row per version.
    const overturned = await engine.query(savedQuery('overturned-verdicts').sql);
    expect(overturned.rows).toEqual([
      {
        transaction_id: 'tx-a6',
        result_id: 'a6',
        previous_result_id: 'a6',
        version: 2,
        changed_at: '2026-08-06T09:00:00.000Z',
        from_result: 'APPROVED',
        to_result: 'DISAPPROVED',
        product: 'IDV_LITE',
        day: '2026-08-06',
      },
    ]);
    const latest = await engine.query("SELECT result, version FROM results WHERE result_id = 'a6'");
    expect(latest.rows).toEqual([{ result: 'DISAPPROVED', version: 2 }]);
    const versions = await engine.query(
      "SELECT version, result FROM result_rows WHERE result_id = 'a6' ORDER BY version",
    );
    expect(versions.rows).toEqual([
      { version: 1, result: 'APPROVED' },
      { version: 2, result: 'DISAPPROVED' },
    ]);
    expect(timing.rows).toContainEqual({
      product: 'RTW_PREMIUM',
      results: 2,
      median_seconds: 7,
      p90_seconds: 10,
      max_seconds: 10,
    });
  });

  it('restricts every FROM results to the days asked for', async () => {
    // Act
    const sql = restrictDays(savedQuery('results-by-product-and-outcome').sql, {
      since: '2026-08-02',
      until: '2026-08-02',
    });
    const answer = await engine.query(sql);

    // Assess
    expect(answer.rows.map((r) => `${r['product']}:${r['outcome']}`).sort()).toEqual([
      'IDV_LITE:UNAVAILABLE',
      'RTW_PREMIUM:APPROVED',
      'RTW_PREMIUM:TECHNICAL_REJECT',
    ]);
    expect(() => restrictDays('SELECT 1 FROM results', { since: "2026-01-01' OR 1=1 --" })).toThrow(
      RangeError,
    );
  });
});

describe('output formats', () => {
  const rows = [
    { product: 'IDV_LITE', n: 12, messages: ['A', 'B'] },
    { product: 'say "hi", ok', n: 3, messages: null },
  ];

  it('csv has a header and RFC 4180 quoting', () => {
    // Assess
    expect(toCsv(['product', 'n', 'messages'], rows)).toBe(
      'product,n,messages\nIDV_LITE,12,"A, B"\n"say ""hi"", ok",3,\n',
    );
  });

  it('table aligns columns, numbers to the right', () => {
    // Act
    const lines = toTable(['product', 'n'], rows).split('\n');

    // Assess
    expect(lines[0]).toBe('product        n');
    expect(lines[2]).toBe('IDV_LITE      12');
    expect(lines[3]).toBe('say "hi", ok   3');
  });
});

describe('the Athena engine', () => {
  const athenaMock = mockClient(AthenaClient);
  beforeEach(() => athenaMock.reset());

  it('starts in the workgroup, waits, pages through the results and converts the values', async () => {
    // Prepare
    athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athenaMock
      .on(GetQueryExecutionCommand)
      .resolvesOnce({ QueryExecution: { Status: { State: 'RUNNING' } } })
      .resolves({
        QueryExecution: { Status: { State: 'SUCCEEDED' }, Statistics: { DataScannedInBytes: 42 } },
      });
    const metadata = {
      ColumnInfo: [
        { Name: 'product', Type: 'varchar' },
        { Name: 'n', Type: 'bigint' },
        { Name: 'completed', Type: 'timestamp' },
        { Name: 'messages', Type: 'array' },
      ],
    };
    athenaMock
      .on(GetQueryResultsCommand, { QueryExecutionId: 'q-1', NextToken: undefined })
      .resolves({
        NextToken: 'page-2',
        ResultSet: {
          ResultSetMetadata: metadata,
          Rows: [
            {
              Data: [
                { VarCharValue: 'product' },
                { VarCharValue: 'n' },
                { VarCharValue: 'completed' },
                { VarCharValue: 'messages' },
              ],
            },
            {
              Data: [
                { VarCharValue: 'IDV_LITE' },
                { VarCharValue: '12' },
                { VarCharValue: '2026-08-10 12:00:03.512' },
                { VarCharValue: '[A, B]' },
              ],
            },
          ],
        },
      })
      .on(GetQueryResultsCommand, { QueryExecutionId: 'q-1', NextToken: 'page-2' })
      .resolves({
        ResultSet: {
          ResultSetMetadata: metadata,
          Rows: [{ Data: [{ VarCharValue: 'RTW_NL' }, { VarCharValue: '3' }, {}, { VarCharValue: '[]' }] }],
        },
      });
    const states: string[] = [];
    const athena = athenaEngine({
      athena: new AthenaClient({ region: 'eu-west-1' }),
      workgroup: 'idv-pipeline-staging-analytics',
      database: databaseOfWorkgroup('idv-pipeline-staging-analytics'),
      sleep: async () => undefined,
    });

    // Act
    const answer = await athena.query('SELECT 1', (state) => states.push(state));

    // Assess
    expect(athenaMock.commandCalls(StartQueryExecutionCommand)[0]!.args[0].input).toEqual({
      QueryString: 'SELECT 1',
      WorkGroup: 'idv-pipeline-staging-analytics',
      QueryExecutionContext: { Database: 'idv_pipeline_staging' },
    });
    expect(states).toEqual(['running', 'succeeded, 42 bytes scanned']);
    expect(answer.rows).toEqual([
      { product: 'IDV_LITE', n: 12, completed: '2026-08-10T12:00:03.512Z', messages: ['A', 'B'] },
      { product: 'RTW_NL', n: 3, completed: null, messages: [] },
    ]);
  });

  it('fails with Athena’s own reason', async () => {
    // Prepare
    athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-2' });
    athenaMock.on(GetQueryExecutionCommand).resolves({
      QueryExecution: {
        Status: {
          State: 'FAILED',
          StateChangeReason: "COLUMN_NOT_FOUND: line 1:8: Column 'nope' cannot be resolved",
        },
      },
    });
    const athena = athenaEngine({
      athena: new AthenaClient({ region: 'eu-west-1' }),
      workgroup: 'wg',
      database: 'db',
      sleep: async () => undefined,
    });

    // Act
    const failing = athena.query('SELECT nope FROM results');

    // Assess
    await expect(failing).rejects.toThrow("COLUMN_NOT_FOUND: line 1:8: Column 'nope' cannot be resolved");
  });
});
