/**
 * The local query engine: DuckDB over the projection files the local run writes under
 * `<data-dir>/analytics/results/day=…/*.json`, with the same `results_raw` table and `results` view
 * (names, columns, types, view SQL) as the Glue table and the Athena view, so a saved query runs
 * unchanged on both (docs/analytics.md).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { duckdbType, PROJECTION_COLUMNS } from '../shared/analytics/columns';
import { normalizeRows, type QueryAnswer, type QueryEngine, QueryError } from '../shared/analytics/engine';
import { PROJECTION_PREFIX } from '../shared/analytics/projection';
import { RESULTS_RAW_TABLE, RESULTS_VIEW, resultsViewSql } from '../shared/analytics/queries';

/** Directory of the local projection inside a data directory. */
export function localProjectionDir(dataDir: string): string {
  return join(dataDir, ...PROJECTION_PREFIX.split('/').filter(Boolean));
}

function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `results_raw` over the projection files, or an empty relation of the same columns when there are none. */
function rawTableSql(dataDir: string): string {
  const dir = localProjectionDir(dataDir);
  const hasFiles =
    existsSync(dir) &&
    readdirSync(dir, { withFileTypes: true }).some(
      (entry) => entry.isDirectory() && readdirSync(join(dir, entry.name)).some((f) => f.endsWith('.json')),
    );
  if (!hasFiles) {
    // read_json refuses a pattern without files; an empty answer is the truthful one.
    const columns = PROJECTION_COLUMNS.map((c) => `CAST(NULL AS ${duckdbType(c.kind)}) AS ${c.name}`);
    return `SELECT ${columns.join(', ')} WHERE false`;
  }
  const types = PROJECTION_COLUMNS.map((c) => `${c.name}: '${duckdbType(c.kind)}'`).join(', ');
  // hive_partitioning off: `day` comes from the record (a string, as in Glue), not typed from the path.
  return `SELECT * FROM read_json(${sqlString(join(dir, 'day=*', '*.json'))}, format = 'newline_delimited', columns = {${types}}, hive_partitioning = false)`;
}

/** Opens an in-memory DuckDB with the `results` view over the projection of `dataDir`. */
export async function openLocalAnalytics(dataDir: string): Promise<QueryEngine> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`CREATE VIEW ${RESULTS_RAW_TABLE} AS ${rawTableSql(dataDir)}`);
  await connection.run(`CREATE VIEW ${RESULTS_VIEW} AS ${resultsViewSql()}`);
  return {
    description: localProjectionDir(dataDir),
    async query(sql: string): Promise<QueryAnswer> {
      let reader: Awaited<ReturnType<typeof connection.runAndReadAll>>;
      try {
        reader = await connection.runAndReadAll(sql);
      } catch (error) {
        throw new QueryError(error instanceof Error ? error.message.trim() : String(error));
      }
      const names = reader.columnNames();
      const types = reader.columnTypes().map((t) => t.toString());
      const columns = names.map((name, i) => ({ name, type: types[i]! }));
      return { columns, rows: normalizeRows(columns, reader.getRowObjectsJson()) };
    },
    async close(): Promise<void> {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
