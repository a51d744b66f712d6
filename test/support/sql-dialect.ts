/**
 * The SQL that runs unchanged on Athena (Trino, engine version 3) and on DuckDB, as rules a test checks
 * on every saved query and on the `results` view (docs/analytics.md, "Writing portable queries"). No
 * Trino parser is available offline, so DuckDB parses and runs each query with data, and these rules keep
 * out what DuckDB accepts but Athena does not (or reads differently):
 *
 * 1. Only the functions of {@link PORTABLE_FUNCTIONS}: both engines have them with the same meaning.
 *    (`quantile_cont`, `list_*`, `strftime`, `epoch` are DuckDB's; `approx_percentile`, `date_format`,
 *    `from_iso8601_timestamp` Trino's.)
 * 2. No DuckDB-only syntax: `::` casts, `EXCLUDE`/`REPLACE` in a star, `QUALIFY`, `ILIKE`, `//`, `**`,
 *    `FROM`-first queries, list literals in brackets, `GROUP BY ALL`, backticks, double-quoted strings.
 * 3. Every `/` divides a DOUBLE: its left side ends in `AS DOUBLE)` or its right side is a decimal literal
 *    (Trino's integer division truncates, DuckDB's does not).
 * 4. Timestamps are compared with `TIMESTAMP 'yyyy-MM-dd HH:mm:ss'` literals, days as `'yyyy-MM-dd'` text.
 * 5. One statement, no trailing `;` (Athena's named queries and StartQueryExecution take one).
 */

/** Functions both engines have with the same meaning (lower case). */
export const PORTABLE_FUNCTIONS = new Set([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'round',
  'floor',
  'ceil',
  'coalesce',
  'row_number',
  'rank',
  'date_diff',
  'cardinality',
  'lower',
  'upper',
  'length',
  'abs',
]);

/** Words that are followed by `(` without being function calls. */
const KEYWORDS = new Set([
  'as',
  'in',
  'over',
  'unnest',
  'cast',
  'values',
  'from',
  'join',
  'and',
  'or',
  'not',
  'exists',
  'select',
  'with',
  'then',
  'else',
  'when',
  'on',
  'where',
]);

const FORBIDDEN: readonly [RegExp, string][] = [
  [/::/, '`::` cast (write CAST(x AS type))'],
  [/\*\s*(EXCLUDE|REPLACE)\b/i, 'star EXCLUDE/REPLACE'],
  [/\bQUALIFY\b/i, 'QUALIFY (filter a window in an outer query)'],
  [/\bILIKE\b/i, 'ILIKE (use lower(x) LIKE)'],
  [/\/\//, '`//` integer division'],
  [/\*\*/, '`**` power'],
  [/^\s*FROM\b/i, 'FROM-first query'],
  [/\bGROUP\s+BY\s+ALL\b/i, 'GROUP BY ALL'],
  [/`/, 'backtick identifier'],
  [/"[^"]*"/, 'double-quoted identifier or string (use plain names and single-quoted strings)'],
  [/(^|[^\w\])])\[/, 'list literal in brackets (use ARRAY[...])'],
  [/;\s*\S/, 'more than one statement'],
  [/;\s*$/, 'trailing semicolon'],
];

/** The SQL without comments and string literals (so their text cannot trip a rule). */
function code(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/'(?:[^']|'')*'/g, "''");
}

/** What breaks the rules in `sql`; empty when it runs the same on both engines. */
export function portabilityProblems(sql: string): string[] {
  const text = code(sql);
  const problems: string[] = [];
  for (const [pattern, what] of FORBIDDEN) {
    if (pattern.test(text)) problems.push(what);
  }
  for (const match of text.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    const name = match[1]!.toLowerCase();
    // `AS alias (column, …)`: a table alias with its column names, not a call.
    const aliased = /\bAS\s*$/i.test(text.slice(0, match.index));
    if (!aliased && !KEYWORDS.has(name) && !PORTABLE_FUNCTIONS.has(name)) problems.push(`function ${name}()`);
  }
  for (const match of text.matchAll(/\//g)) {
    const before = text.slice(0, match.index).trimEnd();
    const after = text.slice(match.index + 1).trimStart();
    if (!/AS DOUBLE\)$/i.test(before) && !/^\d+\.\d+/.test(after)) {
      problems.push(
        `division that may be an integer division near "${text.slice(Math.max(0, match.index - 30), match.index + 10).replace(/\s+/g, ' ')}"`,
      );
    }
  }
  for (const literal of sql.matchAll(/\bTIMESTAMP\s*'([^']*)'/gi)) {
    if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,3})?$/.test(literal[1]!)) {
      problems.push(`TIMESTAMP literal '${literal[1]}' (write 'yyyy-MM-dd HH:mm:ss')`);
    }
  }
  return [...new Set(problems)];
}
