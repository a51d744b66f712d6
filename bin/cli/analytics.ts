/**
 * `idv analytics …`: SQL over the analytics projection (docs/analytics.md) — Athena through a stack's
 * workgroup, or with `--local` DuckDB over the local run's projection. Same view `results`, same columns,
 * same saved queries on both.
 */
import { constants, existsSync } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { DEFAULT_QUERY_TIMEOUT_SECONDS, MEMORY_LIMIT, TEMP_LIMIT } from '../../local/analytics-limits';
import { NoLocalDataError } from '../../local/aws-target';
import type { QueryEngine } from '../../shared/analytics/engine';
import { SAVED_QUERY_NAMES, savedQuery } from '../../shared/analytics/queries';
import { gatherReport, reportText } from '../../shared/analytics/report';
import { reportHtml } from '../../shared/analytics/report-html';
import { escapeControlsByLine } from '../../shared/terminal-text';
import { UsageError } from './errors';
import { checkedValue, oneOf, str } from './flags';
import { formatRows, OUTPUT_FORMATS, type OutputFormat } from './output-format';
import type { CliCommand, CommandContext } from './types';

/** Environment variable naming the default workgroup. */
export const WORKGROUP_ENV = 'IDV_ANALYTICS_WORKGROUP';

const ENGINE_OPTIONS = {
  local: { type: 'boolean' },
  'data-dir': { type: 'string' },
  workgroup: { type: 'string' },
  database: { type: 'string' },
  'timeout-seconds': { type: 'string' },
} as const;

const ENGINE_HELP = `Where:
  --local              DuckDB over the local run's projection (.local/analytics: results.parquet)
  --data-dir DIR       data directory of the local run (default .local)
  --workgroup WG       ${WORKGROUP_ENV}   Athena workgroup (default: the deployment's output AnalyticsWorkgroup)
  --database DB        Glue database (default: the deployment's output AnalyticsDatabase)
  --timeout-seconds N  with --local: a query running longer is stopped (default ${DEFAULT_QUERY_TIMEOUT_SECONDS});
                       DuckDB may use ${MEMORY_LIMIT} of memory and spill ${TEMP_LIMIT} to disk
AWS credentials and region come from the standard AWS environment/profile.`;

/** Opens the engine the flags name (a usage error when they name none or both). */
async function openEngine(ctx: CommandContext, command: string): Promise<QueryEngine> {
  const local = ctx.values['local'] === true;
  const deployment = local ? undefined : await ctx.deployment();
  const workgroup =
    str(ctx, 'workgroup') ??
    (local ? undefined : (ctx.io.env[WORKGROUP_ENV] ?? deployment?.AnalyticsWorkgroup));
  if (local && str(ctx, 'workgroup'))
    throw new UsageError('pass either --local or --workgroup, not both', command);
  if (local) {
    const dataDir = resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
    if (!existsSync(dataDir)) throw new UsageError(new NoLocalDataError(dataDir).message, command);
    // DuckDB is a native module: loaded only when asked for, so Athena users never need it.
    const { openLocalAnalytics } = await import('../../local/analytics-duckdb');
    return openLocalAnalytics(dataDir, {
      timeoutSeconds: timeoutSecondsOf(ctx, command),
      onStale: (dir) => ctx.io.stderr(`removed ${dir}: a snapshot an interrupted analyst command left\n`),
    });
  }
  if (str(ctx, 'timeout-seconds') !== undefined)
    throw new UsageError(
      '--timeout-seconds applies to --local (Athena: the workgroup sets its limits)',
      command,
    );
  if (!workgroup) {
    throw new UsageError(
      `pass --local or --workgroup WG (or set ${WORKGROUP_ENV}), or name the deployment with --stack NAME or --outputs-file FILE`,
      command,
    );
  }
  const database = str(ctx, 'database') ?? deployment?.AnalyticsDatabase;
  if (!database) {
    throw new UsageError(
      'pass --database DB with --workgroup, or --stack NAME / --outputs-file FILE',
      command,
    );
  }
  // Loaded on use: every other idv command starts without the Athena client.
  const { AthenaClient } = await import('@aws-sdk/client-athena');
  const { athenaEngine } = await import('./analytics-athena');
  return athenaEngine({
    athena: new AthenaClient({}),
    workgroup,
    database,
  });
}

/** `--timeout-seconds`: a whole number of seconds, 1 to 86400; the default when absent. */
function timeoutSecondsOf(ctx: CommandContext, command: string): number {
  const raw = str(ctx, 'timeout-seconds');
  if (raw === undefined) return DEFAULT_QUERY_TIMEOUT_SECONDS;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 86_400)
    throw new UsageError('--timeout-seconds must be a whole number of seconds, 1 to 86400', command);
  return Number(raw);
}

/** Progress on a terminal only: one line rewritten in place, cleared at the end. */
function terminalProgress(ctx: CommandContext): { update(line: string): void; done(): void } {
  const tty = process.stderr.isTTY === true;
  let shown = false;
  return {
    update: (line) => {
      if (!tty) return;
      ctx.io.stderr(`\r\x1b[2K${line}`);
      shown = true;
    },
    done: () => {
      if (shown) ctx.io.stderr('\r\x1b[2K');
      shown = false;
    },
  };
}

function outputFormat(ctx: CommandContext, command: string): OutputFormat {
  return oneOf(ctx, 'format', OUTPUT_FORMATS, command) ?? 'json';
}

/** `idv analytics query SQL`. */
export const analyticsQueryCommand: CliCommand = {
  path: ['analytics', 'query'],
  summary: 'run SQL against the results view (Athena, or DuckDB with --local)',
  usage:
    'analytics query [--local [--data-dir DIR] | --workgroup WG] [--format json|table|csv] (SQL | --saved NAME)',
  help: `  SQL                  one query (SELECT or EXPLAIN) over the view "results" (quote it), e.g.
                       "SELECT product, result, count(*) AS n FROM results GROUP BY product, result"
                       (SQL that starts with "-", such as a comment: put -- before it). With --local
                       it runs sandboxed: one statement, no files outside the projection, no COPY,
                       ATTACH, INSTALL, LOAD or SET; several statements are refused, none run.
  --saved NAME         a saved query instead: ${SAVED_QUERY_NAMES.join(', ')}
  --format F           json (default: an array of row objects), table (aligned), csv (with a header)

${ENGINE_HELP}`,
  options: { ...ENGINE_OPTIONS, format: { type: 'string' }, saved: { type: 'string' } },
  positionals: true,
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const format = outputFormat(ctx, 'analytics query');
    const sql = querySql(ctx);
    const engine = await openEngine(ctx, 'analytics query');
    const bar = terminalProgress(ctx);
    try {
      const answer = await engine.query(sql, (state) => bar.update(`query ${state}`));
      bar.done();
      ctx.io.stdout(
        formatRows(
          format,
          answer.columns.map((c) => c.name),
          answer.rows,
        ),
      );
      return undefined;
    } finally {
      bar.done();
      await engine.close();
    }
  },
};

/** The SQL of the command line: the positional text, or the saved query `--saved` names. */
function querySql(ctx: CommandContext): string {
  const saved = str(ctx, 'saved');
  const text = ctx.positionals.join(' ').trim();
  if (saved !== undefined) {
    if (text !== '') throw new UsageError('pass either SQL or --saved NAME, not both', 'analytics query');
    return savedQuery(checkedValue(saved, '--saved', SAVED_QUERY_NAMES, 'analytics query')).sql;
  }
  if (text === '') throw new UsageError('missing SQL (or --saved NAME)', 'analytics query');
  return text;
}

/** A `yyyy-MM-dd` flag that is a real day. */
function dayFlag(ctx: CommandContext, flag: 'since' | 'until'): string | undefined {
  const value = str(ctx, flag);
  if (value === undefined) return undefined;
  const date = new Date(`${value}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(date.getTime()) ||
    date.toISOString().slice(0, 10) !== value
  ) {
    throw new UsageError(`--${flag} must be a day, yyyy-MM-dd (got "${value}")`, 'analytics report');
  }
  return value;
}

/** `path` when a file can be written there (its directory exists and is writable, it is no directory). */
async function writableFile(path: string, given: string): Promise<string> {
  try {
    await access(dirname(path), constants.W_OK);
    if ((await stat(path).catch(() => undefined))?.isDirectory()) {
      throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why =
      code === 'ENOENT' ? 'its directory does not exist' : typeof code === 'string' ? code : 'not writable';
    throw new UsageError(`cannot write --html ${given} (${why}); nothing was run`, 'analytics report');
  }
  return path;
}

/** `idv analytics report`. */
export const analyticsReportCommand: CliCommand = {
  path: ['analytics', 'report'],
  summary: 'run the saved queries and print a summary; --html writes a page with charts',
  usage: 'analytics report [--local | --workgroup WG] [--since DATE] [--until DATE] [--html FILE]',
  help: `  --since DATE         first day, yyyy-MM-dd (day of completion, UTC); default: all days
  --until DATE         last day, yyyy-MM-dd (inclusive)
  --html FILE          also write one self-contained HTML page with charts (nothing loaded from the network)

${ENGINE_HELP}`,
  options: {
    ...ENGINE_OPTIONS,
    since: { type: 'string' },
    until: { type: 'string' },
    html: { type: 'string' },
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const since = dayFlag(ctx, 'since');
    const until = dayFlag(ctx, 'until');
    if (since && until && since > until) throw new UsageError('--since is after --until', 'analytics report');
    const html = str(ctx, 'html');
    // Checked before any query: a report printed and then a raw ENOENT helps nobody.
    const file = html === undefined ? undefined : await writableFile(resolve(ctx.io.cwd, html), html);
    const engine = await openEngine(ctx, 'analytics report');
    const bar = terminalProgress(ctx);
    try {
      const data = await gatherReport(engine, { since, until }, (name) => bar.update(`running ${name}`));
      bar.done();
      ctx.io.stdout(escapeControlsByLine(reportText(data))); // reject messages are the service's text
      if (file) {
        await writeFile(file, reportHtml(data));
        ctx.io.stderr(`wrote ${file}\n`);
      }
      return undefined;
    } finally {
      bar.done();
      await engine.close();
    }
  },
};
