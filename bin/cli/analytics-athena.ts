/**
 * The AWS query engine: Athena through the analytics workgroup of a stack. The workgroup enforces where
 * results go and how they are encrypted, so a query only names the workgroup and the database.
 */
import {
  type AthenaClient,
  GetQueryExecutionCommand,
  paginateGetQueryResults,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import {
  type AnswerColumn,
  normalizeRows,
  type QueryAnswer,
  type QueryEngine,
  QueryError,
} from '../../shared/analytics/engine';

/** Where a stack's analytics live in Athena. */
export interface AthenaTarget {
  readonly workgroup: string;
  readonly database: string;
}

/**
 * The Glue database of a workgroup named as the stack names it: `idv-pipeline-<env>-analytics` →
 * `idv_pipeline_<env>` (Glue names are lower case with underscores).
 */
export function databaseOfWorkgroup(workgroup: string): string {
  return workgroup
    .replace(/-analytics$/, '')
    .replace(/-/g, '_')
    .toLowerCase();
}

/** Options of {@link athenaEngine}. */
export interface AthenaEngineOptions extends AthenaTarget {
  readonly athena: AthenaClient;
  /** Waits between status checks. @default 250 ms doubling to 2 s */
  readonly sleep?: (ms: number) => Promise<void>;
}

const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

/** An Athena-backed engine: start, wait (reporting the state), then page through the results. */
export function athenaEngine(options: AthenaEngineOptions): QueryEngine {
  const { athena } = options;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return {
    description: `Athena workgroup ${options.workgroup} (database ${options.database})`,
    async query(sql, onProgress): Promise<QueryAnswer> {
      const started = await athena
        .send(
          new StartQueryExecutionCommand({
            QueryString: sql,
            WorkGroup: options.workgroup,
            QueryExecutionContext: { Database: options.database },
          }),
        )
        .catch((error: unknown) => {
          // A syntax error is refused right here (InvalidRequestException) with Athena's own message.
          throw new QueryError(error instanceof Error ? error.message : String(error));
        });
      const id = started.QueryExecutionId!;
      let wait = 250;
      for (;;) {
        const { QueryExecution: execution } = await athena.send(
          new GetQueryExecutionCommand({ QueryExecutionId: id }),
        );
        const state = execution?.Status?.State ?? 'QUEUED';
        const scanned = execution?.Statistics?.DataScannedInBytes;
        onProgress?.(`${state.toLowerCase()}${scanned !== undefined ? `, ${scanned} bytes scanned` : ''}`);
        if (FINISHED.has(state)) {
          if (state !== 'SUCCEEDED') {
            throw new QueryError(execution?.Status?.StateChangeReason ?? `query ${state.toLowerCase()}`);
          }
          break;
        }
        await sleep(wait);
        wait = Math.min(wait * 2, 2000);
      }
      return readResults(athena, id);
    },
    async close() {
      athena.destroy();
    },
  };
}

async function readResults(athena: AthenaClient, id: string): Promise<QueryAnswer> {
  let columns: AnswerColumn[] = [];
  const raw: Record<string, unknown>[] = [];
  let first = true;
  for await (const page of paginateGetQueryResults(
    { client: athena, pageSize: 1000 },
    { QueryExecutionId: id },
  )) {
    if (first) {
      columns = (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => ({
        name: c.Name!,
        type: c.Type!,
      }));
    }
    let rows = page.ResultSet?.Rows ?? [];
    // The first row of a SELECT's first page repeats the column names.
    if (first && rows.length > 0 && rows[0]!.Data?.every((d, i) => d.VarCharValue === columns[i]?.name)) {
      rows = rows.slice(1);
    }
    for (const row of rows) {
      raw.push(
        Object.fromEntries(columns.map((c, i) => [c.name, athenaValue(c.type, row.Data?.[i]?.VarCharValue)])),
      );
    }
    first = false;
  }
  const typed = columns.map((c) => (c.type === 'array' ? { name: c.name, type: 'varchar[]' } : c));
  return { columns: typed, rows: normalizeRows(typed, raw) };
}

/** Athena returns every value as text; an array as `[a, b]` (the projection's arrays hold codes only). */
function athenaValue(type: string, value: string | undefined): unknown {
  if (value === undefined) return null;
  if (type === 'array') {
    const inner = value.replace(/^\[/, '').replace(/\]$/, '').trim();
    return inner === '' ? [] : inner.split(', ');
  }
  return value;
}
