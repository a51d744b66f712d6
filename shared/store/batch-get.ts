/**
 * Every BatchGetItem of the project, with one policy for the keys DynamoDB leaves unprocessed (throttling,
 * the 16 MB answer limit): they are asked for again after a capped, jittered backoff, for a bounded number
 * of rounds, and then the read fails. A caller that could not read a key must never take it for absent:
 * an erasure check would store an erased result, reconcile would report a stored one as lost.
 */
import { type DynamoDBDocumentClient, paginatedBatchGet } from '@aws-sdk/lib-dynamodb';
import { PipelineError } from '../errors';

/** Keys per BatchGetItem: DynamoDB's limit. */
export const BATCH_GET_KEYS = 100;

/** The policy for unprocessed keys. */
export interface BatchGetPolicy {
  /** Rounds (the first request included) before the read fails. */
  readonly rounds: number;
  /** Backoff before round 2; it doubles each round. */
  readonly baseDelayMs: number;
  /** No wait is longer than this. */
  readonly maxDelayMs: number;
}

/**
 * Eight rounds, 50 ms doubling to a 2 s cap: about 6 s of waiting in all before a read fails — long enough
 * for a throttled table's adaptive capacity to catch up, short next to a Lambda's timeout.
 */
export const BATCH_GET_POLICY: BatchGetPolicy = { rounds: 8, baseDelayMs: 50, maxDelayMs: 2_000 };

/**
 * The wait before round `round` (1-based; round 1 never waits): "full jitter" over a capped exponential,
 * so that concurrent readers throttled together do not retry together. `random` is in [0, 1).
 */
export function batchGetBackoffMs(round: number, policy: BatchGetPolicy, random: number): number {
  if (round <= 1) return 0;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (round - 2));
  return Math.floor(random * ceiling);
}

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
  /** The retry policy; {@link BATCH_GET_POLICY} by default. */
  readonly policy?: BatchGetPolicy;
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
  const policy = options.policy ?? BATCH_GET_POLICY;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
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
      await sleep(batchGetBackoffMs(round + 1, policy, Math.random()));
    }
  }
  return items;
}
