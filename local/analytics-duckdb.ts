/**
 * The local query engine: DuckDB over the projection the local run writes (`<data-dir>/analytics/`:
 * `results.parquet` and the incoming JSON lines, `./analytics-store.ts`), with the same `result_rows`
 * table and `results` view
 * (names, columns, types, view SQL) as the Glue table and the Athena view, so a saved query runs
 * unchanged on both (docs/analytics.md).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { normalizeRows, type QueryAnswer, type QueryEngine, QueryError } from '../shared/analytics/engine';
import { RESULTS_RAW_TABLE, RESULTS_VIEW, resultsViewSql } from '../shared/analytics/queries';
import { compactLocalProjection, localAnalyticsDir, rawRelationSql } from './analytics-store';

/** Opens an in-memory DuckDB with the `results` view over the projection of `dataDir`. */
export async function openLocalAnalytics(
  dataDir: string,
  options: { readonly compact?: boolean } = {},
): Promise<QueryEngine> {
  // A query after a run merges what came in since its last compaction (skipped while the run compacts).
  if (options.compact !== false) await compactLocalProjection(dataDir);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const columnsOf = async (sql: string) =>
    new Set(
      (await connection.runAndReadAll(`DESCRIBE ${sql}`))
        .getRowObjectsJson()
        .map((row) => String(row['column_name'])),
    );
  await connection.run(`CREATE VIEW ${RESULTS_RAW_TABLE} AS ${await rawRelationSql(dataDir, columnsOf)}`);
  await connection.run(`CREATE VIEW ${RESULTS_VIEW} AS ${resultsViewSql()}`);
  return {
    description: localAnalyticsDir(dataDir),
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
