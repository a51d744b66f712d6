/**
 * The erasure record of a result (docs/erasure.md, "How it runs"): proof that a result was erased and the
 * fence that keeps it erased. A small item in the results table beside the result item, keyed
 * `<resultId>#erasure` (`#` never occurs in a resultId, and the record has none of the index keys, so no
 * index and no query for results ever returns it). It holds no personal data: the result id, when, by
 * which principal, how many objects, versions, items and rows went, and the receipt (when each copy out of
 * the erasure's reach is gone). fetch-result reads it before
 * fetching, so a message still in the queue or the DLQ brings nothing back.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './batch-get';
import type { ErasureReceipt } from './erasure-receipt';
import { RESULTS_TABLE } from './table-schema';

/** Suffix of an erasure record's key; never part of a resultId (`RESULT_ID_PATTERN` has no `#`). */
export const ERASURE_KEY_SUFFIX = '#erasure';

/**
 * Days an erasure record is kept (its `expiresAt`, the table's TTL): the retention of audit records.
 * Three years unless the operator names another (`idv results erase --audit-retention-days`).
 */
export const DEFAULT_AUDIT_RETENTION_DAYS = 1095;

/** The table key of `resultId`'s erasure record. */
export function erasureKey(resultId: string): string {
  return `${resultId}${ERASURE_KEY_SUFFIX}`;
}

/** What one erasure removed (counts only). */
export interface ErasureCounts {
  /** S3 object versions removed from the data bucket (current and noncurrent). */
  readonly objectVersions: number;
  /** Delete markers removed from the data bucket. */
  readonly deleteMarkers: number;
  /** Distinct keys among them. */
  readonly objects: number;
  /** Multipart uploads aborted under the result's staging prefix. */
  readonly uploadsAborted: number;
  /** DynamoDB items removed: the result item, its publication and polling records, its enqueue marker. */
  readonly items: number;
  /** Analytics projection rows (objects or files) removed. */
  readonly analyticsRows: number;
  /** Messages of the result removed from the results queue and its DLQ, when they were looked for. */
  readonly queueMessages?: number;
  /** Lines of the local run's journals removed (local only). */
  readonly journalLines?: number;
}

/** One version of a verdict an erasure removed (no data of it: numbers, ids and where it was). */
export interface ErasedVersion {
  readonly version: number;
  readonly resultId: string;
  /** Prefix of the version's objects in the data bucket (purged). */
  readonly objectsPrefix: string;
}

/** The record as stored. */
export interface ErasureRecord {
  /** `<resultId>#erasure` (the table's partition key). */
  readonly resultId: string;
  /** The erased result's id. */
  readonly erasedResultId: string;
  /** `ERASING` from the first write until every store answered, then `ERASED`. */
  readonly state: 'ERASING' | 'ERASED';
  /** When the erasure began (ISO 8601). */
  readonly requestedAt: string;
  /** When it ended (ISO 8601); absent while `ERASING`. */
  readonly erasedAt?: string;
  /** Who asked: the principal the operator's tool reported (no data of the person erased). */
  readonly principal: string;
  /** How the result was selected: `result-id`, `transaction-id` or `customer-reference` (never the value). */
  readonly selectedBy: string;
  readonly counts?: ErasureCounts;
  /** When each copy is gone (absent while `ERASING`, and in records of erasures before receipts existed). */
  readonly receipt?: ErasureReceipt;
  /**
   * Every version of the verdict the erased result held (docs/changed-verdicts.md), each
   * erased with it: its number, the resultId that held it and the prefix its objects were under. Absent
   * when the result had one version (or no item was left).
   */
  readonly versions?: readonly ErasedVersion[];
  /**
   * While `ERASING`: the trace kinds (shared/erasure/traces.ts) not yet erased, in the erasure's order, so a
   * run that was killed names what is left; the next run finishes them. Absent once `ERASED`.
   */
  readonly left?: readonly string[];
  /** TTL, epoch seconds: `requestedAt` + the audit retention. */
  readonly expiresAt: number;
}

/** The erasure records of one results table. */
export class ErasureRecords {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(dynamo: DynamoDBDocumentClient, table: string) {
    this.#dynamo = dynamo;
    this.#table = table;
  }

  /** The record of `resultId` (strongly consistent read), or undefined when it was never erased. */
  async get(resultId: string): Promise<ErasureRecord | undefined> {
    const response = await this.#dynamo.send(
      new GetCommand({
        TableName: this.#table,
        Key: { [RESULTS_TABLE.partitionKey]: erasureKey(resultId) },
        ConsistentRead: true,
      }),
    );
    return response.Item as ErasureRecord | undefined;
  }

  /**
   * Which of `resultIds` were erased (or are being erased): their `<id>#erasure` keys read in batches, the key
   * only; keys DynamoDB would not read throw (`batch-get.ts`): a caller that cannot tell must not store.
   */
  async erasedAmong(resultIds: readonly string[]): Promise<Set<string>> {
    const pk = RESULTS_TABLE.partitionKey;
    const items = await batchGetAll(
      this.#dynamo,
      this.#table,
      resultIds.map((id) => ({ [pk]: erasureKey(id) })),
      { attributes: [pk] },
    );
    const erased = new Set<string>();
    for (const item of items) {
      const key = item[pk];
      if (typeof key === 'string') erased.add(key.slice(0, -ERASURE_KEY_SUFFIX.length));
    }
    return erased;
  }

  /** Writes (or rewrites) the record: first `ERASING` before anything is deleted, then `ERASED` with counts. */
  async put(record: ErasureRecord): Promise<void> {
    await this.#dynamo.send(new PutCommand({ TableName: this.#table, Item: record }));
  }
}
