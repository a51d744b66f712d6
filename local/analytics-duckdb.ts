/**
 * The local query engine: DuckDB over the projection the local run writes (`<data-dir>/analytics/`:
 * `results.parquet` and the incoming JSON lines, `./analytics-store.ts`), with the same `result_rows`
 * table and `results` view
 * (names, columns, types, view SQL) as the Glue table and the Athena view, so a saved query runs
 * unchanged on both (docs/analytics.md).
 *
 * The analyst's SQL cannot write: the projection is first copied into a private database file (a 0700
 * temporary directory of its own, local/analytics-snapshots.ts: removed at close, on SIGINT/SIGTERM, and
 * by the next analyst command or erasure if a crash left it) holding only `result_rows` and the
 * `results` view; the
 * analyst's connection then opens that file with DuckDB's `access_mode=READ_ONLY`,
 * `enable_external_access=false` (no file, URL or other database at all: no `COPY … TO`, `ATTACH`,
 * `read_text`, even under `EXPLAIN ANALYZE`), no extension loading, and `lock_configuration=true` so no
 * statement can undo it. Each call prepares exactly one statement. The statement-kind check before it
 * only turns a refusal into a clear message; DuckDB's settings are what refuse.
 *
 * And it is bounded for a laptop: each statement is interrupted after its time limit
 * ({@link DEFAULT_QUERY_TIMEOUT_SECONDS} unless `idv analytics query --timeout-seconds` says otherwise),
 * DuckDB's memory is capped at {@link MEMORY_LIMIT} and what it spills to disk at {@link TEMP_LIMIT}, in the
 * snapshot's own directory (removed with it).
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type DuckDBConnection, DuckDBInstance, StatementType } from '@duckdb/node-api';
import { normalizeRows, type QueryAnswer, type QueryEngine, QueryError } from '../shared/analytics/engine';
import { RESULTS_RAW_TABLE, RESULTS_VIEW, resultsViewSql } from '../shared/analytics/queries';
import { DEFAULT_QUERY_TIMEOUT_SECONDS, MEMORY_LIMIT, TEMP_LIMIT } from './analytics-limits';
import { newSnapshotDir, removeOnSignal, removeStaleSnapshots } from './analytics-snapshots';
import { compactLocalProjection, localAnalyticsDir, rawRelationSql } from './analytics-store';

/** Bounds of every DuckDB instance over a snapshot: memory, and spill space inside `dir`. */
function boundsIn(dir: string): Record<string, string> {
  return {
    memory_limit: MEMORY_LIMIT,
    max_temp_directory_size: TEMP_LIMIT,
    temp_directory: join(dir, 'tmp'),
  };
}

/** Statement kinds the analyst may run: queries only. */
const QUERY_STATEMENTS: ReadonlySet<StatementType> = new Set([StatementType.SELECT, StatementType.EXPLAIN]);

/**
 * The analyst's connection: the snapshot read-only, nothing outside it, settings locked. Passed when the
 * database is opened, so they hold before the first statement runs.
 */
const ANALYST_CONFIG: Readonly<Record<string, string>> = {
  access_mode: 'READ_ONLY',
  enable_external_access: 'false',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
  lock_configuration: 'true',
};

/** What `extractStatements` of @duckdb/node-api says of SQL that holds no statement at all. */
const NATIVE_CALLBACK_ERROR = 'Error in native callback';

/** Options of {@link openLocalAnalytics}. */
export interface LocalAnalyticsOptions {
  /** Merge the incoming lines first. @default true */
  readonly compact?: boolean;
  /** Seconds a statement may run. @default DEFAULT_QUERY_TIMEOUT_SECONDS */
  readonly timeoutSeconds?: number;
  /** Told of each snapshot a crashed command left behind and this one removed. */
  readonly onStale?: (dir: string) => void;
}

/** Opens DuckDB on a read-only snapshot of the projection of `dataDir` (table and `results` view). */
export async function openLocalAnalytics(
  dataDir: string,
  options: LocalAnalyticsOptions = {},
): Promise<QueryEngine> {
  const dir = resolve(dataDir);
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_QUERY_TIMEOUT_SECONDS;
  // A copy a killed command left (it holds rows) goes before a new one is made.
  for (const stale of removeStaleSnapshots().removed) options.onStale?.(stale);
  // A query after a run merges what came in since its last compaction (skipped while the run compacts).
  if (options.compact !== false) await compactLocalProjection(dir);
  const snapshotDir = newSnapshotDir(dir);
  // A signal interrupts the running statement, so the process can end at once.
  let connection: DuckDBConnection | undefined;
  const release = removeOnSignal(snapshotDir, () => connection?.interrupt());
  const remove = () => {
    release();
    rmSync(snapshotDir, { recursive: true, force: true });
  };
  const snapshot = join(snapshotDir, 'results.duckdb');
  let instance: DuckDBInstance | undefined;
  try {
    await writeSnapshot(dir, snapshot, boundsIn(snapshotDir));
    instance = await DuckDBInstance.create(snapshot, { ...boundsIn(snapshotDir), ...ANALYST_CONFIG });
  } catch (error) {
    remove();
    throw error;
  }
  const opened = instance;
  const open = await opened.connect();
  connection = open;
  return {
    description: localAnalyticsDir(dir),
    async query(sql: string): Promise<QueryAnswer> {
      let reader: Awaited<ReturnType<typeof open.runAndReadAll>>;
      try {
        // The client fails SQL that holds no statement (only comments or semicolons) with a message of its
        // own, not DuckDB's ("Error in native callback"); DuckDB's parser errors come with their prefix.
        const statements = await open.extractStatements(sql).catch((error: unknown) => {
          if (error instanceof Error && error.message === NATIVE_CALLBACK_ERROR) return undefined;
          throw error;
        });
        if (statements === undefined) throw new QueryError('no SQL statement given');
        if (statements.count !== 1) {
          throw new QueryError(
            `${statements.count} statements given; one query runs at a time (nothing was run)`,
          );
        }
        const statement = await statements.prepare(0);
        if (!QUERY_STATEMENTS.has(statement.statementType)) {
          // Stryker disable next-line StringLiteral: wording of a refusal, for a kind the enum does not name
          const kind = StatementType[statement.statementType] ?? 'other';
          throw new QueryError(
            `only a query (SELECT, EXPLAIN) runs here, not a ${kind} statement: the local engine is read-only (nothing was run)`,
          );
        }
        // DuckDB has no statement timeout of its own: the connection is interrupted at the limit.
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          open.interrupt();
        }, timeoutSeconds * 1000);
        try {
          reader = await statement.runAndReadAll();
        } catch (error) {
          if (timedOut)
            throw new QueryError(
              `the query ran past its time limit of ${timeoutSeconds} s and was stopped (--timeout-seconds N allows more)`,
            );
          throw error;
        } finally {
          clearTimeout(timer);
        }
      } catch (error) {
        if (error instanceof QueryError) throw error;
        throw new QueryError(describeDuckDbError(error));
      }
      const names = reader.columnNames();
      const types = reader.columnTypes().map((t) => t.toString());
      const columns = names.map((name, i) => ({ name, type: types[i]! }));
      return { columns, rows: normalizeRows(columns, reader.getRowObjectsJson()) };
    },
    async close(): Promise<void> {
      try {
        open.closeSync();
        opened.closeSync();
      } finally {
        remove();
      }
    },
  };
}

/**
 * Copies the projection into the database file `file`: `result_rows` as a table (read from the Parquet
 * file and the incoming lines here, by a connection the analyst never gets) and the `results` view.
 */
async function writeSnapshot(dataDir: string, file: string, bounds: Record<string, string>): Promise<void> {
  const instance = await DuckDBInstance.create(file, bounds);
  const connection: DuckDBConnection = await instance.connect();
  try {
    const columnsOf = async (sql: string) =>
      new Set(
        (await connection.runAndReadAll(`DESCRIBE ${sql}`))
          .getRowObjectsJson()
          .map((row) => String(row['column_name'])),
      );
    await connection.run(`CREATE TABLE ${RESULTS_RAW_TABLE} AS ${await rawRelationSql(dataDir, columnsOf)}`);
    await connection.run(`CREATE VIEW ${RESULTS_VIEW} AS ${resultsViewSql()}`);
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** DuckDB's message, with a word on why file and extension access is refused. */
function describeDuckDbError(error: unknown): string {
  const message = error instanceof Error ? error.message.trim() : String(error);
  if (
    /^Permission Error/.test(message) ||
    /disabled (by|through) configuration|configuration has been locked/.test(message)
  ) {
    return `${message} (the local engine reads only the results view: files outside the projection, extensions, other databases and settings are off)`;
  }
  return message;
}
