/**
 * `idv results reconcile`: lists the resultIds that were enqueued and ended nowhere — no item STORED or
 * UNAVAILABLE, no erasure record, not in the DLQ (docs/reliability.md,
 * "Every message ends somewhere you can see"). Prints the report as JSON; exits 1 when any id is
 * unaccounted for, or when a source could not be read in full (nothing is proven then).
 */
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { localQueueFacts, queueNameOf } from '../../local/reconcile-sources';
import { RESULT_ID_PATTERN } from '../../shared/api/result-id';
import {
  dlqIds,
  type IdVersions,
  MAX_MARKER_IDS,
  markerIds,
  queueMessages,
  type ReconcileReport,
  reconcile,
  storeEnds,
} from '../../shared/queries/reconcile';
import { safeJson } from '../../shared/terminal-text';
import { UsageError } from './errors';
import { str } from './flags';
import { openTarget, QUEUE_TARGET_OPTIONS, TARGET_HELP, TARGET_OPTIONS } from './results';
import type { CliCommand, CommandContext } from './types';

const COMMAND = 'results reconcile';

/** Most ids an `--ids-file` may hold (one a line). */
const MAX_IDS_FILE_IDS = 1_000_000;

/** The report as printed. */
type ReconcileOutput = ReconcileReport & {
  target: string;
  /** Where the enqueued ids came from. */
  sources: string[];
  /** AWS: messages still in the results queue (SQS's approximate count; their ids are not read). */
  queueMessages?: number;
  /** What could not be read in full, if anything. */
  partial?: string[];
};

export const resultsReconcileCommand: CliCommand = {
  path: ['results', 'reconcile'],
  // Stryker disable next-line StringLiteral: help text, not a decision
  summary: 'list enqueued resultIds that ended nowhere (not STORED, UNAVAILABLE, ERASED or in the DLQ)',
  usage:
    // Stryker disable next-line StringLiteral: help text, not a decision
    'results reconcile [--ids-file FILE] [--local [--data-dir D] | --table T --markers-table M --dlq-url U --queue-url Q]',
  // Stryker disable next-line StringLiteral: help text, not a decision
  help: `  --ids-file FILE      more resultIds known to have been enqueued, one a line (e.g. from webhook logs)
  --markers-table NAME IDV_POLL_MARKERS_TABLE  the poll's enqueue markers (AWS)
  --queue-url URL      IDV_RESULTS_QUEUE_URL   the results queue (AWS)
  --dlq-url URL        IDV_DLQ_URL             its dead-letter queue (AWS)
Enqueued ids: locally, every message the local queue journal recorded and every result the trace
journal saw; on AWS, the poll's enqueue markers (they expire after two visibility windows, and a result
announced only by webhook has none: pass such ids with --ids-file). Ends: the results table (item status,
erasure record) and the DLQ, read without consuming it. An id whose message still waits in the results
queue is listed under "queued", not as unaccounted. Exit 1 when any id is unaccounted for, or when a
source could not be read in full (listed under "partial": the ids beyond it were not checked).

${TARGET_HELP}`,
  options: {
    ...TARGET_OPTIONS,
    'ids-file': { type: 'string' },
    ...QUEUE_TARGET_OPTIONS,
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    // The file first: a wrong path must not wait for (or start) the local emulators.
    const fromFile = await idsFile(ctx);
    // The journals before the target: starting the emulators on the directory compacts the queue journal.
    const local =
      ctx.values['local'] === true
        ? await localQueueFacts(resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local'))
        : undefined;
    const target = await openTarget(ctx, { queueUrl: str(ctx, 'queue-url'), dlqUrl: str(ctx, 'dlq-url') });
    try {
      const table = target.tableName;
      const markersTable = str(ctx, 'markers-table') ?? target.markersTableName;
      if (!table || !target.dlqUrl || (!target.local && !target.queueUrl)) {
        throw new UsageError(
          'need the results table, the queue and its DLQ: pass --stack NAME, --outputs-file FILE or --table, --queue-url and --dlq-url, or use --local',
          COMMAND,
        );
      }
      const enqueued = new Set(fromFile);
      const sources = fromFile.length > 0 ? ['--ids-file'] : [];
      const partial: string[] = [];
      let dlq: Set<string>;
      let queued: Set<string> | undefined;
      let waiting: number | undefined;
      if (local) {
        for (const id of local.enqueued) enqueued.add(id);
        sources.push(...local.sources);
        // The journal holds the DLQ whether or not `npm start` runs (fauxqs's queues live only while it does).
        dlq = local.pending.get(queueNameOf(target.dlqUrl)) ?? new Set();
        queued = local.pending.get(queueNameOf(target.queueUrl!)) ?? new Set();
      } else {
        dlq = await dlqIds(target.sqs, target.dlqUrl);
        waiting = await queueMessages(target.sqs, target.queueUrl!);
      }
      if (markersTable) {
        const markers = await markerIds(target.dynamo, markersTable);
        for (const id of markers.ids) enqueued.add(id);
        sources.push('enqueue markers');
        if (markers.truncated)
          partial.push(`enqueue markers: stopped at ${MAX_MARKER_IDS.toLocaleString('en')} ids`);
      }
      const versions = new Map<string, IdVersions>();
      const ends = await storeEnds(target.dynamo, table, enqueued, { versions });
      const report: ReconcileOutput = {
        target: target.description,
        sources,
        ...reconcile({ enqueued, ends, dlq, versions, ...(queued && { queued }) }),
        ...(waiting !== undefined && { queueMessages: waiting }),
        ...(partial.length > 0 && { partial }),
      };
      if (report.unaccounted.length === 0 && !report.partial) return report;
      ctx.io.stdout(`${safeJson(report, 2)}\n`);
      if (report.unaccounted.length > 0)
        throw new Error(
          `${report.unaccounted.length} enqueued resultId(s) ended nowhere (listed above as "unaccounted"): ` +
            'run `idv results trace ID` for each',
        );
      throw new Error(
        `not every enqueued resultId was checked (listed above as "partial"): ${report.partial!.join('; ')}`,
      );
    } finally {
      await target.close();
    }
  },
};

/** The well-formed resultIds of `--ids-file` (blank lines skipped); a malformed one is a usage error. */
async function idsFile(ctx: CommandContext): Promise<string[]> {
  const file = str(ctx, 'ids-file');
  if (file === undefined) return [];
  const ids: string[] = [];
  const input = createReadStream(resolve(ctx.io.cwd, file), 'utf8');
  try {
    let lineNo = 0;
    for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
      lineNo++;
      const id = line.trim();
      if (!id) continue;
      if (!RESULT_ID_PATTERN.test(id))
        throw new UsageError(`--ids-file line ${lineNo} is not a resultId`, COMMAND);
      if (ids.length >= MAX_IDS_FILE_IDS) {
        throw new UsageError(`--ids-file holds more than ${MAX_IDS_FILE_IDS} ids: split it`, COMMAND);
      }
      ids.push(id);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--ids-file ${file} cannot be read (${code ?? 'error'})`, COMMAND);
  } finally {
    input.destroy();
  }
  return ids;
}
