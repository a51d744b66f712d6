/**
 * The saved queries and the `results` view use only SQL that Athena (Trino) and DuckDB read the same way:
 * the documented rules of test/support/sql-dialect.ts (no Trino parser is available offline), each rule
 * shown to catch what it is for. DuckDB parses and runs every query with data in analytics-queries.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { resultsViewSql, SAVED_QUERY_NAMES, savedQuery } from '../../shared/analytics/queries';
import { portabilityProblems } from '../support/sql-dialect';

describe('portable SQL', () => {
  it.each(SAVED_QUERY_NAMES)('saved query %s follows the rules', (name) => {
    expect(portabilityProblems(savedQuery(name).sql)).toEqual([]);
  });

  it('the results view follows the rules', () => {
    expect(portabilityProblems(resultsViewSql())).toEqual([]);
  });

  it.each([
    ['SELECT quantile_cont(x, 0.5) FROM results', 'function quantile_cont()'],
    ['SELECT approx_percentile(x, 0.5) FROM results', 'function approx_percentile()'],
    ['SELECT x::DOUBLE FROM results', '`::` cast (write CAST(x AS type))'],
    ['SELECT count(*) / 2 FROM results', 'division that may be an integer division'],
    ['SELECT * EXCLUDE (day) FROM results', 'star EXCLUDE/REPLACE'],
    ['SELECT * FROM results QUALIFY row_number() OVER () = 1', 'QUALIFY'],
    ['FROM results SELECT 1', 'FROM-first query'],
    ['SELECT [1, 2] FROM results', 'list literal in brackets (use ARRAY[...])'],
    ['SELECT "result" FROM results', 'double-quoted identifier'],
    ["SELECT 1 FROM results WHERE completed > TIMESTAMP '2026-08-01T00:00:00Z'", 'TIMESTAMP literal'],
    ['SELECT 1 FROM results;', 'trailing semicolon'],
    ['SELECT product FROM results GROUP BY ALL', 'GROUP BY ALL'],
  ])('refuses %s', (sql, problem) => {
    expect(portabilityProblems(sql).join('\n')).toContain(problem);
  });

  it('reads no rule in comments or string literals', () => {
    expect(portabilityProblems("-- quantile_cont(x) :: \nSELECT 'a::b / 2' AS x FROM results")).toEqual([]);
  });
});
