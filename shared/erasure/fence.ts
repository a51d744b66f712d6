/**
 * The erasure's fence on a result's publication record (docs/erasure.md, "How it runs"): what keeps a fetch
 * in flight from making an erased result readable again, without transactions (the local DynamoDB
 * emulator has none).
 *
 * Every write of the pipeline that makes a result readable (the item put, the event, the mark) is made by
 * the delivery holding the result's publication claim (`store/publication.ts`), while that claim is live.
 * The erasure writes its erasure record first, then sets `erasedAt` on the publication record with a
 * conditional update that succeeds only when no live claim is held: it waits out a claim in flight (until
 * the holder marks or releases it, at the latest until the claim's expiry, which is after the holder's
 * invocation is over). Every claim and mark refuses a fenced record ({@link unlessFenced}), so once the
 * fence is set no delivery can claim (the conditions live with the record, `store/publication.ts`), and the erasure then deletes what a finished or dead holder left.
 * The fenced record keeps no status, version and no token: only `erasedAt` and a TTL.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PipelineError } from '../errors';
import { isConditionalCheckFailed, itemOnFailedCondition } from '../store/conditional';
import { FENCE_ATTRIBUTE, publicationKey } from '../store/publication';
import { RESULTS_TABLE } from '../store/table-schema';

/** Tunables of {@link fencePublication}. */
export interface FenceOptions {
  /** @default Date.now */
  readonly now?: () => number;
  /** @default node's timers */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * How far apart the erasure's clock and a claimer's may be: a claim counts as over by its
   * `claimExpiresAt` only this long after it. @default 30000
   */
  readonly clockSkewMs?: number;
  /**
   * Longest life of a claim, from its creation to its expiry (fetch-result: its function timeout plus the
   * claim margin). A claim the erasure has seen unchanged for this long on its own clock is over whatever
   * the clocks say, so a skew beyond `clockSkewMs` costs time, never safety. @default 100000
   */
  readonly maxClaimLifeMs?: number;
  /** Pause between attempts while a claim is live (a holder that releases is seen this soon). @default 250 */
  readonly pollMs?: number;
  /** Longest wait in all, whatever the claims say. @default 300000 (5 min) */
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
export class FenceTimeoutError extends PipelineError {
  override readonly name = 'FenceTimeoutError';
  constructor(readonly waitedMs: number) {
    super(
      `a fetch of the result held its publication claim for ${Math.round(waitedMs / 1000)} s: the erasure stopped before deleting anything; run it again`,
    );
  }
}

/*
 * The fence's condition, and the timeline it guards (E = the erasure, F = a fetch of the same result):
 *
 *   E: writes <id>#erasure ─ fences here ─ deletes objects (every version), item, row ─ publishes Erased
 *   F: claims (refused once fenced) ─ stores objects ─ looks at <id>#erasure again ─ puts the item ─
 *      publishes Stored ─ marks (which drops the claim); all of it while its claim is live
 *
 * - F claimed before E fenced, and looked after E's record was written: F gives the claim up at once (no
 *   item, no event); E fences then and deletes what F wrote.
 * - F looked before E's record was written (E started during F's item put or publish): E waits here
 *   until F marks; F's Stored precedes E's Erased, and E deletes what F stored.
 * - F died holding the claim, or its claim expired mid-fetch: E fences once the claim is over (its
 *   invocation has ended by then, so nothing it sent can land after the deletions; a local delivery
 *   that outlives its claim deletes its own objects when it sees the record, and never puts the item).
 *   "Over" is judged by E's clock against the claim's expiry with a margin for the clocks' skew, or, if
 *   the clocks are further apart, by E having watched the same claim for a claim's whole life.
 * - F claims after E fenced (a redelivery, a message read before E's record): refused, nothing stored.
 */
/** No delivery holds the record: never claimed, released, or marked (the mark removes the claim). */
const NO_CLAIM = 'attribute_not_exists(claimExpiresAt)';
/** The holder's claim expired (plus the clocks' skew, in `:over`): its invocation is over. */
const CLAIM_IS_OVER = 'claimExpiresAt < :over';
/** The very claim the erasure has watched for longer than a claim can live (`:seenToken`, `:seenUntil`). */
const CLAIM_OUTLIVED = '(claim = :seenToken AND claimExpiresAt = :seenUntil)';

interface ClaimView {
  readonly claim?: string;
  readonly claimExpiresAt?: number;
  readonly status?: string;
}

/**
 * Fences `resultId`'s publication record for the erasure (after its erasure record is written, before
 * anything is deleted): waits while a delivery holds a live claim, then sets `erasedAt` and drops status,
 * claim and publication time. `expiresAt` (epoch seconds) is the fence's TTL. Throws
 * `FenceTimeoutError` after `maxWaitMs` (claims that keep being renewed).
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
  const skewMs = options.clockSkewMs ?? 30_000;
  const lifeMs = options.maxClaimLifeMs ?? 100_000;
  const pollMs = options.pollMs ?? 250;
  const started = now();
  const giveUpAt = started + (options.maxWaitMs ?? 300_000);
  const key = { [RESULTS_TABLE.partitionKey]: publicationKey(resultId) };
  // The claim last seen, and when (on this clock) it was first seen.
  let seen: { token: string; until: number; since: number } | undefined;
  for (;;) {
    const outlived = seen !== undefined && now() - seen.since >= lifeMs;
    try {
      const answer = await dynamo.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: `SET ${FENCE_ATTRIBUTE} = :at, expiresAt = :ttl REMOVE #status, publishedAt, claim, claimExpiresAt, #version, claimVersion`,
          ConditionExpression: [NO_CLAIM, CLAIM_IS_OVER, ...(outlived ? [CLAIM_OUTLIVED] : [])].join(' OR '),
          ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
          ExpressionAttributeValues: {
            ':at': erasedAt,
            ':ttl': expiresAt,
            ':over': now() - skewMs,
            ...(outlived && { ':seenToken': seen!.token, ':seenUntil': seen!.until }),
          },
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
      const at = now();
      if (held?.claim !== undefined && held.claimExpiresAt !== undefined) {
        const same = seen?.token === held.claim && seen.until === held.claimExpiresAt;
        if (!same) seen = { token: held.claim, until: held.claimExpiresAt, since: at };
      }
      if (at >= giveUpAt) throw new FenceTimeoutError(at - started);
      // Until the claim's expiry (plus the skew) or its full life as seen here, whichever comes first.
      const overAt = Math.min(
        (held?.claimExpiresAt ?? at) + skewMs + 1,
        seen ? seen.since + lifeMs : Number.POSITIVE_INFINITY,
      );
      await sleep(Math.max(1, Math.min(pollMs, overAt - at, giveUpAt - at)));
    }
  }
}
