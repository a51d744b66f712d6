/**
 * `idv analytics query --local` runs the analyst's SQL sandboxed (local/analytics-duckdb.ts): one query
 * statement, no file outside the projection, no COPY/ATTACH/INSTALL/LOAD/SET, and the refusal says why.
 * The refusals hold at DuckDB's level (a read-only snapshot, no external access), so a statement that
 * passes the kind check (`EXPLAIN ANALYZE COPY … TO`) still writes nothing, in the projection or beside it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotDirs } from '../../local/analytics-snapshots';
import { runIdvInProcess } from '../support/cli';
import { appendApprovedResult } from '../support/projection';

let dataDir: string;
let outside: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'idv-sandbox-'));
  outside = mkdtempSync(join(tmpdir(), 'idv-sandbox-out-'));
  appendApprovedResult(dataDir, 'a1');
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function query(sql: string): Promise<{ code: number; out: string; err: string }> {
  return runIdvInProcess(['analytics', 'query', '--local', '--data-dir', dataDir, '--', sql]);
}

/** The projection as an analyst and the disk see it: its rows, and the bytes of its files. */
async function projection(): Promise<{ rows: unknown; files: Record<string, string> }> {
  const run = await query('SELECT result_id, status, result FROM results ORDER BY result_id');
  const dir = join(dataDir, 'analytics');
  const files = Object.fromEntries(
    readdirSync(dir).map((name) => [name, readFileSync(join(dir, name)).toString('base64')]),
  );
  return { rows: JSON.parse(run.out), files };
}

describe('idv analytics query --local sandbox', () => {
  it('answers a query over the results view', async () => {
    // Act
    const run = await query('SELECT result_id, result FROM results');

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual([{ result_id: 'a1', result: 'APPROVED' }]);
  });

  it.each([
    [
      "EXPLAIN ANALYZE COPY (SELECT 'forged' AS result_id) TO 'PROJ/incoming.jsonl'",
      /Permission Error|disabled by configuration|read-only/,
    ],
    [
      "EXPLAIN ANALYZE COPY (SELECT * FROM results) TO 'OUT/leak.csv'",
      /Permission Error|disabled by configuration|read-only/,
    ],
    ["COPY (SELECT 'x' AS result_id) TO 'PROJ/incoming.jsonl'", /Permission Error|not a COPY statement/],
    ["SELECT * FROM read_text('/etc/passwd')", /Permission Error/],
    ["SELECT * FROM read_parquet('PROJ/results.parquet')", /Permission Error/],
    ['EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1', /read-only|Cannot execute statement|not a/],
    ["SELECT 1; COPY (SELECT 1) TO 'OUT/leak.csv'", /2 statements given/],
    [
      "SELECT * FROM read_text('/etc/hostname')",
      /Permission Error: Cannot access file "\/etc\/hostname"[\s\S]*reads only the results view/,
    ],
    ["SELECT * FROM read_csv('/etc/passwd')", /Permission Error/],
    [
      "COPY (SELECT * FROM results) TO 'OUT/leak.csv'",
      /Permission Error: Cannot access file|not a COPY statement: the local engine is read-only/,
    ],
    ["ATTACH 'OUT/other.db'", /not a ATTACH statement/],
    ['INSTALL httpfs', /not a EXTENSION statement|not a LOAD statement/],
    ['LOAD httpfs', /not a LOAD statement/],
    ['SET enable_external_access = true', /not a (SET|VARIABLE_SET) statement/],
    // EXPLAIN passes the kind check and ANALYZE runs the SET: only the locked configuration refuses it.
    ["EXPLAIN ANALYZE SET memory_limit = '64GB'", /configuration has been locked[\s\S]*settings are off/],
    ['EXPLAIN ANALYZE RESET temp_directory', /configuration has been locked/],
    ['CREATE TABLE t AS SELECT 1', /not a CREATE statement/],
    ['SELECT 1; SELECT 2', /2 statements given; one query runs at a time \(nothing was run\)/],
    // No statement at all: DuckDB's client fails it without a message of its own.
    ['-- only a comment', /^idv: no SQL statement given\n/],
  ])('refuses %s with a clear error, writing nothing', async (sql, message) => {
    // Prepare
    const before = await projection();

    // Act
    const run = await query(sql.replaceAll('OUT', outside).replaceAll('PROJ', join(dataDir, 'analytics')));

    // Assess
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toMatch(message);
    expect(existsSync(join(outside, 'leak.csv'))).toBe(false);
    expect(existsSync(join(outside, 'other.db'))).toBe(false);
    expect(await projection()).toEqual(before);
    expect(snapshotDirs(dataDir)).toEqual([]);
  });

  it('leaves no copy of the projection behind once a query has answered', async () => {
    // Act
    const run = await query('SELECT count(*) AS n FROM results');

    // Assess: the snapshot held every row; erasure never reaches a copy that outlives its command.
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual([{ n: 1 }]);
    expect(snapshotDirs(dataDir)).toEqual([]);
  });

  it("prints DuckDB's error as one message, without a blank line for the line break it may end in", async () => {
    // Act: the analyst's own error, ending in a line break (as some of DuckDB's do).
    const run = await query("SELECT error('stopped by the analyst' || chr(10))");

    // Assess
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toBe('idv: Invalid Input Error: stopped by the analyst\n');
  });
});
