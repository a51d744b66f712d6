/**
 * Retention you can see (docs/pipeline.md, "Retention"): what expires when, and what is still there
 * after its retention. DynamoDB deletes an item some time after its TTL (`expiresAt`) and S3's lifecycle
 * expires objects at the midnight (UTC) after their age passes the retention days, so a result may
 * outlive its retention by a day or two; past that grace it is a finding: the retention promise is broken
 * (a lifecycle rule changed, TTL switched off, a copy outside the pipeline's prefixes).
 *
 * Reads only: one Scan of the results table (keys, status, `expiresAt` and `objectCount` — the index
 * would miss items whose `completed` is far from their `storedAt`), one listing of the data bucket's
 * `results/` prefix (every version on AWS) and one of the projection.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { RESULTS_PREFIX } from '../store/keys';
import { RESULTS_TABLE } from '../store/table-schema';
import { listPrefix, type S3Dialect } from './s3-purge';

/** Name of the metric the scheduled check emits (Count) and its alarm watches. */
export const PAST_RETENTION_METRIC = 'ResultsPastRetention';

/** Days a result may outlive its retention before the check reports it (TTL and lifecycle are lazy). */
export const DEFAULT_GRACE_DAYS = 2;

/** How many resultIds a report names (the counts are always whole). */
const MAX_NAMED = 100;

/** One row of the analytics projection as a retention check sees it. */
export interface ProjectionEntry {
  readonly resultId: string;
  readonly writtenAt: Date;
}

/** Where a retention check looks. */
export interface RetentionDeps {
  readonly dynamo: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly tableName: string;
  readonly bucketName: string;
  readonly dialect: S3Dialect;
  /** Every row of the projection. @default none (the projection is not checked) */
  readonly projection?: () => Promise<ProjectionEntry[]>;
  readonly now?: () => Date;
}

/** What expires on one day (UTC). */
export interface ExpiryDay {
  readonly day: string;
  readonly results: number;
  readonly objects: number;
}

/** What a check found past retention + grace. */
export interface RetentionReport {
  readonly checkedAt: string;
  readonly retentionDays: number;
  readonly graceDays: number;
  readonly pastRetention: {
    readonly items: number;
    readonly objectVersions: number;
    readonly projectionRows: number;
  };
  /** Total of the three: the metric's value. */
  readonly total: number;
  /** The resultIds concerned, at most 100. */
  readonly resultIds: string[];
}

interface ItemKeys {
  resultId: string;
  expiresAt?: number;
  objectCount?: number;
}

/** Every result item's key, TTL and object count (publication and erasure records left out). */
async function scanItems(deps: RetentionDeps): Promise<ItemKeys[]> {
  const items: ItemKeys[] = [];
  const pages = paginateScan(
    { client: deps.dynamo },
    {
      TableName: deps.tableName,
      ProjectionExpression: '#pk, expiresAt, objectCount',
      ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const key = item[RESULTS_TABLE.partitionKey];
      // `#` never occurs in a resultId: such keys are publication and erasure records.
      if (typeof key === 'string' && !key.includes('#')) items.push(item as ItemKeys);
    }
  }
  return items;
}

/** Results and objects by the UTC day their item's TTL falls on, soonest first. */
export async function expirySchedule(deps: RetentionDeps): Promise<ExpiryDay[]> {
  const days = new Map<string, { results: number; objects: number }>();
  for (const item of await scanItems(deps)) {
    if (typeof item.expiresAt !== 'number') continue;
    const day = new Date(item.expiresAt * 1000).toISOString().slice(0, 10);
    const entry = days.get(day) ?? { results: 0, objects: 0 };
    entry.results++;
    // result.json plus the images and files.
    entry.objects += 1 + (typeof item.objectCount === 'number' ? item.objectCount : 0);
    days.set(day, entry);
  }
  return [...days.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, n]) => ({ day, ...n }));
}

/** The resultId part of a `results/{id}/…` key (escaped form, see `resultIdKeyPart`). */
function keyResultPart(key: string): string {
  return key.slice(RESULTS_PREFIX.length).split('/')[0] ?? key;
}

/** Everything still present past `retentionDays` + `graceDays`. */
export async function checkRetention(
  deps: RetentionDeps,
  options: { retentionDays: number; graceDays?: number },
): Promise<RetentionReport> {
  const now = (deps.now ?? (() => new Date()))();
  const graceDays = options.graceDays ?? DEFAULT_GRACE_DAYS;
  const graceMs = graceDays * 86_400_000;
  const cutoff = new Date(now.getTime() - options.retentionDays * 86_400_000 - graceMs);
  const named = new Set<string>();
  const name = (id: string) => {
    if (named.size < MAX_NAMED) named.add(id);
  };

  let items = 0;
  for (const item of await scanItems(deps)) {
    if (typeof item.expiresAt === 'number' && item.expiresAt * 1000 < now.getTime() - graceMs) {
      items++;
      name(item.resultId);
    }
  }
  let objectVersions = 0;
  const listed = await listPrefix(deps.s3, deps.bucketName, RESULTS_PREFIX, deps.dialect);
  for (const version of listed.versions) {
    // A delete marker holds no data (the lifecycle drops expired ones).
    if (version.deleteMarker || !version.lastModified || version.lastModified >= cutoff) continue;
    objectVersions++;
    name(keyResultPart(version.key));
  }
  let projectionRows = 0;
  for (const row of (await deps.projection?.()) ?? []) {
    if (row.writtenAt < cutoff) {
      projectionRows++;
      name(row.resultId);
    }
  }
  return {
    checkedAt: now.toISOString(),
    retentionDays: options.retentionDays,
    graceDays,
    pastRetention: { items, objectVersions, projectionRows },
    total: items + objectVersions + projectionRows,
    resultIds: [...named],
  };
}
