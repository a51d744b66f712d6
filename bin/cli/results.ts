/**
 * `idv results …`: analyst queries over the stored results (DynamoDB table + S3 bucket), against AWS or,
 * with `--local`, the local stack. Output is JSON on stdout; progress goes to stderr (a live line on a
 * terminal, plain lines otherwise).
 */
import { resolve } from 'node:path';
import { type AwsTarget, NoLocalDataError, openAwsTarget } from '../../local/aws-target';
import { journalSteps } from '../../local/console-journal';
import { PRODUCTS, RESULT_VALUES } from '../../shared/api/enums';
import {
  ChecksumMismatchError,
  downloadResult,
  getResult,
  listResults,
  resultsByReference,
  resultsByTransaction,
  summarize,
  withFullDocument,
} from '../../shared/queries/results';
import { buildTrace, type ResultTrace } from '../../shared/queries/trace';
import { Publications } from '../../shared/store/publication';
import { UsageError } from './errors';
import { oneOf, str } from './flags';
import { cloudWatchLogsInsights, type LogsInsightsPort, queryTraceSteps } from './logs-insights';
import { warnIfCommittable } from './out-dir';
import { formatRows, OUTPUT_FORMATS, type OutputFormat } from './output-format';
import type { CliCommand, CliIo, CommandContext } from './types';

/** Values of `results list --result`: the overall results, plus UNAVAILABLE for the status. */
const LIST_RESULTS = [...RESULT_VALUES, 'UNAVAILABLE'] as const;

/** Columns of `results list --format table|csv` (JSON keeps the whole list view). */
const LIST_COLUMNS = [
  'resultId',
  'status',
  'product',
  'result',
  'completed',
  'storedAt',
  'transactionId',
  'customerReference',
  'userId',
  'messages',
];

/** Flags shared by the results and dlq commands: where the stored results are. */
export const TARGET_OPTIONS = {
  local: { type: 'boolean' },
  'data-dir': { type: 'string' },
  table: { type: 'string' },
  bucket: { type: 'string' },
} as const;

/**
 * Flags naming the poll's markers table and the queues on AWS, for the commands that look into them
 * (`results erase`, `results reconcile`); their help is each command's own (their defaults differ).
 */
export const QUEUE_TARGET_OPTIONS = {
  'markers-table': { type: 'string' },
  'queue-url': { type: 'string' },
  'dlq-url': { type: 'string' },
} as const;

/** Help text of {@link TARGET_OPTIONS}. */
export const TARGET_HELP = `Where:
  --local              the local stack (a running \`npm start\`, else its persisted data in .local/)
  --data-dir DIR       data directory of the local stack (default .local)
  --table NAME         IDV_RESULTS_TABLE   results table (AWS)
  --bucket NAME                            data bucket to read objects from (default: the one each result records)
AWS credentials and region come from the standard AWS environment/profile.`;

/** Opens the target named by the flags; the caller closes it. */
export async function openTarget(ctx: CommandContext, extra: { queueUrl?: string; dlqUrl?: string } = {}) {
  // On AWS the names come from the flags, else the deployment's stack outputs, else the variables.
  const deployment = ctx.values['local'] === true ? undefined : await ctx.deployment();
  const target = await openAwsTarget({
    local: ctx.values['local'] === true,
    dataDir: str(ctx, 'data-dir')
      ? resolve(ctx.io.cwd, str(ctx, 'data-dir')!)
      : resolve(ctx.io.cwd, '.local'),
    table: str(ctx, 'table') ?? deployment?.ResultsTableName,
    bucket: str(ctx, 'bucket') ?? deployment?.DataBucketName,
    queueUrl: extra.queueUrl ?? deployment?.ResultsQueueUrl,
    dlqUrl: extra.dlqUrl ?? deployment?.DeadLetterQueueUrl,
    env: ctx.io.env,
  }).catch((error: unknown) => {
    // A wrong directory is a wrong command line (exit 2), not a failure of the store.
    if (error instanceof NoLocalDataError) throw new UsageError(error.message);
    throw error;
  });
  // What the emulators' start repaired after a crash (docs/local-run.md, "A crash loses nothing").
  for (const line of target.repairs ?? []) ctx.io.stderr(`↺ repaired ${line}\n`);
  return target;
}

/** Progress on stderr: rewritten in place on a terminal, one plain line each otherwise. */
export function progress(io: CliIo): { update(line: string): void; done(): void } {
  const tty = process.stderr.isTTY === true;
  let shown = false;
  return {
    update: (line) => {
      if (tty) {
        io.stderr(`\r\x1b[2K${line}`);
        shown = true;
      } else {
        io.stderr(`${line}\n`);
      }
    },
    done: () => {
      if (shown) io.stderr('\n');
    },
  };
}

async function withTarget<T>(
  ctx: CommandContext,
  command: string,
  work: (target: AwsTarget, table: string) => Promise<T>,
) {
  const target = await openTarget(ctx);
  try {
    if (!target.tableName)
      throw new UsageError(
        'no results table: pass --stack NAME, --outputs-file FILE or --table (IDV_RESULTS_TABLE), or use --local',
        command,
      );
    return await work(target, target.tableName);
  } finally {
    await target.close();
  }
}

function onePositional(ctx: CommandContext, what: string, command: string): string {
  const [value, extra] = ctx.positionals;
  if (!value) throw new UsageError(`missing ${what}`, command);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, command);
  return value;
}

/** `idv results get RESULT_ID [--out DIR]`. */
export const resultsGetCommand: CliCommand = {
  path: ['results', 'get'],
  summary: "print the pipeline's stored copy of a result; --out also writes its files (SHA-256 checked)",
  usage: 'results get RESULT_ID [--out DIR] [--local | --table T --bucket B]',
  help: `  --out DIR            write result.json and the images and files of the result into DIR\n\n${TARGET_HELP}`,
  options: { ...TARGET_OPTIONS, out: { type: 'string' } },
  positionals: true,
  connection: false,
  deployment: true,
  run: (ctx) =>
    withTarget(ctx, 'results get', async (target, tableName) => {
      const resultId = onePositional(ctx, 'RESULT_ID', 'results get');
      const deps = {
        dynamo: target.dynamo,
        s3: target.s3,
        tableName,
        ...(str(ctx, 'bucket') && { bucketName: str(ctx, 'bucket') }),
      };
      const found = await getResult(deps, resultId);
      if (!found) throw new Error(`no stored result ${resultId} in ${target.description}`);
      // A bounded item keeps large documents in result.json only: print the whole result all the same.
      const item = await withFullDocument(deps, found);
      const out = str(ctx, 'out');
      if (out) {
        warnIfCommittable(resolve(ctx.io.cwd, out), ctx.io);
        const bar = progress(ctx.io);
        try {
          await downloadResult(deps, item, resolve(ctx.io.cwd, out), (file, index, total) =>
            bar.update(`${index}/${total} ${file.path} (${file.bytes} bytes, sha256 ok)`),
          );
        } catch (error) {
          if (error instanceof ChecksumMismatchError)
            throw new Error(`${error.message}; nothing more written`);
          throw error;
        } finally {
          bar.done();
        }
      }
      return item;
    }),
};

/** `idv results list [--since DATE] [--until DATE] [--result R] [--product P]`. */
export const resultsListCommand: CliCommand = {
  path: ['results', 'list'],
  summary: 'list stored results by completion time (byCompletedDay index, one query per day)',
  usage:
    'results list [--since DATE] [--until DATE] [--result R] [--product P] [--format json|table|csv] [--local | --table T]',
  help: `  --since DATE         yyyy-MM-dd or ISO timestamp, UTC (default: 7 days before --until)
  --until DATE         yyyy-MM-dd (end of that day) or ISO timestamp (default: now)
  --result R           only this overall result: ${LIST_RESULTS.join(', ')}
                       (UNAVAILABLE: results the service no longer had, status UNAVAILABLE)
  --product P          only this product: ${PRODUCTS.join(', ')}
  --format F           json (default), table (aligned) or csv (with a header): ${LIST_COLUMNS.join(', ')}\n\n${TARGET_HELP}`,
  options: {
    ...TARGET_OPTIONS,
    since: { type: 'string' },
    until: { type: 'string' },
    result: { type: 'string' },
    product: { type: 'string' },
    format: { type: 'string' },
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const format = oneOf(ctx, 'format', OUTPUT_FORMATS, 'results list') ?? 'json';
    // Flags first: a wrong one must not wait for (or start) the local emulators.
    const until = parseDate(str(ctx, 'until'), 'until') ?? new Date();
    const since = parseDate(str(ctx, 'since'), 'since') ?? new Date(until.getTime() - 7 * 86_400_000);
    const result = oneOf(ctx, 'result', LIST_RESULTS, 'results list');
    const product = oneOf(ctx, 'product', PRODUCTS, 'results list');
    const unavailable = result === 'UNAVAILABLE';
    return withTarget(ctx, 'results list', async (target, tableName) => {
      const bar = progress(ctx.io);
      try {
        const items = await listResults(
          { dynamo: target.dynamo, s3: target.s3, tableName },
          // UNAVAILABLE items have a status and no result: select them by status below.
          { since, until, result: unavailable ? undefined : result, product },
          (day, found) => bar.update(`${day}: ${found} result(s)`),
        );
        const listed = items.filter((item) => !unavailable || item.status === 'UNAVAILABLE').map(summarize);
        if (format === 'json') return listed;
        bar.done();
        ctx.io.stdout(formatRows(format as OutputFormat, LIST_COLUMNS, listed as Record<string, unknown>[]));
        return undefined;
      } catch (error) {
        if (error instanceof RangeError) throw new UsageError(error.message, 'results list');
        throw error;
      } finally {
        bar.done();
      }
    });
  },
};

/** `idv results by-transaction ID` and `idv results by-reference REF`: the stored results of one key. */
function lookupCommand(
  name: 'by-transaction' | 'by-reference',
  positional: string,
  what: string,
  lookup: typeof resultsByTransaction,
): CliCommand {
  const command = `results ${name}`;
  return {
    path: ['results', name],
    summary: `list the stored results of one ${what}`,
    usage: `${command} ${positional} [--local | --table T]`,
    help: TARGET_HELP,
    options: TARGET_OPTIONS,
    positionals: true,
    connection: false,
    deployment: true,
    run: (ctx) =>
      withTarget(ctx, command, async (target, tableName) => {
        const key = onePositional(ctx, positional, command);
        return (await lookup({ dynamo: target.dynamo, s3: target.s3, tableName }, key)).map(summarize);
      }),
  };
}

export const resultsByTransactionCommand = lookupCommand(
  'by-transaction',
  'TRANSACTION_ID',
  'transaction',
  resultsByTransaction,
);
export const resultsByReferenceCommand = lookupCommand(
  'by-reference',
  'CUSTOMER_REFERENCE',
  'customer reference',
  resultsByReference,
);

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * `yyyy-MM-dd` as a bound: the start of the day for --since, its end for --until; or an ISO timestamp,
 * UTC unless it names an offset. Only these forms: `Date` would also read `5` as the year 2001 and roll
 * `2026-02-30` over into March.
 */
function parseDate(value: string | undefined, flag: 'since' | 'until'): Date | undefined {
  if (value === undefined) return undefined;
  const match = ISO_DATE.exec(value);
  const [, year, month, day] = match ?? [];
  const dayOnly = match !== null && value.length === 10;
  const text = dayOnly
    ? `${value}T${flag === 'since' ? '00:00:00.000' : '23:59:59.999'}Z`
    : match && match[4] === undefined
      ? `${value}Z`
      : value;
  const date = new Date(text);
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const realDay =
    calendar.getUTCFullYear() === Number(year) &&
    calendar.getUTCMonth() + 1 === Number(month) &&
    calendar.getUTCDate() === Number(day);
  if (!match || !realDay || Number.isNaN(date.getTime()))
    throw new UsageError(`--${flag} must be yyyy-MM-dd or an ISO timestamp (got "${value}")`, 'results list');
  return date;
}

/** Environment variable of the log groups `results trace` searches on AWS (comma-separated). */
export const LOG_GROUPS_VARIABLE = 'IDV_LOG_GROUPS';

/** How `results trace` reaches CloudWatch Logs; tests replace `open` with a fake. */
export const traceLogs: { open: () => Promise<LogsInsightsPort | undefined> } = {
  open: cloudWatchLogsInsights,
};

/** `idv results trace RESULT_ID`. */
export const resultsTraceCommand: CliCommand = {
  path: ['results', 'trace'],
  summary:
    'the story of one result in order: announcements, fetch attempts with reason codes, storage, events',
  usage: 'results trace RESULT_ID [--local | (--stack NAME | --table T) --log-group NAME...] [--since DATE]',
  help: `  --log-group NAME     a function's log group to search (repeatable; or ${LOG_GROUPS_VARIABLE}=a,b):
                       the webhook's and fetch-result's (AWS, CloudWatch Logs Insights)
  --since DATE         start of the log search (default: 7 days before now)
Locally the steps come from <data-dir>/trace.jsonl (written by \`npm start\`); on AWS from the logs'
correlation id resultId. Only ids, sources, outcomes, reason codes and times: no personal data.

${TARGET_HELP}`,
  options: { ...TARGET_OPTIONS, 'log-group': { type: 'string', multiple: true }, since: { type: 'string' } },
  positionals: true,
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const resultId = onePositional(ctx, 'RESULT_ID', 'results trace');
    const since = parseDate(str(ctx, 'since'), 'since') ?? new Date(Date.now() - 7 * 86_400_000);
    return withTarget(ctx, 'results trace', async (target, tableName) => {
      const [item, publication] = await Promise.all([
        getResult({ dynamo: target.dynamo, s3: target.s3, tableName }, resultId),
        new Publications(target.dynamo, tableName).get(resultId),
      ]);
      if (target.local) {
        const dataDir = resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
        return traceOrMissing(
          buildTrace({ resultId, item, publication, steps: journalSteps(dataDir, resultId) }),
        );
      }
      const groups = logGroups(ctx);
      const missing: string[] = [];
      let steps: Awaited<ReturnType<typeof queryTraceSteps>> = [];
      const logs = groups.length > 0 ? await traceLogs.open() : undefined;
      if (groups.length === 0) missing.push(`logs: pass --log-group or set ${LOG_GROUPS_VARIABLE}`);
      else if (!logs) missing.push('logs: @aws-sdk/client-cloudwatch-logs is not installed');
      else {
        const bar = progress(ctx.io);
        try {
          bar.update('querying CloudWatch Logs Insights');
          steps = await queryTraceSteps({ logs, logGroupNames: groups, resultId, since, until: new Date() });
        } finally {
          bar.done();
          logs.close();
        }
      }
      return traceOrMissing(buildTrace({ resultId, item, publication, steps, missing }));
    });
  },
};

function traceOrMissing(trace: ResultTrace): ResultTrace {
  if (trace.steps.length === 0 && !trace.status) {
    throw new Error(`nothing known of ${trace.resultId}: no item, no publication record, no log line`);
  }
  return trace;
}

function logGroups(ctx: CommandContext): string[] {
  const flags = ctx.values['log-group'];
  const given = Array.isArray(flags) ? flags.filter((v): v is string => typeof v === 'string') : [];
  if (given.length > 0) return given;
  return (ctx.io.env[LOG_GROUPS_VARIABLE] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}
