/**
 * The local query engine as `idv analytics query --local` opens it (local/analytics-duckdb.ts), in this
 * process: DuckDB bounded in memory and spill (the spill inside the snapshot's own directory), a statement
 * stopped at its time limit or by a signal, the projection compacted first unless the caller compacts,
 * and nothing left once the engine is closed or failed to open — no snapshot, no signal handler, no open
 * file on the removed copy of the rows. The snapshots live in a temporary directory of this file's own, so
 * another process's clean-up never races these tests.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openLocalAnalytics } from '../../local/analytics-duckdb';
import { SNAPSHOT_PREFIX, snapshotDirs } from '../../local/analytics-snapshots';
import { localAnalyticsDir, localParquetFile } from '../../local/analytics-store';
import { QueryError } from '../../shared/analytics/engine';
import { appendApprovedResult } from '../support/projection';

/** Twenty billion rows: seconds of work at least, on any machine, and a bounded amount of it. */
const SLOW = 'SELECT count(*) AS n FROM range(1000000000) a, range(20) b';

let privateTmp: string;
let dataDir: string;

beforeAll(() => {
  privateTmp = mkdtempSync(join(tmpdir(), 'idv-engine-tmp-'));
  vi.stubEnv('TMPDIR', privateTmp);
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(privateTmp, { recursive: true, force: true });
});
beforeEach(() => {
  dataDir = mkdtempSync(join(privateTmp, 'data-'));
  stored('a1');
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A stored result `resultId` as the local run appends it to the projection's incoming lines. */
function stored(resultId: string): void {
  appendApprovedResult(dataDir, resultId);
}

/** The signal and exit handlers this process has. */
function handlers(): Record<string, number> {
  return Object.fromEntries(
    (['SIGINT', 'SIGTERM', 'exit'] as const).map((event) => [event, process.listenerCount(event)]),
  );
}

/** The files under `dir` this process holds open (Linux: /proc/self/fd). */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(join('/proc/self/fd', fd));
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(dir));
}

describe('the local analytics engine', () => {
  it('caps DuckDB at 1GB of memory and 2GB of spill, spilled inside the snapshot it removes at close', async () => {
    // Prepare
    const engine = await openLocalAnalytics(dataDir);
    const [snapshot] = snapshotDirs(dataDir);

    // Act
    const answer = await engine.query(
      "SELECT current_setting('memory_limit') AS memory, current_setting('max_temp_directory_size') AS spill, current_setting('temp_directory') AS temp",
    );
    await engine.close();

    // Assess: DuckDB states the byte counts in binary units; its own defaults are 80 % of the memory
    // and 90 % of the free disk, in the system's temporary directory.
    expect(answer.rows).toEqual([{ memory: '953.6 MiB', spill: '1.8 GiB', temp: join(snapshot!, 'tmp') }]);
    expect(existsSync(snapshot!)).toBe(false);
  });

  it('closes leaving nothing: no snapshot, no signal handler, no open file on the removed copy of the rows', async () => {
    // Prepare
    const before = handlers();
    const engine = await openLocalAnalytics(dataDir);
    const [snapshot] = snapshotDirs(dataDir);
    await engine.query('SELECT count(*) AS n FROM results');

    // Act
    await engine.close();

    // Assess
    expect(snapshotDirs(dataDir)).toEqual([]);
    expect(handlers()).toEqual(before);
    if (existsSync('/proc/self/fd')) expect(openFilesUnder(snapshot!)).toEqual([]);
  });

  it('compacts the incoming lines before it copies them, unless told the run compacts', async () => {
    // Prepare
    const incoming = join(localAnalyticsDir(dataDir), 'incoming.jsonl');

    // Act
    const kept = await openLocalAnalytics(dataDir, { compact: false });
    const keptRows = await kept.query('SELECT result_id FROM results');
    await kept.close();
    const keptFiles = { parquet: existsSync(localParquetFile(dataDir)), incoming: existsSync(incoming) };
    const compacting = await openLocalAnalytics(dataDir);
    const compactedRows = await compacting.query('SELECT result_id FROM results');
    await compacting.close();

    // Assess: both see the row; only the default merged it into the Parquet file.
    expect(keptRows.rows).toEqual([{ result_id: 'a1' }]);
    expect(keptFiles).toEqual({ parquet: false, incoming: true });
    expect(compactedRows.rows).toEqual([{ result_id: 'a1' }]);
    expect(existsSync(localParquetFile(dataDir))).toBe(true);
    expect(existsSync(incoming)).toBe(false);
  });

  it('removes the snapshot, and its signal handlers, when the projection cannot be copied', async () => {
    // Prepare: a Parquet file that is not one.
    mkdirSync(localAnalyticsDir(dataDir), { recursive: true });
    writeFileSync(localParquetFile(dataDir), 'not parquet');
    const before = handlers();

    // Act
    const opening = openLocalAnalytics(dataDir, { compact: false });

    // Assess
    await expect(opening).rejects.toThrow(/parquet/i);
    expect(snapshotDirs(dataDir)).toEqual([]);
    expect(handlers()).toEqual(before);
  });

  it('removes a snapshot a crashed command left, telling onStale, and opens without onStale too', async () => {
    // Prepare: snapshots of a process that no longer runs (no pid reaches 2^31 - 1).
    const leftBehind = () => mkdtempSync(join(privateTmp, `${SNAPSHOT_PREFIX}2147483647-00000000-`));
    const first = leftBehind();
    const told: string[] = [];

    // Act
    const withCallback = await openLocalAnalytics(dataDir, { onStale: (dir) => told.push(dir) });
    await withCallback.close();
    const second = leftBehind();
    const without = await openLocalAnalytics(dataDir);
    const answer = await without.query('SELECT result_id FROM results');
    await without.close();

    // Assess
    expect(told).toEqual([first]);
    expect(existsSync(first)).toBe(false);
    expect(existsSync(second)).toBe(false);
    expect(answer.rows).toEqual([{ result_id: 'a1' }]);
  });
});

describe('a statement of the local analytics engine', () => {
  it('is stopped at its time limit, saying so; the engine answers the next one', async () => {
    // Prepare
    const engine = await openLocalAnalytics(dataDir, { timeoutSeconds: 0.5 });
    try {
      // Act
      const stopped = await engine.query(SLOW).catch((error: unknown) => error);
      const next = await engine.query('SELECT 42 AS answer');

      // Assess
      expect(stopped).toBeInstanceOf(QueryError);
      expect((stopped as Error).message).toMatch(
        /^the query ran past its time limit of 0\.5 s and was stopped \(--timeout-seconds N allows more\)$/,
      );
      expect(next.rows).toEqual([{ answer: 42 }]);
    } finally {
      await engine.close();
    }
  }, 20_000);

  it('leaves no timer behind once it answered, to hold the process open or interrupt a later one', async () => {
    // Prepare
    const engine = await openLocalAnalytics(dataDir);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // Act
      const answer = await engine.query('SELECT 1 AS one');

      // Assess
      expect(answer.rows).toEqual([{ one: 1 }]);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
      await engine.close();
    }
  });

  it('is interrupted by SIGINT, the snapshot removed and the process ended at once (exit code 130)', async () => {
    // Prepare
    const before = process.listeners('SIGINT');
    const engine = await openLocalAnalytics(dataDir);
    const [snapshot] = snapshotDirs(dataDir);
    const onSigint = process.listeners('SIGINT').find((listener) => !before.includes(listener))!;
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    try {
      let settled = false;
      const running = engine.query(SLOW).then(
        () => 'answered',
        (error: unknown) => error,
      );
      void running.finally(() => {
        settled = true;
      });

      // Act: the signal, as often as it takes to reach the statement once it runs.
      await vi.waitFor(
        () => {
          (onSigint as (signal: string) => void)('SIGINT');
          if (!settled) throw new Error('still running');
        },
        { timeout: 10_000, interval: 50 },
      );

      // Assess
      const outcome = await running;
      expect(outcome).toBeInstanceOf(QueryError);
      expect((outcome as Error).message).toMatch(/Interrupted/);
      expect(exit).toHaveBeenCalledWith(130);
      expect(existsSync(snapshot!)).toBe(false);
    } finally {
      await engine.close();
    }
  }, 20_000);

  it.each([
    ['-- only a comment', /^no SQL statement given$/],
    [';', /^no SQL statement given$/],
    ['SELEC 1', /Parser Error: syntax error at or near "SELEC"/],
    ['SELECT 1; SELECT 2', /^2 statements given; one query runs at a time \(nothing was run\)$/],
    [
      "SELECT * FROM read_text('/etc/hostname')",
      /^Permission Error: Cannot access file "\/etc\/hostname"[\s\S]* \(the local engine reads only the results view: files outside the projection, extensions, other databases and settings are off\)$/,
    ],
  ])('%s is refused with a message that says why', async (sql, message) => {
    // Prepare
    const engine = await openLocalAnalytics(dataDir);
    try {
      // Act
      const refused = await engine.query(sql).catch((error: unknown) => error);

      // Assess
      expect(refused).toBeInstanceOf(QueryError);
      expect((refused as Error).message).toMatch(message);
    } finally {
      await engine.close();
    }
  });

  it("reports an error in the analyst's own SQL as DuckDB words it, with no word on the sandbox", async () => {
    // Prepare: a name the analyst typed that reads like the sandbox's refusal.
    const engine = await openLocalAnalytics(dataDir);
    try {
      // Act
      const failed = await engine.query('SELECT * FROM "Permission Error"').catch((error: unknown) => error);

      // Assess
      expect(failed).toBeInstanceOf(QueryError);
      expect((failed as Error).message).toMatch(
        /^Catalog Error: Table with name Permission Error does not exist!/,
      );
      expect((failed as Error).message).not.toContain('reads only the results view');
    } finally {
      await engine.close();
    }
  });
});
