/**
 * Erasure on request (docs/pipeline.md, "Erasure"): everything the pipeline stored of one result, gone
 * — every S3 object of the result with all its versions and delete markers, multipart uploads in
 * progress, the result item, its publication record, its enqueue marker and its analytics row — and an
 * erasure record and a `VerificationResultErased` event that say so without holding any of it.
 *
 * Order: the erasure record first (`ERASING`), so fetch-result refuses to store the result again from
 * the moment anything is deleted; then the fence on the publication record (`shared/erasure/fence.ts`),
 * which waits out a fetch in flight; then S3, the projection, the items; then the record (`ERASED`, with
 * counts) and the event. Every step is idempotent: an erasure that failed half-way is finished by running
 * it again, and a second run adds its (zero) counts to the first's.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type FenceOptions, fencePublication } from '../../shared/erasure/fence';
import { listPrefix, purgePrefix, type S3Dialect } from '../../shared/erasure/s3-purge';
import { erasedDetail, type ResultErasedDetail } from '../../shared/events/erased-event';
import { resultsByReference, resultsByTransaction } from '../../shared/queries/results';
import {
  DEFAULT_AUDIT_RETENTION_DAYS,
  type ErasureCounts,
  type ErasureRecord,
  ErasureRecords,
  erasureKey,
} from '../../shared/store/erasure-record';
import type { ResultItem } from '../../shared/store/item';
import { RESULTS_PREFIX, resultIdKeyPart, STAGING_PREFIX } from '../../shared/store/keys';
import { pollRecordKey } from '../../shared/store/poll-records';
import { publicationKey } from '../../shared/store/publication';
import { RESULTS_TABLE } from '../../shared/store/table-schema';

/** How results are picked: one flag of `idv results erase`. */
export type ErasureSelector =
  | { readonly by: 'result-id'; readonly value: string }
  | { readonly by: 'transaction-id'; readonly value: string }
  | { readonly by: 'customer-reference'; readonly value: string };

/** The analytics projection's rows of a result (local files or analytics-bucket keys). */
export interface ProjectionRows {
  find(resultId: string): Promise<string[]>;
  /** Removes the result's rows (`rows`: what `find` returned); returns how many went. */
  remove(resultId: string, rows: readonly string[]): Promise<number>;
}

/** Where the erasure publishes its event (EventBridge on AWS, the local bus locally). */
export interface ErasedEventSink {
  publish(detail: ResultErasedDetail): Promise<void>;
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
  readonly projection: ProjectionRows;
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
  readonly enqueueMarker: boolean;
  /** Keys in the data bucket (each with all its versions) and open multipart uploads. */
  readonly objects: { keys: string[]; versions: number; deleteMarkers: number; uploads: number };
  readonly analyticsRows: string[];
  /** A former erasure of this result. */
  readonly erased?: { readonly state: string; readonly erasedAt?: string };
}

/** The resultIds `selector` picks: the id itself, or every result of the transaction or reference. */
export async function selectResults(deps: ErasureDeps, selector: ErasureSelector): Promise<string[]> {
  if (selector.by === 'result-id') return [selector.value];
  const query = { dynamo: deps.dynamo, s3: deps.s3, tableName: deps.tableName };
  const items =
    selector.by === 'transaction-id'
      ? await resultsByTransaction(query, selector.value)
      : await resultsByReference(query, selector.value);
  return [...new Set(items.map((item) => item.resultId))];
}

/** Prefixes of a result's objects in the data bucket; the trailing `/` keeps other ids out. */
export function resultPrefixes(resultId: string): string[] {
  const part = resultIdKeyPart(resultId);
  return [`${RESULTS_PREFIX}${part}/`, `${STAGING_PREFIX}${part}/`];
}

/** What erasing `resultId` would remove; reads only. */
export async function planErasure(deps: ErasureDeps, resultId: string): Promise<ErasurePlan> {
  const [item, publication, marker, erasure] = await Promise.all([
    getByKey(deps, deps.tableName, resultId),
    getByKey(deps, deps.tableName, publicationKey(resultId)),
    deps.markersTableName ? getByKey(deps, deps.markersTableName, resultId) : undefined,
    new ErasureRecords(deps.dynamo, deps.tableName).get(resultId),
  ]);
  const objects = { keys: [] as string[], versions: 0, deleteMarkers: 0, uploads: 0 };
  const keys = new Set<string>();
  for (const bucket of buckets(deps, item)) {
    for (const prefix of resultPrefixes(resultId)) {
      const contents = await listPrefix(deps.s3, bucket, prefix, deps.dialect);
      for (const version of contents.versions) {
        keys.add(version.key);
        if (version.deleteMarker) objects.deleteMarkers++;
        else objects.versions++;
      }
      objects.uploads += contents.uploads.length;
    }
  }
  objects.keys = [...keys].sort();
  const stored = item as ResultItem | undefined;
  return {
    resultId,
    ...(stored && {
      item: {
        status: stored.status,
        ...(stored.transactionId && { transactionId: stored.transactionId }),
        completed: stored.completed,
      },
    }),
    publicationRecord: publication !== undefined,
    enqueueMarker: marker !== undefined,
    objects,
    analyticsRows: await deps.projection.find(resultId),
    ...(erasure && {
      erased: { state: erasure.state, ...(erasure.erasedAt && { erasedAt: erasure.erasedAt }) },
    }),
  };
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
  // The record first: from here on a redelivered message stores nothing (fetch-result reads this), and a
  // fetch in flight sees it after its last object.
  await records.put({ ...base, state: 'ERASING', ...(earlier?.counts && { counts: earlier.counts }) });
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
  const item = (await getByKey(deps, deps.tableName, resultId)) as ResultItem | undefined;

  const counts = {
    objectVersions: 0,
    deleteMarkers: 0,
    objects: 0,
    uploadsAborted: 0,
    items: 0,
    analyticsRows: 0,
  };
  for (const bucket of buckets(deps, item)) {
    for (const prefix of resultPrefixes(resultId)) {
      const purged = await purgePrefix(deps.s3, bucket, prefix, deps.dialect);
      counts.objectVersions += purged.versions;
      counts.deleteMarkers += purged.deleteMarkers;
      counts.objects += purged.keys;
      counts.uploadsAborted += purged.uploads;
    }
  }
  counts.analyticsRows = await deps.projection.remove(resultId, await deps.projection.find(resultId));
  // The publication record is not deleted: the fence replaced it (no status, no token, only erasedAt).
  const deletions = [
    deleteByKey(deps, deps.tableName, pollRecordKey(resultId)),
    deleteByKey(deps, deps.tableName, resultId),
    ...(deps.markersTableName ? [deleteByKey(deps, deps.markersTableName, resultId)] : []),
  ];
  counts.items = (await Promise.all(deletions)).filter(Boolean).length + (fenced.replacedRecord ? 1 : 0);

  const erasedAt = now().toISOString();
  const record: ErasureRecord = {
    ...base,
    state: 'ERASED',
    erasedAt,
    counts: add(earlier?.counts, counts),
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
    }),
  );
  return record;
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

function add(earlier: ErasureCounts | undefined, now: ErasureCounts): ErasureCounts {
  if (!earlier) return now;
  return {
    objectVersions: earlier.objectVersions + now.objectVersions,
    deleteMarkers: earlier.deleteMarkers + now.deleteMarkers,
    objects: earlier.objects + now.objects,
    uploadsAborted: earlier.uploadsAborted + now.uploadsAborted,
    items: earlier.items + now.items,
    analyticsRows: earlier.analyticsRows + now.analyticsRows,
  };
}
