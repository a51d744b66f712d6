/**
 * The local projection's storage, the same shape as the Iceberg table on AWS (docs/analytics.md): one
 * Parquet file with one row per result, `<data-dir>/analytics/results.parquet`, written through DuckDB.
 *
 * - **Append**: every record is appended, synchronously, as one JSON line to `analytics/incoming.jsonl`
 *   (the local EventBridge target answers only once it is on disk, as on AWS).
 * - **Compact**: {@link compactLocalProjection} moves the incoming lines aside, merges them into the
 *   Parquet file keeping one row per result (STORED wins over UNAVAILABLE, else the latest; a repeated
 *   event changes nothing: the rule of the `results` view and of the Iceberg upsert), and writes the
 *   file anew beside the old one before it replaces it. A query never sees half a file.
 *
 * Queries read the Parquet file and whatever incoming lines are not compacted yet; the view's dedupe makes
 * a line that is in both count once.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { duckdbType, PROJECTION_COLUMNS } from '../shared/analytics/columns';
import { type ProjectionRecord, recordLine } from '../shared/analytics/projection';
import { syncDirectory, syncFile, writeFileAtomic } from './atomic-file';

/** Directory of the local analytics files inside a data directory. */
export function localAnalyticsDir(dataDir: string): string {
  return join(dataDir, 'analytics');
}

/** The compacted projection: one row per result. */
export function localParquetFile(dataDir: string): string {
  return join(localAnalyticsDir(dataDir), 'results.parquet');
}

const INCOMING = 'incoming.jsonl';
const COMPACTING = /^compacting-.+\.jsonl$/;
/** A compaction lock older than this was left by a process that died: it is taken over. */
const STALE_LOCK_MS = 10 * 60_000;

/** The JSON-line files a query reads besides the Parquet file (incoming and being compacted). */
export function localIncomingFiles(dataDir: string): string[] {
  const dir = localAnalyticsDir(dataDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name === INCOMING || COMPACTING.test(name))
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).size > 0);
}

/**
 * Appends one record (synchronously: one `write` with O_APPEND, so concurrent appenders never
 * interleave inside a line).
 */
export function appendRecord(dataDir: string, record: ProjectionRecord): void {
  mkdirSync(localAnalyticsDir(dataDir), { recursive: true, mode: 0o700 });
  appendFileSync(join(localAnalyticsDir(dataDir), INCOMING), recordLine(record), { mode: 0o600 });
}

/** Records waiting in `incoming.jsonl` (bytes; a cheap trigger for compaction). */
export function incomingBytes(dataDir: string): number {
  const file = join(localAnalyticsDir(dataDir), INCOMING);
  return existsSync(file) ? statSync(file).size : 0;
}

function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `read_json` of JSON-line files with the projection's column types (a torn last line is skipped). */
export function readIncomingSql(files: readonly string[]): string {
  const types = PROJECTION_COLUMNS.map((c) => `${c.name}: '${duckdbType(c.kind)}'`).join(', ');
  return `SELECT * FROM read_json([${files.map(sqlString).join(', ')}], format = 'newline_delimited', columns = {${types}}, ignore_errors = true)`;
}

/** Every projection column, in order and with its type, of `relation` (missing older columns as NULL). */
function typedColumns(available: ReadonlySet<string>): string {
  return PROJECTION_COLUMNS.map((c) =>
    available.has(c.name)
      ? `CAST(${c.name} AS ${duckdbType(c.kind)}) AS ${c.name}`
      : `CAST(NULL AS ${duckdbType(c.kind)}) AS ${c.name}`,
  ).join(', ');
}

/**
 * `result_rows` for DuckDB: the Parquet file and the incoming lines, every projection column in order
 * (a Parquet file written before a column existed answers NULL for it), or an empty relation.
 */
export async function rawRelationSql(
  dataDir: string,
  columnsOf: (sql: string) => Promise<Set<string>>,
): Promise<string> {
  const parquet = localParquetFile(dataDir);
  const source = `read_parquet(${sqlString(parquet)})`;
  const compacted = existsSync(parquet)
    ? `SELECT ${typedColumns(await columnsOf(`SELECT * FROM ${source}`))} FROM ${source}`
    : undefined;
  const incoming = localIncomingFiles(dataDir);
  if (incoming.length === 0) return compacted ?? `SELECT ${typedColumns(new Set())} WHERE false`;
  const newer = readIncomingSql(incoming);
  if (!compacted) return oneRowPerResult(newer);
  // The compacted rows of results nothing came in for, and the merge of the others: the same rule as
  // the compaction, so a query between two compactions already sees one row per result.
  return `SELECT * FROM (${compacted}) WHERE ${ROW_KEY} NOT IN (SELECT ${ROW_KEY} FROM (${newer}))
    UNION ALL ${oneRowPerResult(`SELECT * FROM (${compacted}) WHERE ${ROW_KEY} IN (SELECT ${ROW_KEY} FROM (${newer})) UNION ALL ${newer}`)}`;
}

/** A row's key: its result and version (rows written before versions existed are version 1). */
const ROW_KEY = "(result_id || '#' || CAST(coalesce(version, 1) AS VARCHAR))";

/**
 * One row per result and version of `relation`: the STORED record when there is one (a result the service
 * answered 404 for and later served), else the latest; a repeated record counts once. The rule of the
 * Iceberg upsert on AWS (docs/analytics.md, "How records are made").
 */
export function oneRowPerResult(relation: string): string {
  return `SELECT * EXCLUDE (row_in_result) FROM (
    SELECT *, row_number() OVER (
      PARTITION BY result_id, coalesce(version, 1)
      ORDER BY CASE WHEN status = 'STORED' THEN 0 ELSE 1 END, stored_at DESC
    ) AS row_in_result
    FROM (${relation})
  ) WHERE row_in_result = 1`;
}

/** What a compaction did. */
export interface CompactionSummary {
  /** Rows of the Parquet file afterwards (one per result). */
  readonly rows: number;
  /** Incoming records merged. */
  readonly merged: number;
  /** Size of the Parquet file afterwards, bytes. */
  readonly bytes: number;
}

/**
 * Merges the incoming records into the Parquet file (one row per result), under a lock directory so two
 * processes never compact at once. Returns undefined when another process holds the lock or there was
 * nothing to merge.
 */
export async function compactLocalProjection(dataDir: string): Promise<CompactionSummary | undefined> {
  const dir = localAnalyticsDir(dataDir);
  if (!existsSync(dir)) return undefined;
  const lock = join(dir, 'compact.lock');
  if (!takeLock(lock)) return undefined;
  try {
    // Move the incoming lines aside first: appends from now on go to a new incoming.jsonl.
    const incoming = join(dir, INCOMING);
    if (existsSync(incoming) && statSync(incoming).size > 0) {
      renameSync(incoming, join(dir, `compacting-${process.pid}-${Date.now()}.jsonl`));
    }
    const files = localIncomingFiles(dataDir).filter((file) => !file.endsWith(INCOMING));
    if (files.length === 0) return undefined;
    const parquet = localParquetFile(dataDir);
    const next = `${parquet}.${process.pid}.next`;
    const instance = await openDuckDb();
    const connection = await instance.connect();
    try {
      const columnsOf = async (sql: string) =>
        new Set(
          (await connection.runAndReadAll(`DESCRIBE ${sql}`))
            .getRowObjectsJson()
            .map((r) => String(r['column_name'])),
        );
      const parts = [readIncomingSql(files)];
      if (existsSync(parquet)) {
        const source = `read_parquet(${sqlString(parquet)})`;
        parts.unshift(`SELECT ${typedColumns(await columnsOf(`SELECT * FROM ${source}`))} FROM ${source}`);
      }
      const merged = Number(
        (
          await connection.runAndReadAll(`SELECT count(*) AS n FROM (${readIncomingSql(files)})`)
        ).getRowObjectsJson()[0]?.['n'] ?? 0,
      );
      await connection.run(`COPY (
        ${oneRowPerResult(parts.join(' UNION ALL '))}
        ORDER BY day, result_id
      ) TO ${sqlString(next)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`);
      const rows = Number(
        (
          await connection.runAndReadAll(`SELECT count(*) AS n FROM read_parquet(${sqlString(next)})`)
        ).getRowObjectsJson()[0]?.['n'] ?? 0,
      );
      syncFile(next);
      renameSync(next, parquet);
      syncDirectory(dir);
      for (const file of files) rmSync(file, { force: true });
      return { rows, merged, bytes: statSync(parquet).size };
    } finally {
      connection.closeSync();
      instance.closeSync();
      rmSync(next, { force: true });
    }
  } finally {
    rmdirSync(lock);
  }
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) {
        rmdirSync(lock);
        mkdirSync(lock);
        return true;
      }
    } catch {
      // Taken by another process meanwhile.
    }
    return false;
  }
}

/** Where one result's rows of the local projection are: the Parquet file and the JSON-line files. */
export async function findLocalProjectionResult(dataDir: string, resultId: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of localIncomingFiles(dataDir)) {
    if (linesOf(file).some((line) => lineResultId(line) === resultId)) found.push(file);
  }
  const parquet = localParquetFile(dataDir);
  if (existsSync(parquet) && (await parquetRowsOf(parquet, resultId)) > 0) found.push(parquet);
  return found;
}

/**
 * Removes every row of `resultId` from the local projection (erasure, docs/erasure.md): the JSON lines
 * naming it are dropped from each incoming file, and the Parquet file is written anew without its rows and
 * replaces the old one, so no byte of the row stays in a file. Under the compaction lock (waits for a
 * running compaction). Returns the rows removed.
 */
export async function eraseLocalProjectionResult(dataDir: string, resultId: string): Promise<number> {
  const dir = localAnalyticsDir(dataDir);
  if (!existsSync(dir)) return 0;
  const lock = join(dir, 'compact.lock');
  for (let waited = 0; !takeLock(lock); waited += 100) {
    if (waited > 60_000) throw new Error('the local analytics projection stays locked by a compaction');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    let removed = 0;
    for (const file of localIncomingFiles(dataDir)) {
      const lines = linesOf(file);
      // A torn line (a crashed append) that names the result goes too: no byte of the row may stay.
      const kept = lines.filter((line) => {
        const id = lineResultId(line);
        return id === undefined ? !line.includes(resultId) : id !== resultId;
      });
      if (kept.length === lines.length) continue;
      removed += lines.length - kept.length;
      writeFileAtomic(file, kept.map((line) => `${line}\n`).join(''));
    }
    const parquet = localParquetFile(dataDir);
    const rows = existsSync(parquet) ? await parquetRowsOf(parquet, resultId) : 0;
    if (rows > 0) {
      const next = `${parquet}.${process.pid}.next`;
      await withDuckDb(async (connection) => {
        await connection.run(
          `COPY (SELECT * FROM read_parquet(${sqlString(parquet)}) WHERE result_id <> ${sqlString(resultId)} ORDER BY day, result_id) TO ${sqlString(next)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`,
        );
      });
      syncFile(next);
      renameSync(next, parquet);
      syncDirectory(dirname(parquet));
      removed += rows;
    }
    return removed;
  } finally {
    rmdirSync(lock);
  }
}

/** Every result of the local projection with when it was stored (the retention check). */
export async function listLocalProjectionResults(
  dataDir: string,
): Promise<{ resultId: string; writtenAt: Date }[]> {
  if (!existsSync(localAnalyticsDir(dataDir))) return [];
  return withDuckDb(async (connection) => {
    const columnsOf = async (sql: string) =>
      new Set(
        (await connection.runAndReadAll(`DESCRIBE ${sql}`))
          .getRowObjectsJson()
          .map((r) => String(r['column_name'])),
      );
    const relation = await rawRelationSql(dataDir, columnsOf);
    const rows = (
      await connection.runAndReadAll(
        `SELECT result_id, epoch_ms(stored_at) AS stored_ms FROM (${relation}) WHERE stored_at IS NOT NULL`,
      )
    ).getRowObjectsJson();
    return rows.map((r) => ({
      resultId: String(r['result_id']),
      writtenAt: new Date(Number(r['stored_ms'])),
    }));
  });
}

async function withDuckDb<T>(
  work: (connection: Awaited<ReturnType<DuckDBInstance['connect']>>) => Promise<T>,
): Promise<T> {
  const instance = await openDuckDb();
  const connection = await instance.connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function parquetRowsOf(parquet: string, resultId: string): Promise<number> {
  return withDuckDb(async (connection) =>
    Number(
      (
        await connection.runAndReadAll(
          `SELECT count(*) AS n FROM read_parquet(${sqlString(parquet)}) WHERE result_id = ${sqlString(resultId)}`,
        )
      ).getRowObjectsJson()[0]?.['n'] ?? 0,
    ),
  );
}

function linesOf(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** The `result_id` of a JSON line, or undefined for a torn or foreign line. */
function lineResultId(line: string): string | undefined {
  try {
    const id = (JSON.parse(line) as { result_id?: unknown }).result_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A DuckDB in memory. The package (a native addon, ~0.1 s to load) is imported on first use, so the CLI's
 * other commands, which import this module for its file names, start without it.
 */
async function openDuckDb(): Promise<DuckDBInstance> {
  const { DuckDBInstance: Instance } = await import('@duckdb/node-api');
  return Instance.create(':memory:');
}
