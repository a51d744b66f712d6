/**
 * What both query engines (Athena on AWS, DuckDB locally) answer, and the one conversion of their
 * values: numbers as numbers, timestamps as ISO 8601 UTC strings, lists as arrays.
 */
import { PipelineError } from '../errors';

/** A column of an answer: its name and the engine's type name (`bigint`, `TIMESTAMP`, `VARCHAR[]`, …). */
export interface AnswerColumn {
  readonly name: string;
  readonly type: string;
}

/** The answer of one query. */
export interface QueryAnswer {
  readonly columns: readonly AnswerColumn[];
  readonly rows: readonly Record<string, unknown>[];
}

/** Runs SQL against the `results` view of one engine. */
export interface QueryEngine {
  /** Human-readable name of what is queried (a data directory, a workgroup). */
  readonly description: string;
  query(sql: string, onProgress?: (state: string) => void): Promise<QueryAnswer>;
  close(): Promise<void>;
}

/** The engine refused or failed the query; the message is the engine's own. */
export class QueryError extends PipelineError {
  override readonly name = 'QueryError';
}

const NUMERIC =
  /^(tinyint|smallint|integer|int|bigint|hugeint|utinyint|usmallint|uinteger|ubigint|uhugeint|float|real|double|decimal)\b/i;

/**
 * A value as the engines hand it over (a string for most types in both) converted by its column type:
 * numbers to numbers, timestamps to ISO strings, booleans to booleans, `X[]` lists element by element.
 */
export function normalizeValue(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type.endsWith('[]')) {
    const element = type.slice(0, -2);
    return Array.isArray(value) ? value.map((v) => normalizeValue(element, v)) : value;
  }
  if (NUMERIC.test(type)) {
    const number = typeof value === 'number' ? value : Number(value);
    return Number.isNaN(number) ? value : number;
  }
  if (/^timestamp/i.test(type) && typeof value === 'string') return isoTimestamp(value);
  if (/^boolean/i.test(type) && typeof value === 'string') return value === 'true';
  return value;
}

/**
 * `2026-08-10 12:00:03.512` (UTC, as Athena and DuckDB print TIMESTAMP) or with an offset
 * (`+00`, `+02:00`) as `2026-08-10T12:00:03.512Z`; anything unreadable stays as it is.
 */
export function isoTimestamp(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/.exec(
    value.trim(),
  );
  if (!match) return value;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const offset =
    zone === 'Z' || zone === 'UTC' ? 'Z' : `${zone.slice(0, 3)}:${zone.length > 3 ? zone.slice(-2) : '00'}`;
  const millis = fraction ? fraction.slice(0, 4).padEnd(4, '0') : '';
  const ms = Date.parse(`${date}T${time}${millis}${offset}`);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

/** Applies {@link normalizeValue} to every row of an answer. */
export function normalizeRows(
  columns: readonly AnswerColumn[],
  rows: readonly Record<string, unknown>[],
): Record<string, unknown>[] {
  return rows.map((row) =>
    Object.fromEntries(columns.map((column) => [column.name, normalizeValue(column.type, row[column.name])])),
  );
}
