/**
 * The analyst's local SQL is bounded and leaves nothing (local/analytics-duckdb.ts,
 * local/analytics-snapshots.ts): a query past its time limit is stopped with a message naming the limit
 * and the flag; the snapshot lives in an owner-only directory that SIGTERM removes; one a SIGKILL left is
 * removed by the next analyst command, and by erasure — which refuses to finish the analytics row while
 * a live command's snapshot of the data directory exists.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openLocalAnalytics } from '../../local/analytics-duckdb';
import { SNAPSHOT_PREFIX } from '../../local/analytics-snapshots';
import { localErasureReaches } from '../../local/erase-local-files';
import { QueryError } from '../../shared/analytics/engine';
import { ROOT, run } from '../support/run-process';

/** A query that runs for minutes: long enough for any bound below. */
const ENDLESS = 'SELECT count(*) AS n FROM range(1000000000) a, range(1000000) b';

const dataDir = mkdtempSync(join(tmpdir(), 'idv-sql-bounds-'));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The snapshot directories of process `pid` in the temporary directory. */
function snapshotsOf(pid: number): string[] {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith(`${SNAPSHOT_PREFIX}${pid}-`))
    .map((name) => join(tmpdir(), name));
}

/** `idv analytics query --local` running `sql` in a child; resolves once its snapshot exists. */
async function queryInChild(sql: string): Promise<{ child: ChildProcess; snapshot: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bin/idv.ts', 'analytics', 'query', '--local', '--data-dir', dataDir, sql],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  const snapshot = await vi.waitFor(
    () => {
      if (child.exitCode !== null) return undefined;
      const [dir] = snapshotsOf(child.pid!);
      if (dir && existsSync(join(dir, 'results.duckdb'))) return dir;
      throw new Error('no snapshot yet');
    },
    { timeout: 30_000, interval: 50 },
  );
  if (snapshot === undefined) throw new Error(`the query ended early (${child.exitCode})`);
  return { child, snapshot };
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('analyst SQL is bounded and leaves nothing', () => {
  it('stops a statement at its time limit, naming the limit and the flag; the engine still answers', async () => {
    // Prepare
    const engine = await openLocalAnalytics(dataDir, { timeoutSeconds: 1 });
    try {
      // Act
      const stopped = await engine.query(ENDLESS).catch((error: unknown) => error);
      const after = await engine.query('SELECT 42 AS answer');

      // Assess
      expect(stopped).toBeInstanceOf(QueryError);
      expect((stopped as Error).message).toMatch(/time limit of 1 s .*--timeout-seconds/);
      expect(after.rows).toEqual([{ answer: 42 }]);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('refuses a bad --timeout-seconds and one given for Athena', async () => {
    // Act
    const idv = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'bin/idv.ts', ...args]);
    const [zero, athena] = await Promise.all([
      idv('analytics', 'query', '--local', '--data-dir', dataDir, '--timeout-seconds', '0', 'SELECT 1'),
      idv(
        'analytics',
        'query',
        '--workgroup',
        'wg',
        '--database',
        'db',
        '--timeout-seconds',
        '5',
        'SELECT 1',
      ),
    ]);

    // Assess
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--timeout-seconds must be a whole number of seconds/);
    expect(athena.code).toBe(2);
    expect(athena.stderr).toMatch(/--timeout-seconds applies to --local/);
  }, 60_000);

  it('keeps the snapshot owner-only and removes it on SIGTERM', async () => {
    // Prepare
    const { child, snapshot } = await queryInChild(ENDLESS);

    // Act
    const mode = statSync(snapshot).mode & 0o777;
    child.kill('SIGTERM');
    const end = await exited(child);

    // Assess
    expect(mode).toBe(0o700);
    expect(end.code).toBe(143);
    expect(existsSync(snapshot)).toBe(false);
  }, 60_000);

  it('a snapshot a SIGKILL left is removed by erasure and by the next analyst command', async () => {
    // Prepare: a live query holds a snapshot of the data directory.
    const live = await queryInChild(ENDLESS);
    const erasure = localErasureReaches(dataDir).projection;

    // Act: erasure while the query runs, then after a SIGKILL, then the next query after another kill.
    const whileLive = await erasure.remove('res-bounds-1', []).catch((error: unknown) => error);
    live.child.kill('SIGKILL');
    await exited(live.child);
    const leftByKill = existsSync(live.snapshot);
    const afterKill = await erasure.remove('res-bounds-1', []);
    const next = await queryInChild(ENDLESS);
    next.child.kill('SIGKILL');
    await exited(next.child);
    const nextQuery = await run(process.execPath, [
      '--import',
      'tsx',
      'bin/idv.ts',
      'analytics',
      'query',
      '--local',
      '--data-dir',
      dataDir,
      'SELECT 1 AS one',
    ]);

    // Assess
    expect(String(whileLive)).toMatch(
      new RegExp(`an analyst command \\(pid ${live.child.pid}\\) holds a snapshot`),
    );
    expect(leftByKill).toBe(true);
    expect(afterKill).toBe(0);
    expect(existsSync(live.snapshot)).toBe(false);
    expect(nextQuery.code, nextQuery.stderr).toBe(0);
    expect(nextQuery.stderr).toContain(`removed ${next.snapshot}`);
    expect(existsSync(next.snapshot)).toBe(false);
  }, 120_000);
});
