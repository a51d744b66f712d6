/**
 * `idv results erase`, `idv results retention` and `idv results refetch` (docs/erasure.md and
 * docs/pipeline.md, "Retention"): erasure on request and retention you can see, against AWS or, with
 * `--local`, the local stack. The work is in `shared/erasure/` (erase-result.ts erases what traces.ts
 * lists, retention.ts checks retention); this module picks the target, hands in the stores only it can
 * reach (the projection's engine, the local journals) and reports.
 */
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { listLocalProjectionResults } from '../../local/analytics-store';
import type { AwsTarget } from '../../local/aws-target';
import { localErasureReaches } from '../../local/erase-local-files';
import {
  findProjectionObjects,
  icebergProjectionRows,
  listProjectionObjects,
} from '../../shared/analytics/erase';
import { RESULTS_RAW_TABLE } from '../../shared/analytics/queries';
import { RESULT_ID_PATTERN, RESULT_ID_RULE } from '../../shared/api/result-id';
import { ENV } from '../../shared/config';
import { type CopyBounds, DEFAULT_COPY_BOUNDS, parseCopyBounds } from '../../shared/erasure/bounds';
import {
  type ErasureDeps,
  type ErasurePlan,
  type ErasureReaches,
  type ErasureSelector,
  eraseResult,
  planErasure,
  selectResults,
  unfinishedErasures,
} from '../../shared/erasure/erase-result';
import { type QueueWalk, queuePurgeReach } from '../../shared/erasure/queue-purge';
import {
  checkRetention,
  DEFAULT_GRACE_DAYS,
  expirySchedule,
  type RetentionDeps,
} from '../../shared/erasure/retention';
import { purgePrefix } from '../../shared/erasure/s3-purge';
import type { TraceReach } from '../../shared/erasure/traces';
import { publishResultErased } from '../../shared/events/erased-event';
import { DEFAULT_AUDIT_RETENTION_DAYS, type ErasureRecord } from '../../shared/store/erasure-record';
import { safeJson } from '../../shared/terminal-text';
import { UsageError } from './errors';
import { str } from './flags';
import { openTarget, QUEUE_TARGET_OPTIONS, TARGET_HELP, TARGET_OPTIONS } from './results';
import type { CliCommand, CommandContext } from './types';

/** Retention of the local run when nothing else is said (`npm start --retention-days`, default 30). */
const LOCAL_RETENTION_DAYS = 30;

const SELECTORS = ['result-id', 'transaction-id', 'customer-reference'] as const;

/** The one selector flag given; a usage error for none or several. */
function selectorOf(ctx: CommandContext): ErasureSelector {
  const given = SELECTORS.filter((name) => str(ctx, name) !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      'give exactly one of --result-id, --transaction-id, --customer-reference',
      'results erase',
    );
  }
  const by = given[0]!;
  const value = str(ctx, by)!;
  if (value === '') throw new UsageError(`--${by} is empty`, 'results erase');
  if (by === 'result-id' && !RESULT_ID_PATTERN.test(value))
    throw new UsageError(`--result-id ${RESULT_ID_RULE}`, 'results erase');
  return { by, value };
}

/** A whole number flag of at least 1, or `fallback`. */
function days(
  ctx: CommandContext,
  name: string,
  fallback: number | undefined,
  command: string,
): number | undefined {
  const raw = str(ctx, name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--${name} must be a whole number of days (1 or more)`, command);
  return Number(raw);
}

function dataDirOf(ctx: CommandContext): string {
  return resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
}

/**
 * The stores the erasure reaches through this tool: locally the data directory's projection and journals
 * (local/erase-local-files.ts); on AWS the projection's rows — the Iceberg table through Athena when the
 * deployment has an analytics workgroup (`--workgroup`/`--database` or its stack outputs), else the
 * records of an older deployment's analytics bucket. `iceberg`: the receipt names the table's copies.
 */
async function reachesOf(
  ctx: CommandContext,
  target: AwsTarget,
  analyticsBucket: string | undefined,
): Promise<{ reaches: ErasureReaches; iceberg: boolean }> {
  if (target.local) return { reaches: localErasureReaches(dataDirOf(ctx)), iceberg: false };
  const deployment = await ctx.deployment();
  const workgroup = str(ctx, 'workgroup') ?? deployment?.AnalyticsWorkgroup;
  const database = str(ctx, 'database') ?? deployment?.AnalyticsDatabase;
  // The JSON records of an older deployment's projector, while they exist in the analytics bucket.
  const objects: TraceReach | undefined = analyticsBucket
    ? {
        find: (resultId) => findProjectionObjects(target.s3, analyticsBucket, resultId),
        remove: async (_resultId, rows) => {
          for (const key of rows) await purgePrefix(target.s3, analyticsBucket, key, 'aws', (k) => k === key);
          return rows.length;
        },
      }
    : undefined;
  if (!(workgroup && database)) {
    if (objects) return { reaches: { projection: objects }, iceberg: false };
    throw new UsageError(
      'no analytics projection: pass --stack NAME (or --workgroup WG --database DB), or --analytics-bucket A for an older deployment (the projection row must go too)',
      'results erase',
    );
  }
  const { AthenaClient } = await import('@aws-sdk/client-athena');
  const { athenaEngine } = await import('./analytics-athena');
  const table = icebergProjectionRows(athenaEngine({ athena: new AthenaClient({}), workgroup, database }));
  const reach: TraceReach = {
    find: async (resultId) => [...(await table.find(resultId)), ...((await objects?.find(resultId)) ?? [])],
    remove: async (resultId, rows) =>
      (await table.remove(resultId)) +
      ((await objects?.remove(
        resultId,
        rows.filter((row) => !row.startsWith(`${RESULTS_RAW_TABLE} `)),
      )) ?? 0),
  };
  return { reaches: { projection: reach }, iceberg: true };
}

/**
 * The deployment's copy bounds, for the receipt: its `ErasureBounds` output; the defaults (with a note)
 * when the deployment was named by flags and has no outputs to read.
 */
async function copyBoundsOf(ctx: CommandContext): Promise<{ bounds: CopyBounds; note?: string }> {
  const output = (await ctx.deployment())?.ErasureBounds;
  if (output !== undefined) return { bounds: parseCopyBounds(output) };
  return {
    bounds: DEFAULT_COPY_BOUNDS,
    note: 'the receipt assumes the default copy bounds: name the deployment (--stack) to use its ErasureBounds output',
  };
}

/** Who erases: `--principal`, else the local user, else the access key id the AWS credentials carry. */
async function principalOf(ctx: CommandContext, target: AwsTarget): Promise<string> {
  const given = str(ctx, 'principal');
  if (given) return given;
  if (target.local) return `local:${userInfo().username}`;
  const credentials = await target.s3.config.credentials();
  return `aws-access-key:${credentials.accessKeyId}`;
}

/** `idv results erase`. */
export const resultsEraseCommand: CliCommand = {
  path: ['results', 'erase'],
  summary:
    'erase results on request (GDPR art. 17): every object version, the items, the analytics row; an erasure record and an event prove it',
  usage:
    'results erase (--result-id ID | --transaction-id TX | --customer-reference REF) [--dry-run] [--principal P] [--local | --table T --bucket B --analytics-bucket A --event-bus E]',
  help: `  --result-id ID           erase this result
  --transaction-id TX      erase every result of this transaction (byTransactionId index)
  --customer-reference R   erase every result of this customer reference (byCustomerReference index)
  --dry-run                show what would be removed (keys, version counts, items, rows); change nothing
  --principal P            who asks, for the erasure record (default: the local user, or on AWS the
                           access key id of the credentials in use)
  --audit-retention-days N how long the erasure record is kept (default ${DEFAULT_AUDIT_RETENTION_DAYS})
  --workgroup WG --database DB  the analytics workgroup and database of the Iceberg projection (AWS;
                           default: the deployment's outputs AnalyticsWorkgroup, AnalyticsDatabase)
  --analytics-bucket A     IDV_ANALYTICS_BUCKET  analytics bucket of an older deployment's JSON projection
  --event-bus E            IDV_EVENT_BUS         bus for the VerificationResultErased event (AWS)
  --markers-table T        IDV_POLL_MARKERS_TABLE the poll's enqueue markers (AWS)
  --queue-url URL          IDV_RESULTS_QUEUE_URL the results queue (AWS; default: the deployment's output)
  --dlq-url URL            its dead-letter queue (AWS; default: the deployment's output)
Removes, for each result, everything shared/erasure/traces.ts lists (docs/erasure.md): every S3 object
under results/<id>/ and staging/<id>/ with all versions and delete markers, open multipart uploads, the
result item, its polling record, its enqueue marker and its analytics row, its messages in the results
queue and the DLQ (a bounded walk that reports what it could not reach); locally also the lines of
events.jsonl, rules/*.jsonl and trace.jsonl naming it and its messages in queue-journal.jsonl. Writes an
erasure record (<id>#erasure: when, who, counts, receipt; no personal data) first, then fences the
publication record (waiting out a fetch in flight), so nothing stores the result again (\`idv results
refetch\` overrides); the record says ERASED only after every store, queues included, and then
VerificationResultErased is published. The receipt names, per store, erased now or the date each copy
out of reach is gone (the deployment's ErasureBounds output). A run killed or failed half-way leaves
ERASING naming what is left ("left"): run it again to finish (--local finishes every such erasure
first). On AWS it needs the erasure policy (infra/constructs/erasure.ts).

${TARGET_HELP}`,
  options: {
    ...TARGET_OPTIONS,
    'result-id': { type: 'string' },
    'transaction-id': { type: 'string' },
    'customer-reference': { type: 'string' },
    'dry-run': { type: 'boolean' },
    principal: { type: 'string' },
    'audit-retention-days': { type: 'string' },
    'analytics-bucket': { type: 'string' },
    workgroup: { type: 'string' },
    database: { type: 'string' },
    'event-bus': { type: 'string' },
    ...QUEUE_TARGET_OPTIONS,
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const command = 'results erase';
    const selector = selectorOf(ctx);
    const dryRun = ctx.values['dry-run'] === true;
    const auditRetentionDays = days(ctx, 'audit-retention-days', DEFAULT_AUDIT_RETENTION_DAYS, command)!;
    const queueUrl = str(ctx, 'queue-url');
    const dlqUrl = str(ctx, 'dlq-url');
    const target = await openTarget(ctx, { ...(queueUrl && { queueUrl }), ...(dlqUrl && { dlqUrl }) });
    try {
      const tableName = target.tableName;
      const bucketName = target.bucketName;
      if (!tableName)
        throw new UsageError(
          'no results table: pass --table, set IDV_RESULTS_TABLE, or use --local',
          command,
        );
      if (!bucketName)
        throw new UsageError('no data bucket: pass --bucket, set IDV_DATA_BUCKET, or use --local', command);
      const busName = str(ctx, 'event-bus') ?? target.eventBusName;
      if (!busName && !dryRun)
        throw new UsageError('no event bus: pass --event-bus or set IDV_EVENT_BUS', command);
      const projection = await reachesOf(
        ctx,
        target,
        str(ctx, 'analytics-bucket') ?? target.analyticsBucketName,
      );
      const bounds = target.local ? { bounds: DEFAULT_COPY_BOUNDS } : await copyBoundsOf(ctx);
      const queueReports: QueueWalk[] = [];
      if (!(target.queueUrl || target.dlqUrl))
        queueReports.push({ queue: 'results', reached: false }, { queue: 'dlq', reached: false });
      const deps: ErasureDeps = {
        dynamo: target.dynamo,
        s3: target.s3,
        tableName,
        bucketName,
        dialect: target.local ? 'local' : 'aws',
        markersTableName: str(ctx, 'markers-table') ?? target.markersTableName,
        // The queues too, inside the one operation: the record says ERASED only once they were walked
        // (and counts their messages); with no queue URL known they are reported as not reached.
        reaches: {
          ...projection.reaches,
          ...(target.queueUrl || target.dlqUrl
            ? {
                queues: queuePurgeReach(
                  target.sqs,
                  [
                    { name: 'results', url: target.queueUrl },
                    { name: 'dlq', url: target.dlqUrl },
                  ],
                  queueReports,
                ),
              }
            : {}),
        },
        receipt: { local: target.local, analytics: projection.iceberg, bounds: bounds.bounds },
        events: { publish: (detail) => publishResultErased(target.events, busName!, detail) },
        environment: target.environment,
      };
      const ids = await selectResults(deps, selector);
      // The value itself is never echoed: a customer reference may be personal data.
      if (ids.length === 0)
        throw new Error(`no stored result matches that --${selector.by} in ${target.description}`);
      if (dryRun) {
        const plans: ErasurePlan[] = [];
        for (const id of ids) plans.push(await planErasure(deps, id));
        return { dryRun: true, target: target.description, results: plans };
      }
      const principal = await principalOf(ctx, target);
      const erased: ErasureRecord[] = [];
      // Locally, an erasure a kill left ERASING is finished first, whatever this run selects.
      const unfinished = target.local ? await unfinishedErasures(target.dynamo, tableName) : [];
      const resumed: string[] = [];
      for (const { resultId, audit } of unfinished.filter((left) => !ids.includes(left.resultId))) {
        erased.push(await eraseResult(deps, resultId, { ...audit, auditRetentionDays }));
        resumed.push(resultId);
      }
      for (const id of ids) {
        erased.push(await eraseResult(deps, id, { principal, selectedBy: selector.by, auditRetentionDays }));
      }
      const notes = [
        ...(target.running
          ? [
              'npm start is running: the DynamoDB emulator compacts the deleted items out of its files when it stops',
            ]
          : []),
        ...(bounds.note ? [bounds.note] : []),
        ...(resumed.length > 0
          ? [`finished ${resumed.length} erasure(s) an earlier run left ERASING: ${resumed.join(', ')}`]
          : []),
      ];
      return {
        target: target.description,
        erased,
        queues: queueReports,
        ...(notes.length > 0 && { notes }),
      };
    } finally {
      await target.close();
    }
  },
};

/** `idv results retention [--check]`. */
export const resultsRetentionCommand: CliCommand = {
  path: ['results', 'retention'],
  summary: 'what expires when (by day); with --check, anything still present past its retention',
  usage:
    'results retention [--check] [--retention-days N] [--grace-days N] [--local | --table T --bucket B --analytics-bucket A]',
  help: `  --check              report results past retention + grace still in DynamoDB, S3 (any version) or
                       the analytics projection; exit 1 when there are any
  --retention-days N   ${ENV.retentionDays}: the stack's retention (default locally ${LOCAL_RETENTION_DAYS})
  --grace-days N       days TTL and lifecycle may lag before it is a finding (default ${DEFAULT_GRACE_DAYS})
  --analytics-bucket A IDV_ANALYTICS_BUCKET: the projection on AWS (left out when not given)
Without --check: results and objects by the UTC day their retention ends (the item's TTL; the S3
objects and the projection row of a result expire with it, at the following midnight UTC).

${TARGET_HELP}`,
  options: {
    ...TARGET_OPTIONS,
    check: { type: 'boolean' },
    'retention-days': { type: 'string' },
    'grace-days': { type: 'string' },
    'analytics-bucket': { type: 'string' },
  },
  connection: false,
  run: async (ctx) => {
    const command = 'results retention';
    const envDays = ctx.io.env[ENV.retentionDays];
    const graceDays = days(ctx, 'grace-days', DEFAULT_GRACE_DAYS, command)!;
    const fromFlag = days(ctx, 'retention-days', undefined, command);
    const target = await openTarget(ctx);
    try {
      if (!target.tableName || !target.bucketName)
        throw new UsageError(
          'pass --table and --bucket (or set IDV_RESULTS_TABLE, IDV_DATA_BUCKET), or use --local',
          command,
        );
      const analyticsBucket = str(ctx, 'analytics-bucket') ?? target.analyticsBucketName;
      const deps: RetentionDeps = {
        dynamo: target.dynamo,
        s3: target.s3,
        tableName: target.tableName,
        bucketName: target.bucketName,
        dialect: target.local ? 'local' : 'aws',
        ...(target.local
          ? { projection: () => listLocalProjectionResults(dataDirOf(ctx)) }
          : analyticsBucket && { projection: () => listProjectionObjects(target.s3, analyticsBucket) }),
      };
      if (ctx.values['check'] !== true)
        return { target: target.description, days: await expirySchedule(deps) };
      const retentionDays =
        fromFlag ??
        (envDays && /^\d+$/.test(envDays)
          ? Number(envDays)
          : target.local
            ? LOCAL_RETENTION_DAYS
            : undefined);
      if (retentionDays === undefined)
        throw new UsageError(`pass --retention-days or set ${ENV.retentionDays}`, command);
      const report = await checkRetention(deps, { retentionDays, graceDays });
      if (report.total === 0) return { target: target.description, ...report };
      ctx.io.stdout(`${safeJson({ target: target.description, ...report }, 2)}\n`);
      throw new Error(
        `${report.total} record(s) of ${report.resultIds.length}+ result(s) are past their retention`,
      );
    } finally {
      await target.close();
    }
  },
};

/** `idv results refetch RESULT_ID`: the one way to fetch an erased result again. */
export const resultsRefetchCommand: CliCommand = {
  path: ['results', 'refetch'],
  summary: 'queue a result to be fetched again, even after an erasure (the message says refetch)',
  usage: 'results refetch RESULT_ID [--local | --queue-url URL]',
  help: `  --queue-url URL      IDV_RESULTS_QUEUE_URL: the results queue (AWS)
Sends {"resultId","source":"redrive","refetch":true}. Without refetch, fetch-result acknowledges any
message of an erased result without fetching it.

${TARGET_HELP}`,
  options: { ...TARGET_OPTIONS, 'queue-url': { type: 'string' } },
  positionals: true,
  connection: false,
  run: async (ctx) => {
    const [resultId, extra] = ctx.positionals;
    if (!resultId) throw new UsageError('missing RESULT_ID', 'results refetch');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, 'results refetch');
    if (!RESULT_ID_PATTERN.test(resultId))
      throw new UsageError(`RESULT_ID ${RESULT_ID_RULE}`, 'results refetch');
    const queueUrl = str(ctx, 'queue-url');
    const target = await openTarget(ctx, queueUrl ? { queueUrl } : {});
    try {
      if (!target.queueUrl)
        throw new UsageError(
          'pass --queue-url or set IDV_RESULTS_QUEUE_URL, or use --local',
          'results refetch',
        );
      const body = { resultId, source: 'redrive', refetch: true };
      const sent = await target.sqs.send(
        new SendMessageCommand({ QueueUrl: target.queueUrl, MessageBody: JSON.stringify(body) }),
      );
      return { queued: body, messageId: sent.MessageId };
    } finally {
      await target.close();
    }
  },
};
