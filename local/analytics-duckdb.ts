/**
 * The local query engine: DuckDB over the projection the local run writes (`<data-dir>/analytics/`:
 * `results.parquet` and the incoming JSON lines, `./analytics-store.ts`), with the same `result_rows`
 * table and `results` view
 * (names, columns, types, view SQL) as the Glue table and the Athena view, so a saved query runs
 * unchanged on both (docs/analytics.md).
 *
 * The analyst's SQL runs sandboxed: once the views are set up, DuckDB may read files only under the
 * projection's directory (`allowed_directories`, `enable_external_access=false`), may not install or load
 * extensions, and the configuration is locked so no statement can undo that. Each call runs exactly one
 * statement, and only a query (`SELECT`, `EXPLAIN`): no `COPY … TO`, `ATTACH`, `INSTALL`/`LOAD`, `SET`,
 * `CREATE`, … — so the in-memory database is read-only in effect and nothing is written anywhere.
 */
import { resolve, sep } from 'node:path';
import { DuckDBInstance, StatementType } from '@duckdb/node-api';
import { normalizeRows, type QueryAnswer, type QueryEngine, QueryError } from '../shared/analytics/engine';
import { RESULTS_RAW_TABLE, RESULTS_VIEW, resultsViewSql } from '../shared/analytics/queries';
import { compactLocalProjection, localAnalyticsDir, rawRelationSql } from './analytics-store';

/** Statement kinds the analyst may run: queries only. */
const QUERY_STATEMENTS: ReadonlySet<StatementType> = new Set([StatementType.SELECT, StatementType.EXPLAIN]);

/** Opens an in-memory DuckDB with the `results` view over the projection of `dataDir`, sandboxed. */
export async function openLocalAnalytics(
  dataDir: string,
  options: { readonly compact?: boolean } = {},
): Promise<QueryEngine> {
  const dir = resolve(dataDir);
  // A query after a run merges what came in since its last compaction (skipped while the run compacts).
  if (options.compact !== false) await compactLocalProjection(dir);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const columnsOf = async (sql: string) =>
    new Set(
      (await connection.runAndReadAll(`DESCRIBE ${sql}`))
        .getRowObjectsJson()
        .map((row) => String(row['column_name'])),
    );
  await connection.run(`CREATE VIEW ${RESULTS_RAW_TABLE} AS ${await rawRelationSql(dir, columnsOf)}`);
  await connection.run(`CREATE VIEW ${RESULTS_VIEW} AS ${resultsViewSql()}`);
  await lockDown(connection, `${localAnalyticsDir(dir)}${sep}`);
  return {
    description: localAnalyticsDir(dir),
    async query(sql: string): Promise<QueryAnswer> {
      let reader: Awaited<ReturnType<typeof connection.runAndReadAll>>;
      try {
        const statements = await connection.extractStatements(sql);
        if (statements.count !== 1) {
          throw new QueryError(
            statements.count === 0
              ? 'no SQL statement given'
              : `${statements.count} statements given; one query runs at a time (nothing was run)`,
          );
        }
        const statement = await statements.prepare(0);
        if (!QUERY_STATEMENTS.has(statement.statementType)) {
          const kind = StatementType[statement.statementType] ?? 'other';
          throw new QueryError(
            `only a query (SELECT, EXPLAIN) runs here, not a ${kind} statement: the local engine is read-only (nothing was run)`,
          );
        }
        reader = await statement.runAndReadAll();
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
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * Files only under `allowedDir` (the views read the projection from there), no extension installed or
 * loaded on demand, and the configuration locked so that no later statement can change any of it.
 */
async function lockDown(
  connection: Awaited<ReturnType<DuckDBInstance['connect']>>,
  allowedDir: string,
): Promise<void> {
  await connection.run(`SET allowed_directories = [${sqlString(allowedDir)}]`);
  await connection.run('SET autoinstall_known_extensions = false');
  await connection.run('SET autoload_known_extensions = false');
  await connection.run('SET enable_external_access = false');
  await connection.run('SET lock_configuration = true');
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
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
