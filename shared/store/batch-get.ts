/**
 * Every BatchGetItem of the project. Keys DynamoDB leaves unprocessed (throttling, the 16 MB answer limit)
 * are asked for again under the one batch retry policy (`batch-retry.ts`), and then the read fails. A caller that could not read a key must never take it for absent:
 * an erasure check would store an erased result, reconcile would report a stored one as lost.
 */
import { type DynamoDBDocumentClient, paginatedBatchGet } from '@aws-sdk/lib-dynamodb';
import { PipelineError } from '../errors';
import { BATCH_RETRY_POLICY, type BatchRetryPolicy, batchRetryBackoffMs, realSleep } from './batch-retry';

/** Keys per BatchGetItem: DynamoDB's limit. */
export const BATCH_GET_KEYS = 100;

/** DynamoDB kept keys unprocessed for every round of the policy. */
export class BatchGetIncompleteError extends PipelineError {
  readonly unread: number;
  constructor(table: string, unread: number, rounds: number) {
    super(`DynamoDB left ${unread} key(s) of table ${table} unread after ${rounds} rounds: try again`);
    this.name = 'BatchGetIncompleteError';
    this.unread = unread;
  }
}

/** What to read of each key. */
export interface BatchGetOptions {
  /** Attribute names to read (a projection); every attribute when absent. */
  readonly attributes?: readonly string[];
  /** Strongly consistent reads; true unless said otherwise. */
  readonly consistentRead?: boolean;
  /** The retry policy; {@link BATCH_RETRY_POLICY} by default. */
  readonly policy?: BatchRetryPolicy;
  /** Waits `ms` (tests pass a fake clock). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The items of `keys` in `table`, read in batches of {@link BATCH_GET_KEYS} (duplicates are asked once).
 * Keys with no item are simply absent from the answer; keys DynamoDB would not read within the policy's
 * rounds throw {@link BatchGetIncompleteError}.
 */
export async function batchGetAll(
  dynamo: DynamoDBDocumentClient,
  table: string,
  keys: readonly Record<string, unknown>[],
  options: BatchGetOptions = {},
): Promise<Record<string, unknown>[]> {
  const policy = options.policy ?? BATCH_RETRY_POLICY;
  const sleep = options.sleep ?? realSleep;
  const projection = options.attributes?.length
    ? {
        ProjectionExpression: options.attributes.map((_, i) => `#a${i}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(options.attributes.map((name, i) => [`#a${i}`, name])),
      }
    : {};
  const unique = [...new Map(keys.map((key) => [JSON.stringify(key), key])).values()];
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < unique.length; start += BATCH_GET_KEYS) {
    const request = {
      [table]: {
        Keys: unique.slice(start, start + BATCH_GET_KEYS),
        ConsistentRead: options.consistentRead ?? true,
        ...projection,
      },
    };
    // The SDK's helper asks again for what a page left unprocessed; the wait between pages and the bound
    // on their number are this module's.
    let round = 0;
    for await (const page of paginatedBatchGet({ client: dynamo }, { RequestItems: request })) {
      round++;
      items.push(...(page.Responses?.[table] ?? []));
      const unread = page.UnprocessedKeys?.[table]?.Keys?.length ?? 0;
      if (unread === 0) break;
      if (round >= policy.rounds) throw new BatchGetIncompleteError(table, unread, policy.rounds);
      await sleep(batchRetryBackoffMs(round + 1, policy, Math.random()));
    }
  }
  return items;
}
