/**
 * `idv results reconcile`: the check of the pipeline's invariant (docs/reliability.md, "Every message ends
 * somewhere you can see") — every resultId ever enqueued ends STORED, UNAVAILABLE, ERASED or in the DLQ.
 * The enqueued ids come from what the caller can read (the poll's enqueue markers, the local run's
 * journals, a test's record of every send); the ends from the results table (the item's status, the
 * erasure record) and the DLQ. {@link reconcile} is the pure comparison; the readers below gather the
 * facts on AWS (the SDK clients) and the local stack alike.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { queueDepth } from '../pipeline/queue';
import { type BatchGetOptions, batchGetAll } from '../store/batch-get';
import { ERASURE_KEY_SUFFIX, erasureKey } from '../store/erasure-record';
import { RESULTS_TABLE } from '../store/table-schema';
import { peekDlq } from './dlq';

/** Where the store shows a result ended. */
export type StoreEnd = 'STORED' | 'UNAVAILABLE' | 'ERASED';

/** Where an enqueued id ended: in the store, or in the DLQ. */
export type IdEnd = StoreEnd | 'DLQ';

/** What {@link reconcile} compares. */
export interface ReconcileFacts {
  /** Every resultId known to have been enqueued. */
  readonly enqueued: Iterable<string>;
  /** The end the store shows for each enqueued id that has one. */
  readonly ends: ReadonlyMap<string, StoreEnd>;
  /** ResultIds with a message in the DLQ. */
  readonly dlq: ReadonlySet<string>;
  /** ResultIds with a message still waiting in the results queue (not ended yet). */
  readonly queued?: ReadonlySet<string>;
  /**
   * Of each STORED id whose verdict changed (docs/changed-verdicts.md): the version it holds,
   * and how many versions are stored under that resultId. Ids not in it hold one version.
   */
  readonly versions?: ReadonlyMap<string, IdVersions>;
}

/** The versions of one result (`ReconcileFacts.versions`). */
export interface IdVersions {
  /** The version of the verdict the result holds now. */
  readonly version: number;
  /** Versions stored under the resultId (a new resultId of a changed transaction has one). */
  readonly stored: number;
}

/** What {@link reconcile} found. */
export interface ReconcileReport {
  /** Distinct resultIds enqueued. */
  readonly enqueued: number;
  /** How many ended where (an id the store shows ended is counted there, even if a copy is in the DLQ). */
  readonly ended: Record<IdEnd, number>;
  /** ResultIds whose message still waits in the results queue: not ended yet, look again later. */
  readonly queued: string[];
  /** ResultIds that ended nowhere: no item, no erasure record, not in the DLQ, not queued. Sorted. */
  readonly unaccounted: string[];
  /**
   * Versions of the verdicts stored for the STORED ids: `stored` in all (one per first version, one per
   * change), `changed` the ids whose verdict the service changed after it was stored.
   */
  readonly versions: { readonly stored: number; readonly changed: number };
}

/** Compares the enqueued ids with their ends (pure). */
export function reconcile(facts: ReconcileFacts): ReconcileReport {
  const ended: Record<IdEnd, number> = { STORED: 0, UNAVAILABLE: 0, ERASED: 0, DLQ: 0 };
  const queued: string[] = [];
  const unaccounted: string[] = [];
  const versions = { stored: 0, changed: 0 };
  const ids = new Set(facts.enqueued);
  for (const id of ids) {
    const end = facts.ends.get(id) ?? (facts.dlq.has(id) ? 'DLQ' : undefined);
    if (end !== undefined) ended[end]++;
    else if (facts.queued?.has(id)) queued.push(id);
    else unaccounted.push(id);
    if (end === 'STORED') {
      const of = facts.versions?.get(id);
      versions.stored += of?.stored ?? 1;
      if (of && of.version > 1) versions.changed++;
    }
  }
  return { enqueued: ids.size, ended, queued: queued.sort(), unaccounted: unaccounted.sort(), versions };
}

/**
 * The end the results table shows for each of `resultIds`: the item's status, or ERASED when its
 * erasure record exists (strongly consistent reads, keys, status and versions only; the versions of a
 * changed verdict go into `options.versions`). Throws when DynamoDB will not read every key
 * (`batch-get.ts`): an id it did not read must not be reported as lost.
 */
export async function storeEnds(
  dynamo: DynamoDBDocumentClient,
  table: string,
  resultIds: Iterable<string>,
  options: Pick<BatchGetOptions, 'sleep'> & { versions?: Map<string, IdVersions> } = {},
): Promise<Map<string, StoreEnd>> {
  const pk = RESULTS_TABLE.partitionKey;
  const keys = [...new Set(resultIds)].flatMap((id) => [{ [pk]: id }, { [pk]: erasureKey(id) }]);
  const items = await batchGetAll(dynamo, table, keys, {
    ...(options.sleep && { sleep: options.sleep }),
    attributes: [pk, 'status', 'version', 'versions'],
  });
  const ends = new Map<string, StoreEnd>();
  for (const item of items) {
    const key = String(item[pk]);
    if (key.endsWith(ERASURE_KEY_SUFFIX)) ends.set(key.slice(0, -ERASURE_KEY_SUFFIX.length), 'ERASED');
    else if ((item.status === 'STORED' || item.status === 'UNAVAILABLE') && ends.get(key) !== 'ERASED') {
      ends.set(key, item.status);
      if (typeof item.version === 'number' && item.version > 1) {
        const own = Array.isArray(item.versions)
          ? item.versions.filter((v: { resultId?: unknown }) => v?.resultId === key).length
          : 1;
        options.versions?.set(key, { version: item.version, stored: Math.max(1, own) });
      }
    }
  }
  return ends;
}

/** Most enqueue markers {@link markerIds} reads by default. */
export const MAX_MARKER_IDS = 1_000_000;

/** What {@link markerIds} read. */
export interface MarkerIds {
  readonly ids: Set<string>;
  /** True when the scan stopped at `max` ids: the rest of the table was not read. */
  readonly truncated: boolean;
}

/**
 * The resultIds the poll enqueued, from its enqueue markers table (a marker given back after a failed
 * send, `enqueuedAt` 0, was never enqueued). Bounded by `max` ids. Markers expire (TTL, two visibility
 * windows), so on AWS this is the recent past; an erasure deletes the result's marker.
 */
export async function markerIds(
  dynamo: DynamoDBDocumentClient,
  table: string,
  max = MAX_MARKER_IDS,
): Promise<MarkerIds> {
  const ids = new Set<string>();
  const pages = paginateScan(
    { client: dynamo },
    { TableName: table, ProjectionExpression: 'resultId, enqueuedAt' },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (typeof item.resultId === 'string' && Number(item.enqueuedAt) > 0) ids.add(item.resultId);
      if (ids.size >= max) return { ids, truncated: true };
    }
  }
  return { ids, truncated: false };
}

/** The resultIds with a message in the DLQ (read without consuming, at most `max` messages). */
export async function dlqIds(sqs: SQSClient, dlqUrl: string, max = 10_000): Promise<Set<string>> {
  const entries = await peekDlq({ sqs, dlqUrl, max });
  return new Set(entries.flatMap((entry) => (entry.resultId ? [entry.resultId] : [])));
}

/** Messages in a queue (visible, in flight, delayed): SQS's approximate counts. */
export async function queueMessages(sqs: SQSClient, queueUrl: string): Promise<number> {
  const depth = await queueDepth(sqs, queueUrl);
  return depth.visible + depth.inFlight + depth.delayed;
}
