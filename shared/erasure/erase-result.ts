/**
 * Erasure on request (docs/erasure.md): everything the pipeline stored of one result, gone — each trace
 * that shared/erasure/traces.ts lists: every S3 object of the result with all its versions and delete
 * markers and its multipart uploads, its items (result, publication record, polling record, enqueue
 * marker), its analytics row, and through the caller's reaches its queue messages and local journal
 * lines — and an erasure record and a `VerificationResultErased` event that say so, with a receipt of
 * when each copy out of reach is gone, without holding any of it.
 *
 * Order: the erasure record first (`ERASING`), so fetch-result refuses to store the result again from
 * the moment anything is deleted; then the fence on the publication record (`shared/erasure/fence.ts`),
 * which waits out a fetch in flight and replaces the record; then S3, the projection, the queues, the
 * journals, the items; then the record (`ERASED`, with counts and receipt) and the event. This one
 * operation owns the whole order: the caller runs nothing after it. Before each step the `ERASING`
 * record names what is left (`left`) and the counts so far, so a run killed at any moment leaves it
 * naming what is still there. Every step is idempotent: an erasure that failed or was killed half-way is
 * finished by running it again ({@link unfinishedErasures} finds them locally), and a second run adds
 * its counts to the first's. The CLI (`idv results erase`, bin/cli/erase.ts) and the local run
 * (local/erasure-resume.ts) pick the target and hand in the reaches.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { ResultErasedDetail } from '../events/detail-types';
import { erasedDetail } from '../events/erased-event';
import { resultsByReference, resultsByTransaction } from '../queries/results';
import type { ErasureReceipt } from '../store/erasure-receipt';
import {
  DEFAULT_AUDIT_RETENTION_DAYS,
  type ErasureCounts,
  type ErasureRecord,
  ErasureRecords,
  erasureKey,
} from '../store/erasure-record';
import { type ResultItem, resultItemKey } from '../store/item';
import { resultVersionPrefix } from '../store/keys';
import { RESULTS_TABLE } from '../store/table-schema';
import { historyOf } from '../store/versions';
import { erasureReceipt, type ReceiptScope } from './bounds';
import { type FenceOptions, fencePublication } from './fence';
import { listPrefix, purgePrefix, type S3Dialect } from './s3-purge';
import { ITEM_TRACES, OBJECT_TRACES, type TraceReach, type TraceTable } from './traces';

/** How results are picked: one flag of `idv results erase`. */
export type ErasureSelector =
  | { readonly by: 'result-id'; readonly value: string }
  | { readonly by: 'transaction-id'; readonly value: string }
  | { readonly by: 'customer-reference'; readonly value: string };

/** Where the erasure publishes its event (EventBridge on AWS, the local bus locally). */
export interface ErasedEventSink {
  publish(detail: ResultErasedDetail): Promise<void>;
}

/** The stores reached through the caller: the projection always, the queues and journals when given. */
export interface ErasureReaches {
  readonly projection: TraceReach;
  /** The results queue and its DLQ. @default none (their messages are not looked for) */
  readonly queues?: TraceReach;
  /** The local run's journals. @default none (not a local run) */
  readonly journals?: TraceReach;
}

/** Everything an erasure reaches. */
export interface ErasureDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly tableName: string;
  /** The data bucket; a result's item may name its own (it is purged too). */
  readonly bucketName: string;
  /** AWS S3 (versions) or the local emulator (one version per key). */
  readonly dialect: S3Dialect;
  /** The poll's enqueue markers table. @default none (no marker is looked for) */
  readonly markersTableName?: string;
  readonly reaches: ErasureReaches;
  /** What the receipt says of the copies out of reach. */
  readonly receipt: ReceiptScope;
  readonly events: ErasedEventSink;
  /** Service environment for the event, when known. */
  readonly environment?: string;
  readonly now?: () => Date;
  /** How the fence waits out a fetch in flight (`shared/erasure/fence.ts`). */
  readonly fence?: FenceOptions;
}

/** Who erases, and how long the proof is kept. */
export interface ErasureAudit {
  /** The principal the tool runs as (an ARN, an access key id, a user name): never data of the person erased. */
  readonly principal: string;
  readonly selectedBy: ErasureSelector['by'];
  /** @default DEFAULT_AUDIT_RETENTION_DAYS */
  readonly auditRetentionDays?: number;
}

/** What an erasure of one result would remove (`--dry-run`) — keys and counts, no result data. */
export interface ErasurePlan {
  readonly resultId: string;
  /** The item's status and transaction, when there is an item. */
  readonly item?: { readonly status: string; readonly transactionId?: string; readonly completed?: string };
  readonly publicationRecord: boolean;
  readonly pollRecord: boolean;
  readonly enqueueMarker: boolean;
  /** Keys in the data bucket (each with all its versions) and open multipart uploads. */
  readonly objects: { keys: string[]; versions: number; deleteMarkers: number; uploads: number };
  readonly analyticsRows: string[];
  /** What the queue and journal reaches found, when given. */
  readonly queueMessages?: string[];
  readonly journalLines?: string[];
  /** A former erasure of this result. */
  readonly erased?: { readonly state: string; readonly erasedAt?: string };
}

/**
 * The resultIds `selector` picks: the id itself with the results that hold other versions of its verdict
 * (a new resultId the service issued for the transaction after a review, or the one before it:
 * docs/changed-verdicts.md), or every result of the transaction or reference.
 */
export async function selectResults(deps: ErasureDeps, selector: ErasureSelector): Promise<string[]> {
  const query = { dynamo: deps.dynamo, s3: deps.s3, tableName: deps.tableName };
  if (selector.by === 'result-id') return linkedVersions(deps, query, selector.value);
  const items =
    selector.by === 'transaction-id'
      ? await resultsByTransaction(query, selector.value)
      : await resultsByReference(query, selector.value);
  return [...new Set(items.map((item) => item.resultId))];
}

/** `resultId` and the results of its transaction whose version history names it, or that its history names. */
async function linkedVersions(
  deps: ErasureDeps,
  query: Parameters<typeof resultsByTransaction>[0],
  resultId: string,
): Promise<string[]> {
  const item = (await getByKey(deps, deps.tableName, resultItemKey(resultId))) as ResultItem | undefined;
  if (!item?.transactionId) return [resultId];
  const named = (of: ResultItem) => new Set((of.versions ?? []).map((v) => v.resultId));
  const own = named(item);
  const linked = (await resultsByTransaction(query, item.transactionId))
    .filter((other) => own.has(other.resultId) || named(other).has(resultId))
    .map((other) => other.resultId);
  return [...new Set([resultId, ...linked])];
}

/** The versions of the verdict `item` holds under its own resultId, as the erasure record reports them. */
function versionsOf(item: ResultItem | undefined, resultId: string) {
  if (!item?.versions) return undefined;
  return historyOf(item)
    .filter((v) => v.resultId === resultId)
    .map((v) => ({ version: v.version, resultId, objectsPrefix: resultVersionPrefix(resultId, v.version) }));
}

/** The table name of a registered table, or undefined when the caller has none (no markers table). */
function tableOf(deps: ErasureDeps, table: TraceTable): string | undefined {
  return table === 'results' ? deps.tableName : deps.markersTableName;
}

/** The item of each registered kind of `resultId`, by kind (absent ones undefined). */
async function readItems(deps: ErasureDeps, resultId: string) {
  const found = await Promise.all(
    ITEM_TRACES.map(async (trace) => {
      const table = tableOf(deps, trace.table);
      return [trace.kind, table ? await getByKey(deps, table, trace.key(resultId)) : undefined] as const;
    }),
  );
  return new Map(found);
}

/** What erasing `resultId` would remove; reads only. */
export async function planErasure(deps: ErasureDeps, resultId: string): Promise<ErasurePlan> {
  const [items, erasure] = await Promise.all([
    readItems(deps, resultId),
    new ErasureRecords(deps.dynamo, deps.tableName).get(resultId),
  ]);
  const item = items.get('result-item') as ResultItem | undefined;
  const objects = { keys: [] as string[], versions: 0, deleteMarkers: 0, uploads: 0 };
  const keys = new Set<string>();
  for (const bucket of buckets(deps, item)) {
    for (const trace of OBJECT_TRACES) {
      const contents = await listPrefix(deps.s3, bucket, trace.prefix(resultId), deps.dialect);
      for (const version of contents.versions) {
        keys.add(version.key);
        if (version.deleteMarker) objects.deleteMarkers++;
        else objects.versions++;
      }
      objects.uploads += contents.uploads.length;
    }
  }
  objects.keys = [...keys].sort();
  const { queues, journals } = deps.reaches;
  return {
    resultId,
    ...(item && {
      item: {
        status: item.status,
        ...(item.transactionId && { transactionId: item.transactionId }),
        completed: item.completed,
      },
    }),
    publicationRecord: items.get('publication-record') !== undefined,
    pollRecord: items.get('poll-record') !== undefined,
    enqueueMarker: items.get('enqueue-marker') !== undefined,
    objects,
    analyticsRows: await deps.reaches.projection.find(resultId),
    ...(queues && { queueMessages: await queues.find(resultId) }),
    ...(journals && { journalLines: await journals.find(resultId) }),
    ...(erasure && {
      erased: { state: erasure.state, ...(erasure.erasedAt && { erasedAt: erasure.erasedAt }) },
    }),
  };
}

/** Finds and removes `resultId`'s traces through one reach. */
async function removeVia(reach: TraceReach, resultId: string): Promise<number> {
  return reach.remove(resultId, await reach.find(resultId));
}

/**
 * Erases one result everywhere the pipeline keeps it and returns the erasure record. Throws when a
 * store refused (S3 errors per key, DynamoDB): the record stays `ERASING` and a second run finishes.
 */
export async function eraseResult(
  deps: ErasureDeps,
  resultId: string,
  audit: ErasureAudit,
): Promise<ErasureRecord> {
  const now = deps.now ?? (() => new Date());
  const records = new ErasureRecords(deps.dynamo, deps.tableName);
  const earlier = await records.get(resultId);
  const requestedAt = earlier?.requestedAt ?? now().toISOString();
  const days = audit.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS;
  const base = {
    resultId: erasureKey(resultId),
    erasedResultId: resultId,
    requestedAt,
    principal: audit.principal,
    selectedBy: audit.selectedBy,
    expiresAt: Math.floor(Date.parse(requestedAt) / 1000) + days * 86_400,
  };
  // The optional counts only when their reach was given (set below).
  const counts: { -readonly [K in keyof ErasureCounts]: ErasureCounts[K] } = {
    objectVersions: 0,
    deleteMarkers: 0,
    objects: 0,
    uploadsAborted: 0,
    items: 0,
    analyticsRows: 0,
  };
  // Read once the fence holds (below); the steps run after that.
  let item: ResultItem | undefined;
  let replacedRecord = false;
  const { projection, queues, journals } = deps.reaches;
  // Every store in one order, each step named by the traces it removes. Before each step the record
  // says what is left (`left`), so a run killed at any point leaves `ERASING` naming it, and the next run
  // (every step is idempotent) finishes it; `ERASED` is written only after the last step.
  const steps: ErasureStep[] = [
    {
      traces: OBJECT_TRACES.map((trace) => trace.kind),
      run: async () => {
        for (const bucket of buckets(deps, item)) {
          for (const trace of OBJECT_TRACES) {
            const purged = await purgePrefix(deps.s3, bucket, trace.prefix(resultId), deps.dialect);
            counts.objectVersions += purged.versions;
            counts.deleteMarkers += purged.deleteMarkers;
            counts.objects += purged.keys;
            counts.uploadsAborted += purged.uploads;
          }
        }
      },
    },
    {
      traces: ['analytics-row'],
      run: async () => {
        counts.analyticsRows = await removeVia(projection, resultId);
      },
    },
    // The queues after the stores a message could refill: a message received meanwhile is acknowledged
    // as erased by fetch-result itself (the record fences it).
    ...(queues
      ? [
          {
            traces: ['queue-messages'],
            run: async () => {
              counts.queueMessages = await removeVia(queues, resultId);
            },
          },
        ]
      : []),
    ...(journals
      ? [
          {
            traces: ['local-journals'],
            run: async () => {
              counts.journalLines = await removeVia(journals, resultId);
            },
          },
        ]
      : []),
    {
      // The publication record is not deleted: the fence replaced it (no status, no token, only erasedAt).
      traces: ITEM_TRACES.filter((trace) => trace.kind !== 'publication-record').map((trace) => trace.kind),
      run: async () => {
        const deletions = ITEM_TRACES.filter((trace) => trace.kind !== 'publication-record').flatMap(
          (trace) => {
            const table = tableOf(deps, trace.table);
            return table ? [deleteByKey(deps, table, trace.key(resultId))] : [];
          },
        );
        counts.items = (await Promise.all(deletions)).filter(Boolean).length + (replacedRecord ? 1 : 0);
      },
    },
  ];
  const leftFrom = (index: number) => steps.slice(index).flatMap((step) => step.traces);
  const every = leftFrom(0);
  // The record first, naming every step as left: from here on a redelivered message stores nothing
  // (fetch-result reads this), and a fetch in flight sees it after its last object. Its counts once a
  // step has run (fewer kinds left than all of them), so a run killed later keeps what it removed.
  const erasing = (left: readonly string[]): ErasureRecord => {
    const sofar = add(earlier?.counts, counts);
    return {
      ...base,
      state: 'ERASING',
      ...(earlier?.counts || left.length < every.length ? { counts: sofar } : {}),
      left,
    };
  };
  await records.put(erasing(leftFrom(0)));
  // Then the fence (shared/erasure/fence.ts): waits until no fetch holds the publication claim, so
  // nothing a fetch writes lands after the deletions below, and no claim is taken afterwards.
  const fenced = await fencePublication(
    deps.dynamo,
    deps.tableName,
    resultId,
    now().toISOString(),
    base.expiresAt,
    deps.fence,
  );
  replacedRecord = fenced.replacedRecord;
  item = (await getByKey(deps, deps.tableName, resultItemKey(resultId))) as ResultItem | undefined;
  for (const [index, step] of steps.entries()) {
    // The first step's list was written with the record above.
    if (index > 0) await records.put(erasing(leftFrom(index)));
    await step.run();
  }

  const erasedAt = now().toISOString();
  const receipt: ErasureReceipt = erasureReceipt(erasedAt, deps.receipt);
  const record: ErasureRecord = {
    ...base,
    state: 'ERASED',
    erasedAt,
    counts: add(earlier?.counts, counts),
    receipt,
    ...((versionsOf(item, resultId) ?? earlier?.versions) && {
      versions: versionsOf(item, resultId) ?? earlier?.versions,
    }),
  };
  await records.put(record);
  await deps.events.publish(
    erasedDetail({
      resultId,
      transactionId: item?.transactionId,
      erasedAt,
      environment: deps.environment,
      table: deps.tableName,
      removed: {
        objectVersions: counts.objectVersions,
        deleteMarkers: counts.deleteMarkers,
        items: counts.items,
        analyticsRows: counts.analyticsRows,
      },
      receipt,
    }),
  );
  return record;
}

/** One step of {@link eraseResult}: the trace kinds it removes, and the work. */
interface ErasureStep {
  readonly traces: readonly string[];
  run(): Promise<void>;
}

/**
 * The erasures of a table a run left `ERASING` (killed, or a store refused): their result ids, principal
 * and selector, so the next run finishes them (`idv results erase --local` does, before its own). A Scan
 * of the table for records in that state: for the local run (the AWS erasure policy grants no Scan;
 * there the operator runs the same command again, as the record's `left` says).
 */
export async function unfinishedErasures(
  dynamo: DynamoDBDocumentClient,
  tableName: string,
): Promise<{ resultId: string; audit: ErasureAudit }[]> {
  const found: { resultId: string; audit: ErasureAudit }[] = [];
  const pages = paginateScan(
    { client: dynamo },
    {
      TableName: tableName,
      FilterExpression: '#state = :erasing AND attribute_exists(erasedResultId)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':erasing': 'ERASING' },
    },
  );
  for await (const page of pages) {
    for (const record of (page.Items ?? []) as ErasureRecord[]) {
      found.push({
        resultId: record.erasedResultId,
        audit: {
          principal: record.principal,
          selectedBy: record.selectedBy as ErasureSelector['by'],
        },
      });
    }
  }
  return found;
}

function buckets(deps: ErasureDeps, item: { bucket?: unknown } | undefined): string[] {
  const own = typeof item?.bucket === 'string' ? item.bucket : undefined;
  return [...new Set([deps.bucketName, ...(own ? [own] : [])])];
}

async function getByKey(
  deps: ErasureDeps,
  table: string,
  key: string,
): Promise<Record<string, unknown> | undefined> {
  const answer = await deps.dynamo.send(
    new GetCommand({ TableName: table, Key: { [RESULTS_TABLE.partitionKey]: key }, ConsistentRead: true }),
  );
  return answer.Item;
}

/** Deletes one item; true when there was one. */
async function deleteByKey(deps: ErasureDeps, table: string, key: string): Promise<boolean> {
  const answer = await deps.dynamo.send(
    new DeleteCommand({
      TableName: table,
      Key: { [RESULTS_TABLE.partitionKey]: key },
      ReturnValues: 'ALL_OLD',
    }),
  );
  return answer.Attributes !== undefined;
}

/** Counts of two runs of one erasure, summed (the optional counts when either run had them). */
function add(earlier: ErasureCounts | undefined, now: ErasureCounts): ErasureCounts {
  if (!earlier) return now;
  const sum = (a?: number, b?: number) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const queueMessages = sum(earlier.queueMessages, now.queueMessages);
  const journalLines = sum(earlier.journalLines, now.journalLines);
  return {
    objectVersions: earlier.objectVersions + now.objectVersions,
    deleteMarkers: earlier.deleteMarkers + now.deleteMarkers,
    objects: earlier.objects + now.objects,
    uploadsAborted: earlier.uploadsAborted + now.uploadsAborted,
    items: earlier.items + now.items,
    analyticsRows: earlier.analyticsRows + now.analyticsRows,
    ...(queueMessages !== undefined && { queueMessages }),
    ...(journalLines !== undefined && { journalLines }),
  };
}
