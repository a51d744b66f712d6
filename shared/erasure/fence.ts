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
 * fence is set no delivery can claim (the record's one writer, `Publications.fence` in `store/publication.ts`,
 * holds the fence's conditions too), and the erasure then deletes what a finished or dead holder left.
 * The fenced record keeps no status, version and no token: only `erasedAt` and a TTL.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PipelineError } from '../errors';
import { Publications } from '../store/publication';

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
  const publications = new Publications(dynamo, table);
  // The claim last seen, and when (on this clock) it was first seen.
  let seen: { token: string; until: number; since: number } | undefined;
  for (;;) {
    const outlived = seen !== undefined && now() - seen.since >= lifeMs;
    const outcome = await publications.fence(resultId, erasedAt, expiresAt, {
      overBefore: now() - skewMs,
      ...(outlived && { outlived: { token: seen!.token, until: seen!.until } }),
    });
    if (outcome.fenced) return { waitedMs: now() - started, replacedRecord: outcome.replacedRecord };
    const held = outcome.holder;
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
