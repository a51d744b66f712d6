/**
 * The erasure's fence on a result's publication record (docs/pipeline.md, "Erasure"): what keeps a fetch
 * in flight from making an erased result readable again, without transactions (the local DynamoDB
 * emulator has none).
 *
 * Every write of the pipeline that makes a result readable (the item put, the event, the mark) is made by
 * the delivery holding the result's publication claim (`store/publication.ts`), while that claim is live.
 * The erasure writes its erasure record first, then sets `erasedAt` on the publication record with a
 * conditional update that succeeds only when no live claim is held: it waits out a claim in flight (until
 * the holder marks or releases it, at the latest until the claim's expiry, which is after the holder's
 * invocation is over). Every claim and mark refuses a fenced record ({@link unlessFenced}), so once the
 * fence is set no delivery can claim, and the erasure then deletes what a finished or dead holder left.
 * The fenced record keeps no status and no token: only `erasedAt` and a TTL.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed, itemOnFailedCondition } from '../store/conditional';
import { publicationKey } from '../store/publication';
import { RESULTS_TABLE } from '../store/table-schema';

/** The attribute of a fenced publication record: when the erasure set the fence (ISO 8601). */
export const FENCE_ATTRIBUTE = 'erasedAt';

/**
 * `condition` (of a claim or a mark of the publication record), refused once the erasure has fenced the
 * record: no delivery claims or marks an erased result.
 */
export function unlessFenced(condition: string): string {
  return `attribute_not_exists(${FENCE_ATTRIBUTE}) AND (${condition})`;
}

/**
 * The claim condition of a refetch (`idv results refetch`, an operator's explicit request to fetch an
 * erased result again): the fence does not hold it back, and a fenced record (which has no status) is
 * free. Uses the claim's `#status` name.
 */
export function reopeningFence(condition: string): string {
  return `(${condition}) OR (attribute_exists(${FENCE_ATTRIBUTE}) AND attribute_not_exists(#status))`;
}

/** Tunables of {@link fencePublication}. */
export interface FenceOptions {
  /** @default Date.now */
  readonly now?: () => number;
  /** @default node's timers */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * How far the erasure's clock may be ahead of the claimer's: a claim counts as over only this long
   * after its `claimExpiresAt`. @default 2000
   */
  readonly clockSkewMs?: number;
  /** Pause between attempts while a claim is live (a holder that releases is seen this soon). @default 250 */
  readonly pollMs?: number;
  /**
   * Longest wait for a live claim, whatever expiry it names (a claim lives until its invocation's deadline
   * plus a margin: about 100 s for fetch-result). @default 300000 (5 min)
   */
  readonly maxWaitMs?: number;
}

/** What {@link fencePublication} did. */
export interface FenceResult {
  /** Milliseconds spent waiting for a live claim to end (0 when none was held). */
  readonly waitedMs: number;
  /** Whether a publication record with a status was there (it is replaced by the fence). */
  readonly replacedRecord: boolean;
}

/** The fence could not be set within its bound: a claim stayed live. Erase again to finish. */
export class FenceTimeoutError extends Error {
  override readonly name = 'FenceTimeoutError';
  constructor(readonly waitedMs: number) {
    super(
      `a fetch of the result held its publication claim for ${Math.round(waitedMs / 1000)} s: the erasure stopped before deleting anything; run it again`,
    );
  }
}

interface ClaimView {
  readonly claimExpiresAt?: number;
  readonly status?: string;
}

/**
 * Fences `resultId`'s publication record for the erasure (after its erasure record is written, before
 * anything is deleted): waits while a delivery holds a live claim, then sets `erasedAt` and drops status,
 * claim and publication time. `expiresAt` (epoch seconds) is the fence's TTL. Throws
 * `FenceTimeoutError` when a claim is still live after its expiry plus the skew, or after `maxWaitMs`.
 */
export async function fencePublication(
  dynamo: DynamoDBDocumentClient,
  table: string,
  resultId: string,
  erasedAt: string,
  expiresAt: number,
  options: FenceOptions = {},
): Promise<FenceResult> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const skewMs = options.clockSkewMs ?? 2_000;
  const pollMs = options.pollMs ?? 250;
  const started = now();
  const giveUpAt = started + (options.maxWaitMs ?? 300_000);
  const key = { [RESULTS_TABLE.partitionKey]: publicationKey(resultId) };
  for (;;) {
    try {
      const answer = await dynamo.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: `SET ${FENCE_ATTRIBUTE} = :at, expiresAt = :ttl REMOVE #status, publishedAt, claim, claimExpiresAt`,
          // Timeline this guards (E = erasure, F = a fetch of the same result):
          //   E writes <id>#erasure → E fences here → E deletes objects, item, row → E publishes Erased.
          //   F claims (refused once fenced) → F stores objects → F looks at <id>#erasure again → F puts
          //   the item, publishes Stored, marks (drops the claim) — all while its claim is live.
          // So the fence may only go on a record that no live claim holds:
          //   noClaim:     never claimed, released, or marked (the mark removes the claim);
          //   claimIsOver: the holder's invocation ended (its claim expired, plus the clocks' skew), so
          //                nothing it started can still land after the deletions.
          // A claim taken before E's record was written makes E wait here; F sees the record after its
          // last object and releases at once (no item, no event), or, if it looked before the record
          // was written, finishes and marks: its Stored event then precedes E's Erased, never follows it.
          ConditionExpression: 'attribute_not_exists(claimExpiresAt) OR claimExpiresAt < :over',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':at': erasedAt, ':ttl': expiresAt, ':over': now() - skewMs },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { waitedMs: now() - started, replacedRecord: answer.Attributes?.['status'] !== undefined };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const held = await itemOnFailedCondition<ClaimView>(error, async () => {
        const read = await dynamo.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
        return read.Item as ClaimView | undefined;
      });
      const claimOverAt = (held?.claimExpiresAt ?? now()) + skewMs;
      const at = now();
      if (at > Math.min(giveUpAt, claimOverAt + pollMs)) throw new FenceTimeoutError(at - started);
      await sleep(Math.max(1, Math.min(pollMs, claimOverAt - at + 1)));
    }
  }
}
