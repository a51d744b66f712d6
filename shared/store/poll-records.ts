/**
 * The polling record of a result as the batch read it, kept beside the item (`<resultId>#poll` in the
 * results table) until the result is stored: the service removes its record on the first fetch, so a
 * webhook-announced result whose first attempt failed after that fetch (a broken body, a crash, a DLQ move
 * and its redrive) still gets its product and completion time on the next attempt (docs/analytics.md,
 * "Product and completion time"). The record expires with the retention of the results.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ResultHints } from './item';
import { RESULTS_TABLE } from './table-schema';

/** Suffix of the kept polling record's key. */
export const POLL_RECORD_KEY_SUFFIX = '#poll';

/** The key of `resultId`'s kept polling record. */
export function pollRecordKey(resultId: string): string {
  return `${resultId}${POLL_RECORD_KEY_SUFFIX}`;
}

const FIELDS = ['transactionId', 'product', 'customerReference', 'userId', 'completed'] as const;

/** What a polling record says of a result (the same fields as fetch-result's `PollMetadata`). */
export type KeptPollRecord = Pick<ResultHints, (typeof FIELDS)[number]>;

/** Kept polling records in the results table. */
export class PollRecords {
  constructor(
    private readonly dynamo: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly retentionDays: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps what the service's polling record said (a later read of the same record writes the same). */
  async keep(resultId: string, metadata: KeptPollRecord): Promise<void> {
    const kept = Object.fromEntries(
      FIELDS.filter((f) => metadata[f] !== undefined).map((f) => [f, metadata[f]]),
    );
    await this.dynamo.send(
      new PutCommand({
        TableName: this.table,
        // One map attribute, never top-level fields: `transactionId` or `customerReference` at the top would
        // put this record into the table's indexes beside the result item.
        Item: {
          [RESULTS_TABLE.partitionKey]: pollRecordKey(resultId),
          pollRecord: kept,
          expiresAt: Math.floor(this.now() / 1000) + this.retentionDays * 86_400,
        },
      }),
    );
  }

  /** The kept polling record of `resultId`, if any. */
  async get(resultId: string): Promise<KeptPollRecord | undefined> {
    const { Item: item } = await this.dynamo.send(
      new GetCommand({
        TableName: this.table,
        Key: { [RESULTS_TABLE.partitionKey]: pollRecordKey(resultId) },
      }),
    );
    const record = item?.['pollRecord'] as Record<string, unknown> | undefined;
    if (!record || typeof record !== 'object') return undefined;
    const kept: Record<string, string> = {};
    for (const field of FIELDS) {
      const value = record[field];
      if (typeof value === 'string') kept[field] = value;
    }
    return kept as KeptPollRecord;
  }
}
