/**
 * The log side of `idv results trace` on AWS: a CloudWatch Logs Insights query for the lines that carry
 * one resultId (the functions log it as a correlation id on every line of its message, see
 * shared/logger.ts), run through a small port so that tests hand in a fake and the SDK client stays
 * optional (`cloudWatchLogsInsights` loads `@aws-sdk/client-cloudwatch-logs` only when it is installed).
 */
import { RESULT_ID_PATTERN } from '../../shared/api/result-id';
import { PipelineError } from '../../shared/errors';
import { stepOfLogLine, type TraceStep } from '../../shared/queries/trace';

/** What the trace needs of CloudWatch Logs (StartQuery + GetQueryResults). */
export interface LogsInsightsPort {
  startQuery(input: {
    logGroupNames: string[];
    queryString: string;
    /** Epoch seconds. */
    startTime: number;
    endTime: number;
    limit: number;
  }): Promise<string>;
  getQueryResults(
    queryId: string,
  ): Promise<{ status: string; results: { field: string; value: string }[][] }>;
  close(): void;
}

/** The query or its answer did not work out (the query failed, timed out or named no log group). */
export class LogsQueryError extends PipelineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LogsQueryError';
  }
}

/** Most lines one trace reads (a result that failed hundreds of times is summed up by its first ones). */
export const TRACE_LOG_LIMIT = 1000;

/**
 * The Logs Insights query of one result's lines. The resultId is checked against the resultId rule first:
 * it goes into the query text, and the rule admits no quote or backslash.
 */
export function traceQueryString(resultId: string): string {
  if (!RESULT_ID_PATTERN.test(resultId) || /["\\]/.test(resultId)) {
    throw new LogsQueryError('the resultId breaks the resultId rule: no query');
  }
  return [
    'fields @timestamp, message, level, source, reason, error.name, error.status, pipelineFunction',
    `| filter resultId = "${resultId}"`,
    '| sort @timestamp asc',
    `| limit ${TRACE_LOG_LIMIT}`,
  ].join('\n');
}

/** Options of {@link queryTraceSteps}. */
export interface TraceLogOptions {
  logs: LogsInsightsPort;
  logGroupNames: string[];
  resultId: string;
  /** Window searched. */
  since: Date;
  until: Date;
  /** @default 1000 */
  pollIntervalMs?: number;
  /** Give up after this long. @default 60000 */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Runs the query and turns the lines into trace steps (lines that tell no step are left out). */
export async function queryTraceSteps(options: TraceLogOptions): Promise<TraceStep[]> {
  if (options.logGroupNames.length === 0) throw new LogsQueryError('no log group to search');
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const queryId = await options.logs.startQuery({
    logGroupNames: options.logGroupNames,
    queryString: traceQueryString(options.resultId),
    startTime: Math.floor(options.since.getTime() / 1000),
    endTime: Math.ceil(options.until.getTime() / 1000),
    limit: TRACE_LOG_LIMIT,
  });
  const pollMs = options.pollIntervalMs ?? 1000;
  const deadline = Date.now() + (options.maxWaitMs ?? 60_000);
  for (;;) {
    const answer = await options.logs.getQueryResults(queryId);
    if (answer.status === 'Complete') return answer.results.flatMap((row) => stepOfRow(row) ?? []);
    if (['Failed', 'Cancelled', 'Timeout', 'Unknown'].includes(answer.status)) {
      throw new LogsQueryError(`the Logs Insights query ended ${answer.status}`);
    }
    if (Date.now() >= deadline) throw new LogsQueryError('the Logs Insights query did not complete in time');
    await sleep(pollMs);
  }
}

function stepOfRow(row: { field: string; value: string }[]): TraceStep | undefined {
  const fields: Record<string, string> = {};
  for (const { field, value } of row) fields[field] = value;
  const status = Number(fields['error.status']);
  return stepOfLogLine(
    {
      // Insights answers `2026-08-10 12:00:00.123` in UTC.
      timestamp: fields['@timestamp'] ? `${fields['@timestamp'].replace(' ', 'T')}Z` : undefined,
      message: fields.message,
      source: fields.source,
      reason: fields.reason,
      ...(fields['error.name'] && {
        error: { name: fields['error.name'], ...(Number.isFinite(status) && { status }) },
      }),
    },
    'logs',
  );
}

/** The SDK module, named in a variable so that the build does not need it installed. */
const LOGS_MODULE = '@aws-sdk/client-cloudwatch-logs';

/**
 * A {@link LogsInsightsPort} over `@aws-sdk/client-cloudwatch-logs`, or undefined when that package is
 * not installed (the trace then says its log part is missing).
 */
export async function cloudWatchLogsInsights(): Promise<LogsInsightsPort | undefined> {
  let sdk: Record<string, new (input?: unknown) => unknown>;
  try {
    sdk = (await import(LOGS_MODULE)) as typeof sdk;
  } catch {
    return undefined;
  }
  const client = new sdk.CloudWatchLogsClient!({}) as {
    send(command: unknown): Promise<Record<string, unknown>>;
    destroy(): void;
  };
  return {
    startQuery: async (input) => {
      const answer = await client.send(new sdk.StartQueryCommand!(input));
      return String(answer.queryId);
    },
    getQueryResults: async (queryId) => {
      const answer = await client.send(new sdk.GetQueryResultsCommand!({ queryId }));
      return {
        status: String(answer.status ?? 'Unknown'),
        results: (answer.results ?? []) as { field: string; value: string }[][],
      };
    },
    close: () => client.destroy(),
  };
}
