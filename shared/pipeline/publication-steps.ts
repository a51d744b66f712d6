/**
 * The publication steps of fetch-result (docs/pipeline.md, "One event per result"; docs/changed-verdicts.md):
 * the claim of a result's publication record, stepping aside when another delivery holds it, publishing
 * the event(s) of an item and marking them published. fetch-result's use-cases (`fetch-result.ts`) call
 * these around their fetch and store; every write of the publication record goes through `publications`
 * (`Publications`, store/publication.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ServiceEnvironment } from '../api/enums';
import type { CustomerReferenceMode } from '../config';
import { ClaimHeldElsewhereError, describeError, PipelineError } from '../errors';
import { changedDetail, storedDetail, unavailableDetail } from '../events/details';
import type { EventPublisher } from '../events/publisher';
import type { Logger } from '../logger';
import type { ResultItem } from '../store/item';
import type { PublicationWrites, PublishClaim } from '../store/publication';
import type { ResultState } from '../store/result-store';
import { previousVersionOf, versionOf } from '../store/versions';
import { publishedFor, type RefusedClaimOutcome, refusedClaimOutcome } from './acknowledge';
import { claimExpiry } from './fetch-budget';

/** What the publication steps read of the result item (`ResultStore` fits; fetch-result's port extends it). */
export interface ResultStateStore {
  readonly bucket: string;
  readonly table: string;
  /**
   * The item (with `eventPublishedAt`) and whether the result was erased on request (an erased result is
   * never fetched again); `erasure: false` skips the erasure read (`ResultStore.readState`).
   */
  readState(resultId: string, options?: { erasure?: boolean }): Promise<ResultState>;
}

/** What the publication steps need (fetch-result's dependencies fit). */
export interface PublicationDeps {
  readonly store: ResultStateStore;
  /** The writes of the publication record: claim, release, mark (`Publications`). */
  readonly publications: PublicationWrites;
  readonly publisher: EventPublisher;
  readonly environment: ServiceEnvironment;
  readonly eventCustomerReference?: CustomerReferenceMode;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** The part of a record's budget a claim reads (fetch-result's `RecordBudget` fits). */
export interface ClaimBudget {
  /** Epoch ms of the invocation's deadline: a publication claim expires a margin after it. */
  readonly invocationDeadlineMs?: number;
  /** Token of this delivery's publication claim (the SQS message id). @default a random id */
  readonly claimToken?: string;
}

export function clock(deps: PublicationDeps): string {
  return (deps.now ?? (() => new Date()))().toISOString();
}

export function nowMs(deps: PublicationDeps): number {
  return (deps.now ?? (() => new Date()))().getTime();
}

/**
 * A new claim for this delivery, holding until the invocation is certainly over; undefined outside an
 * invocation (no deadline): with no bound on its life a claim could only wait for an arbitrary expiry, so
 * such a caller publishes unclaimed, at least once, as without claims.
 */
export function newClaim(budget: ClaimBudget, reopensErasure = false): PublishClaim | undefined {
  if (budget.invocationDeadlineMs === undefined) return undefined;
  return {
    token: budget.claimToken ?? randomUUID(),
    expiresAt: claimExpiry(budget.invocationDeadlineMs),
    ...(reopensErasure && { reopensErasure }),
  };
}

/** A delivery resumed after its invocation's deadline: another may hold the claim, or an erasure fenced. */
export function claimExpired(before: string): PipelineError {
  return new PipelineError(`the publication claim expired before ${before}; left for redelivery`);
}

/** Another delivery holds the publication claim. */
export const HELD = Symbol('held');

/**
 * Takes the publication claim for `item` (not yet written, or written and not announced). Returns
 * undefined when this delivery holds it (or runs without claims), `duplicate` when the event is published,
 * or {@link HELD} when another delivery holds the claim ({@link stepAside} then decides).
 */
export async function claimOrStepAside(
  item: Pick<ResultItem, 'resultId' | 'status' | 'expiresAt'>,
  claim: PublishClaim | undefined,
  deps: PublicationDeps,
  version?: number,
): Promise<'duplicate' | 'erased' | typeof HELD | undefined> {
  if (!claim) return undefined;
  const result = await deps.publications.claim(
    item.resultId,
    item.status,
    claim,
    nowMs(deps),
    item.expiresAt,
    ...(version !== undefined ? [version] : []),
  );
  if (result.claimed) return undefined;
  // Fenced by an erasure (erasure/fence.ts): the result is erased; nothing of it may be written.
  if (result.record?.erasedAt) {
    deps.logger.info('result was erased on request: claim refused, nothing stored');
    return 'erased';
  }
  // The record that refused the claim says whether this status's event is out (no second read).
  return publishedFor(item.status, result.record, version) ? 'duplicate' : HELD;
}

/**
 * A delivery that found the claim held elsewhere: acknowledged only if the store shows where the result
 * ended (docs/reliability.md, "Every message ends somewhere you can see"); otherwise it fails and is
 * delivered again, so the result cannot vanish when the holder fails or left a record without an item.
 * `erasure` false (a refetch message) does not count an erasure record as the end.
 */
export async function stepAside(
  resultId: string,
  deps: PublicationDeps,
  erasure = true,
  version?: number,
): Promise<RefusedClaimOutcome> {
  // A refetch (`erasure` false) is the one message an erasure record does not end.
  const state = await deps.store.readState(resultId, { erasure });
  // A later version ends only where the store shows it (or a later one): the version before is no end.
  if (version !== undefined && !state.erased && state.item && versionOf(state.item) < version) {
    throw new ClaimHeldElsewhereError();
  }
  const outcome = refusedClaimOutcome(state);
  if (outcome === undefined) throw new ClaimHeldElsewhereError();
  if (outcome === 'claimed-elsewhere')
    deps.logger.info('another delivery is announcing this result: left to it');
  return outcome;
}

/** Gives up `claim`; a failure to do so is logged, and the claim then ends at its expiry. */
export async function releaseClaim(
  resultId: string,
  claim: PublishClaim,
  deps: PublicationDeps,
): Promise<void> {
  try {
    await deps.publications.release(resultId, claim.token);
  } catch (error) {
    deps.logger.warn('could not give up the publication claim: it ends at its expiry', {
      error: describeError(error),
    });
  }
}

/**
 * Claims the item's publication, then announces it. Returns undefined when announced here, or the outcome
 * when another delivery published it or holds the claim (its message stays queued until it has marked, and
 * a crash of that delivery leaves a claim that expires before the message is delivered again).
 */
export async function claimAndAnnounce(
  item: ResultItem,
  deps: PublicationDeps,
  budget: ClaimBudget,
): Promise<RefusedClaimOutcome | undefined> {
  const claim = newClaim(budget);
  const version = sameResultVersion(item);
  const lost = await claimOrStepAside(item, claim, deps, version);
  if (lost === HELD) return stepAside(item.resultId, deps, true, version);
  if (lost) return lost;
  await announce(item, claim, deps);
  return undefined;
}

/**
 * The version a claim for `item` is about: a later version of the same resultId (its record holds the
 * previous version's publication); undefined for the first stored body of a resultId, which is claimed as
 * every new result is (a new resultId of a changed transaction too, whatever its version).
 */
export function sameResultVersion(item: ResultItem): number | undefined {
  return previousVersionOf(item)?.resultId === item.resultId ? versionOf(item) : undefined;
}

/**
 * Publishes the item's event, then marks it published. Refuses to publish on a claim that has expired
 * (a delivery resumed after its invocation's deadline): another delivery may hold the claim by now.
 */
export async function announce(
  item: ResultItem,
  claim: PublishClaim | undefined,
  deps: PublicationDeps,
): Promise<void> {
  if (claim && nowMs(deps) >= claim.expiresAt) {
    throw claimExpired('the event was published');
  }
  if (item.status === 'STORED') {
    const previous = previousVersionOf(item);
    // The first body of a resultId is announced as stored, as ever; a changed verdict also (or, for the
    // same resultId announced again, only) as changed: consumers dedupe Stored on resultId.
    if (previous?.resultId !== item.resultId) {
      await deps.publisher.publishResultStored(storedDetail(item, deps));
    }
    if (previous) await deps.publisher.publishResultChanged(changedDetail(item, previous, deps));
  } else {
    await deps.publisher.publishResultUnavailable(unavailableDetail(item, deps));
  }
  const version = versionOf(item);
  await deps.publications.mark(
    item.resultId,
    item.status,
    clock(deps),
    item.expiresAt,
    ...(version > 1 ? [version] : []),
  );
}
