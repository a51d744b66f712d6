/**
 * The saved queries (one `.sql` file each in `./queries/`) and the `results` view. The same text is
 * an Athena named query in the stack and runs on DuckDB locally: it uses only SQL both engines read
 * the same way (docs/analytics.md, "Writing portable queries").
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** One saved query. */
export interface SavedQuery {
  /** File name without `.sql`, e.g. `top-reject-messages`; also the named query's name. */
  readonly name: string;
  /** The comment lines at the top of the file, joined: what the query answers. */
  readonly description: string;
  /** The SQL text (comments included). */
  readonly sql: string;
}

/** Names of the saved queries, in the order the report runs them. */
export const SAVED_QUERY_NAMES = [
  'results-by-product-and-outcome',
  'approval-rate-by-product-per-day',
  'top-reject-messages',
  'unavailable-results',
  'time-completed-to-stored',
  'section-outcomes',
  'overturned-verdicts',
] as const;
/** A saved query name. */
export type SavedQueryName = (typeof SAVED_QUERY_NAMES)[number];

/** Reads one saved query. */
export function savedQuery(name: SavedQueryName): SavedQuery {
  const sql = readFileSync(join(HERE, 'queries', `${name}.sql`), 'utf8');
  const description = sql
    .split('\n')
    .filter((line) => line.startsWith('--'))
    .map((line) => line.replace(/^--\s?/, ''))
    .join(' ')
    .trim();
  return { name, description, sql };
}

/** Every saved query, in report order. */
export function savedQueries(): SavedQuery[] {
  return SAVED_QUERY_NAMES.map(savedQuery);
}

/** Name of the view analysts query: exactly one row per result. */
export const RESULTS_VIEW = 'results';
/**
 * Name of the table under the view: the Iceberg table on AWS, the Parquet file and incoming lines locally.
 * Not `results_raw`, the JSON table of the projector it replaced, so that an update creates it beside the
 * old one in a single deploy (docs/deploy.md).
 */
export const RESULTS_RAW_TABLE = 'result_rows';

/**
 * SQL of the `results` view over `result_rows`: one row per result — its latest version (a verdict the
 * service changed after it was stored has one row per version in `result_rows`), the STORED record when
 * there is one (a result the service answered 404 for and later served), else the latest. The same text
 * defines the Athena view and the DuckDB view.
 */
export function resultsViewSql(): string {
  return readFileSync(join(HERE, 'results-view.sql'), 'utf8').trim();
}

/**
 * A query restricted to days `since`..`until` (yyyy-MM-dd, both inclusive, either optional): every
 * `FROM results` reads a filtered `results` instead. Used by the report; the saved queries themselves
 * stay whole so they run unchanged in the Athena console.
 */
export function restrictDays(sql: string, range: { since?: string; until?: string }): string {
  const conditions = [
    ...(range.since ? [`day >= '${dayLiteral(range.since)}'`] : []),
    ...(range.until ? [`day <= '${dayLiteral(range.until)}'`] : []),
  ];
  if (conditions.length === 0) return sql;
  return sql.replace(
    /\bFROM results\b/g,
    `FROM (SELECT * FROM ${RESULTS_VIEW} WHERE ${conditions.join(' AND ')}) ${RESULTS_VIEW}`,
  );
}

function dayLiteral(day: string): string {
  // Only a checked date reaches the SQL text.
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new RangeError(`not a yyyy-MM-dd day: "${day}"`);
  return day;
}
