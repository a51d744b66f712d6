/**
 * The fetch-result use-case, one queue message at a time:
 *
 *   already stored and announced → skip (no service call), unless the message says the service completed
 *                                  it again later: fetch → claim that version → its S3 objects →
 *                                  conditional put over the version before → publish Changed → mark
 *   stored, not announced        → claim → publish → mark
 *   otherwise                    → fetch → claim → S3 objects → erasure record looked at again →
 *                                  conditional item put → publish → mark
 *   404 from the service         → claim → UNAVAILABLE item (conditional) → publish → mark
 *   erased on request            → acknowledged, nothing stored (unless the message says `refetch`); a
 *                                  poll message fetches the body once and drops it, retiring the
 *                                  service's polling record
 *
 * Every step is idempotent and the order means a crash after any step is repaired by the redelivery of
 * the same message. Only the delivery holding the publication claim writes the item and publishes: a
 * concurrent delivery of the same resultId finds the claim and leaves the work to its holder, whose own
 * message stays in the queue until the event is marked (docs/pipeline.md, "One event per result"); it is
 * acknowledged only when the store shows the result STORED, UNAVAILABLE or erased, and fails otherwise
 * (`acknowledge.ts`). Claim, step-aside, publish and mark live in `publication-steps.ts`. Claim
 * and mark are small writes of the result's publication record, never of the item. Dependencies come in
 * as arguments so tests can make any step fail once. The body is streamed into the store as it arrives
 * (docs/pipeline.md, "Streaming fetch-and-store").
 */
import type { ServiceEnvironment } from '../api/enums';
import { NotFoundError, RateLimitError, ServiceError, UnauthorizedError } from '../client/errors';
import type { CustomerReferenceMode } from '../config';
import { ClaimHeldElsewhereError, describeError, PipelineError } from '../errors';
import { uploadedDetail } from '../events/details';
import type { EventPublisher } from '../events/publisher';
import { type Logger, withCorrelation } from '../logger';
import {
  asNextVersion,
  buildStoredItem,
  buildUnavailableItem,
  expiresAtFor,
  type ResultHints,
  type ResultItem,
} from '../store/item';
import type { PublicationWrites, PublishClaim } from '../store/publication';
import type { ItemPut, StoredResult } from '../store/result-store';
import { isLaterCompletion, versionOf } from '../store/versions';
import { ResultContentError } from '../stream/errors';
import {
  isUploadMessage,
  parseQueueMessage,
  type QueueMessage,
  type ResultMessage,
  type UploadMessage,
} from './messages';
import {
  announce,
  claimAndAnnounce,
  claimExpired,
  claimOrStepAside,
  clock,
  HELD,
  newClaim,
  nowMs,
  type ResultStateStore,
  releaseClaim,
  stepAside,
} from './publication-steps';

/** What fetch-result needs from the service client (`IdvClient` fits): the raw result body, streamed. */
export interface ResultSource {
  /** The body's chunks as they arrive; throws `NotFoundError` on a 404. */
  getResultStream(resultId: string, options?: CallBudget): Promise<AsyncIterable<Uint8Array>>;
}

/** Time budget of one record: the service call (retries and body included) ends by `deadlineMs`. */
export interface CallBudget {
  /** Epoch milliseconds. */
  readonly deadlineMs?: number;
}

/** The invocation a record is processed in. */
export interface RecordBudget {
  /** Epoch ms by which the record's service call must end (the invocation's deadline less the reserves). */
  readonly serviceDeadlineMs?: number;
  /** Epoch ms of the invocation's deadline: a publication claim expires a margin after it. */
  readonly invocationDeadlineMs?: number;
  /**
   * Token of this delivery's publication claim: the SQS message id, so a redelivery of the same message
   * takes over its own claim at once (a crashed claimer's message never waits for the expiry).
   * @default a random id
   */
  readonly claimToken?: string;
}

/** What fetch-result needs from the store (`ResultStore` fits). */
export interface ResultStorePort extends ResultStateStore {
  /**
   * Stores the body's blobs and result.json as it is read (`ResultStore.storeResult`). Throws
   * `ResultContentError` for a body or value that cannot be stored as it came (docs/pipeline.md).
   */
  storeResult(resultId: string, body: AsyncIterable<Uint8Array>, version?: number): Promise<StoredResult>;
  /** Whether the result's erasure record exists now (the look after the last object). */
  isErased(resultId: string): Promise<boolean>;
  /** Deletes the objects of `stored` (a fetch that lost the race with an erasure after its claim expired). */
  discardStored(stored: StoredResult['stored']): Promise<void>;
  /** Conditional put of a STORED item: written, or the STORED item already there. */
  putStoredItem(item: ResultItem): Promise<ItemPut>;
  /** Conditional put of an UNAVAILABLE item: written, or the item (of either status) already there. */
  putUnavailableItem(item: ResultItem): Promise<ItemPut>;
  /**
   * Conditional put of a later version of a STORED item, only over the version before it
   * (`ResultStore.putVersionItem`): written, or the item already there.
   */
  putVersionItem(item: ResultItem): Promise<ItemPut>;
  /**
   * The latest STORED item of `transactionId` other than `resultId` (`ResultStore.latestOfTransaction`):
   * the verdict a new resultId of the transaction replaces.
   */
  latestOfTransaction(transactionId: string, resultId: string): Promise<ResultItem | undefined>;
}

/**
 * The service's polling record of a result (§2.4), as far as fetch-result needs it: the metadata the
 * result body lacks (`product`, `completed`) and the identifiers. Read before the result is fetched,
 * because a successful fetch removes the record at the service.
 */
export type PollMetadata = Pick<
  ResultHints,
  'transactionId' | 'product' | 'customerReference' | 'userId' | 'completed'
>;

/** Finds the polling record of a resultId read for this batch (`pollMetadataOf` in results-batch.ts). */
export type PollMetadataLookup = (resultId: string) => PollMetadata | undefined;

/** Dependencies of `processMessage`. */
export interface FetchResultDeps {
  readonly source: ResultSource;
  readonly store: ResultStorePort;
  /** The writes of the publication record: claim, release, mark (`Publications`). */
  readonly publications: PublicationWrites;
  readonly publisher: EventPublisher;
  readonly environment: ServiceEnvironment;
  /** Whether events carry `customerReference` (`IDV_EVENT_CUSTOMER_REFERENCE`). @default per environment */
  readonly eventCustomerReference?: CustomerReferenceMode;
  readonly retentionDays: number;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** What happened to one message. */
export type FetchOutcome =
  | 'stored'
  /** A later version of a stored result was stored and announced (`VerificationResultChanged`). */
  | 'changed'
  | 'unavailable'
  | 'duplicate'
  | 'announced-pending'
  | 'claimed-elsewhere'
  | 'upload-announced'
  | 'erased';

/** Processes one parsed queue message. Throws on any failure: the message is then redelivered. */
export async function processMessage(
  message: QueueMessage,
  deps: FetchResultDeps,
  budget: RecordBudget = {},
  pollMetadata?: PollMetadataLookup,
): Promise<FetchOutcome> {
  if (isUploadMessage(message)) return announceUpload(message, deps);
  return processResult(withPollMetadata(message, pollMetadata), deps, budget);
}

/**
 * The message with the service's polling record when it carries none itself. A poll message (and its
 * redrive) already holds what the record said and keeps it; a webhook message, or a redriven webhook
 * message, holds only the resultId (`confirmedOnly`): then the record read for the batch fills in the
 * metadata. Nothing comes from a webhook body.
 */
export function withPollMetadata(message: ResultMessage, lookup?: PollMetadataLookup): ResultMessage {
  if (message.completed !== undefined || !lookup) return message;
  const record = lookup(message.resultId);
  if (!record) return message;
  return { ...message, ...definedOnly(record) };
}

function definedOnly(record: PollMetadata): PollMetadata {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as PollMetadata;
}

/**
 * Parses and processes one SQS message body with `resultId`/`transactionId` on every log line. A malformed
 * body throws `MalformedMessageError`: it can never succeed, so it goes through redelivery to the DLQ.
 */
export async function processQueueRecord(
  body: string,
  deps: FetchResultDeps,
  budget: RecordBudget = {},
  pollMetadata?: PollMetadataLookup,
): Promise<FetchOutcome> {
  let message: QueueMessage;
  try {
    message = parseQueueMessage(body);
  } catch (error) {
    deps.logger.error('malformed queue message: left for the DLQ', { error: describeError(error) });
    throw error;
  }
  const ids = isUploadMessage(message)
    ? { transactionId: message.transactionId }
    : { resultId: message.resultId, transactionId: message.transactionId };
  return withCorrelation(deps.logger, ids, async () => {
    try {
      return await processMessage(message, deps, budget, pollMetadata);
    } catch (error) {
      deps.logger.error(failureLine(error), {
        error: describeError(error),
        ...(error instanceof ResultContentError && { reason: error.reason, transient: error.transient }),
      });
      throw error;
    }
  });
}

/**
 * The log line of a failed message. A refusal by the service (a 4xx other than 404/410, which become
 * UNAVAILABLE, and 429) will not get better by redelivery alone: it is still redelivered, never dropped,
 * so it ends in the DLQ, and the line says what a human should look at. Never the body: only the error's
 * name, message, status and code go with it.
 */
function failureLine(error: unknown): string {
  if (error instanceof ClaimHeldElsewhereError) {
    return `message failed: ${error.message}, then the DLQ`;
  }
  if (error instanceof ResultContentError) {
    return error.transient
      ? `message failed (${error.reason}): the result body was incomplete; left for redelivery`
      : `message failed (${error.reason}): the service's result cannot be stored as it is; left for redelivery, then the DLQ: see docs/pipeline.md#dlq-runbook`;
  }
  if (error instanceof RateLimitError) {
    return 'message failed: the service refused it above its rate (429) longer than the invocation could wait; left for redelivery: if this repeats, see serviceRateLimit in docs/deploy.md';
  }
  if (error instanceof UnauthorizedError) {
    return 'message failed: the service refused our access token after a refresh (401); left for redelivery, then the DLQ: check the client credentials and the productapi.result.read scope';
  }
  if (error instanceof ServiceError && error.status >= 400 && error.status < 500 && error.status !== 429) {
    return `message failed: the service refused the result request (${error.status}); left for redelivery, then the DLQ: check the resultId, the scopes and the account`;
  }
  return 'message failed: left for redelivery';
}

/**
 * The look after the last object (docs/erasure.md, "How it runs"): true when an erasure record appeared
 * while the body was stored. Then nothing more is written or published: the claim is given up at once,
 * so the erasure waiting for it (`erasure/fence.ts`) goes on and deletes every version of what this
 * delivery wrote. A delivery whose claim has expired (or that runs without one) was not waited for, and
 * deletes its objects itself.
 */
async function lostToErasure(
  resultId: string,
  stored: StoredResult['stored'],
  claim: PublishClaim | undefined,
  deps: FetchResultDeps,
): Promise<boolean> {
  if (!(await deps.store.isErased(resultId))) return false;
  if (!claim || nowMs(deps) >= claim.expiresAt) await deps.store.discardStored(stored);
  if (claim) await releaseClaim(resultId, claim, deps);
  deps.logger.info('result was erased while it was stored: nothing kept, nothing announced');
  return true;
}

/**
 * The service keeps a result's polling record until the result is fetched, so the poll would enqueue an
 * erased result again every minute and the pending-too-long alarm would never clear. A poll message of an
 * erased result therefore fetches it once and lets the body run to its end unread — nothing parsed, kept
 * or logged of it — so the service removes the record (docs/erasure.md, "How it runs"). A failure only
 * leaves the record for the next poll's message to retire.
 */
async function retirePollRecord(
  resultId: string,
  deps: FetchResultDeps,
  budget: RecordBudget,
): Promise<void> {
  try {
    const body = await openBody(resultId, deps.source, budget);
    for await (const _chunk of body) {
      // Streamed to nowhere: the bytes are dropped as they come.
    }
    deps.logger.info('result was erased on request: its polling record retired, the body discarded unread');
  } catch (error) {
    deps.logger.info('result was erased on request: its polling record is not retired yet (next poll)', {
      error: describeError(error),
    });
  }
}

/**
 * Claims the STORED publication before a byte of `body` is written. Undefined when this delivery holds
 * the claim; otherwise the body is closed unread and the outcome says why: published or erased already,
 * or held by another delivery ({@link stepAside} decides; `erasureEnds` false for a refetch, which an
 * erasure record does not end). `version` claims a later version of a stored result.
 */
async function claimBeforeStoring(
  resultId: string,
  body: AsyncIterable<Uint8Array>,
  claim: PublishClaim | undefined,
  deps: FetchResultDeps,
  options: { erasureEnds: boolean; version?: number },
): Promise<FetchOutcome | undefined> {
  let lost: Awaited<ReturnType<typeof claimOrStepAside>>;
  try {
    lost = await claimOrStepAside(
      { resultId, status: 'STORED', expiresAt: expiresAtFor(clock(deps), deps.retentionDays) },
      claim,
      deps,
      options.version,
    );
  } catch (error) {
    await closeUnread(body);
    throw error;
  }
  if (!lost) return undefined;
  await closeUnread(body);
  return lost === HELD ? stepAside(resultId, deps, options.erasureEnds, options.version) : lost;
}

/** Closes a result body that will not be read (its connection ends; nothing of it is kept). */
async function closeUnread(body: AsyncIterable<Uint8Array>): Promise<void> {
  try {
    await body[Symbol.asyncIterator]().return?.();
  } catch {
    // Closing a body nobody reads cannot fail in a way that matters.
  }
}

async function processResult(
  message: ResultMessage,
  deps: FetchResultDeps,
  budget: RecordBudget,
): Promise<FetchOutcome> {
  const { store, logger } = deps;
  const { erased, item: existing } = await store.readState(message.resultId, { erasure: !message.refetch });
  // Erased on request: a message still in the queue or the DLQ must not bring the data back.
  if (erased) {
    // A poll message: the service still lists the result; one fetch, body dropped, retires its record.
    if (message.source === 'poll') await retirePollRecord(message.resultId, deps, budget);
    else logger.info('result was erased on request: acknowledged, not fetched', { source: message.source });
    return 'erased';
  }
  if (existing?.status === 'STORED') {
    // The one look that decides whether the service is called again: a later `completed` than the
    // stored version's is a changed verdict; the same (or none) is a duplicate and costs no fetch.
    const changed = isLaterCompletion(existing, message.completed);
    if (!existing.eventPublishedAt) {
      const outcome = await claimAndAnnounce(existing, deps, budget);
      if (outcome !== undefined || !changed) return outcome ?? 'announced-pending';
    } else if (!changed) {
      logger.info('result already stored and announced: skipped', { source: message.source });
      return 'duplicate';
    }
    return storeNextVersion(message, existing, deps, budget);
  }
  // No item, or UNAVAILABLE: ask the service (again: a result it now has replaces UNAVAILABLE).
  let body: AsyncIterable<Uint8Array>;
  try {
    body = await openBody(message.resultId, deps.source, budget);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return recordUnavailable(message, existing, deps, budget);
  }
  // The publication is claimed before the body is stored, so that of two deliveries at once only one
  // stores, writes the item and publishes (the other closes the body unread and leaves the work to it),
  // and so that no byte of the body is written without a live claim: an erasure waits out a live claim and
  // then fences the record, after which every claim is refused (the timeline: shared/erasure/fence.ts).
  // The claim's TTL is the item's as of now; the mark writes the item's own.
  const claim = newClaim(budget, message.refetch === true);
  // Held by another delivery: acknowledged only if the store already shows where the result ended.
  const lost = await claimBeforeStoring(message.resultId, body, claim, deps, {
    erasureEnds: !message.refetch,
  });
  if (lost) return lost;
  let storedResult: StoredResult;
  try {
    storedResult = await store.storeResult(message.resultId, body);
  } catch (error) {
    // Claimed for a body that could not be stored: let go at once, not at the claim's expiry.
    if (claim) await releaseClaim(message.resultId, claim, deps);
    throw error;
  }
  if (!message.refetch && (await lostToErasure(message.resultId, storedResult.stored, claim, deps))) {
    return 'erased';
  }
  if (claim && nowMs(deps) >= claim.expiresAt) {
    // A delivery resumed after its invocation's deadline: an erasure may have fenced meanwhile.
    throw claimExpired('the item was written');
  }
  const { document, stored } = storedResult;
  const item = await followingTransaction(
    buildStoredItem({
      hints: hintsOf(message),
      document,
      stored,
      bucket: store.bucket,
      storedAt: clock(deps),
      retentionDays: deps.retentionDays,
    }),
    deps,
  );
  const put = await store.putStoredItem(item);
  if (!put.written) {
    // Stored before this claim (by a delivery whose claim has expired, or before claims): announce that item.
    const { current } = put;
    if (current?.eventPublishedAt) return 'duplicate';
    if (!current) throw new PipelineError('result item vanished after a conditional check failed');
    await announce(current, claim, deps);
    return 'announced-pending';
  }
  logger.info('result stored', { objects: stored.objects.length, documentBytes: stored.documentBytes });
  await announce(item, claim, deps);
  return versionOf(item) > 1 ? 'changed' : 'stored';
}

/**
 * A new resultId of a transaction whose verdict is stored under another resultId (the service issued a new
 * result after a review): the new item is the next version of the latest one, with its history. A result
 * the service completed before the stored one (an older verdict delivered late) is no change: it stays a
 * first version of its own.
 */
async function followingTransaction(item: ResultItem, deps: FetchResultDeps): Promise<ResultItem> {
  if (item.transactionId === undefined) return item;
  const previous = await deps.store.latestOfTransaction(item.transactionId, item.resultId);
  if (!previous) return item;
  if (item.completedKnown && previous.completedKnown && item.completed < previous.completed) {
    deps.logger.info('a verdict completed before the stored one of its transaction: stored, not a change');
    return item;
  }
  return asNextVersion(item, previous);
}

/**
 * A stored result announced again with a later `completed` (docs/changed-verdicts.md): the
 * service changed its verdict. The body is fetched and stored as the next version under its own prefix,
 * claimed on the result's publication record for that version (two deliveries of one version store it
 * once; an erasure's fence refuses the claim as every other), put over the version before it, announced
 * as `VerificationResultChanged` and marked.
 */
async function storeNextVersion(
  message: ResultMessage,
  existing: ResultItem,
  deps: FetchResultDeps,
  budget: RecordBudget,
): Promise<FetchOutcome> {
  const { store, logger } = deps;
  const version = versionOf(existing) + 1;
  let body: AsyncIterable<Uint8Array>;
  try {
    body = await openBody(message.resultId, deps.source, budget);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // The stored version stays: a 404 never hides a stored result. Nothing to retry.
    logger.warn(
      'result announced again with a later completion, but the service has it no more: kept as stored',
    );
    return 'duplicate';
  }
  const claim = newClaim(budget);
  const lost = await claimBeforeStoring(message.resultId, body, claim, deps, { erasureEnds: true, version });
  if (lost) return lost;
  let storedResult: StoredResult;
  try {
    storedResult = await store.storeResult(message.resultId, body, version);
  } catch (error) {
    if (claim) await releaseClaim(message.resultId, claim, deps);
    throw error;
  }
  if (await lostToErasure(message.resultId, storedResult.stored, claim, deps)) return 'erased';
  if (claim && nowMs(deps) >= claim.expiresAt) throw claimExpired('the item was written');
  const built = buildStoredItem({
    hints: { ...identifiersOf(existing), ...hintsOf(message) },
    document: storedResult.document,
    stored: storedResult.stored,
    bucket: store.bucket,
    storedAt: clock(deps),
    retentionDays: deps.retentionDays,
  });
  const item = asNextVersion(built, existing);
  const put = await store.putVersionItem(item);
  if (!put.written) {
    // Another delivery wrote this version (or a later one) first, under a claim that has expired.
    const { current } = put;
    if (!current) throw new PipelineError('result item vanished after a conditional check failed');
    if (current.eventPublishedAt) return 'duplicate';
    await announce(current, claim, deps);
    return 'announced-pending';
  }
  logger.info('changed verdict stored as a new version', {
    version,
    objects: storedResult.stored.objects.length,
  });
  await announce(item, claim, deps);
  return 'changed';
}

/** The identifiers and poll metadata a stored item has, as hints for its next version. */
function identifiersOf(item: ResultItem): ResultHints {
  const { resultId, transactionId, customerReference, userId, product } = item;
  return {
    resultId,
    ...(transactionId !== undefined && { transactionId }),
    ...(customerReference !== undefined && { customerReference }),
    ...(userId !== undefined && { userId }),
    ...(product !== undefined && { product }),
  };
}

async function recordUnavailable(
  message: ResultMessage,
  existing: ResultItem | undefined,
  deps: FetchResultDeps,
  budget: RecordBudget,
): Promise<FetchOutcome> {
  const { store, logger } = deps;
  if (existing) {
    if (existing.eventPublishedAt) return 'duplicate';
    logger.warn('service has no result for this resultId: recorded as UNAVAILABLE', {
      source: message.source,
    });
    return (await claimAndAnnounce(existing, deps, budget)) ?? 'unavailable';
  }
  const candidate = buildUnavailableItem({
    hints: hintsOf(message),
    storedAt: clock(deps),
    retentionDays: deps.retentionDays,
  });
  const claim = newClaim(budget);
  const lost = await claimOrStepAside(candidate, claim, deps);
  if (lost === HELD) return stepAside(candidate.resultId, deps, !message.refetch);
  if (lost) return lost;
  let item: ResultItem | undefined = candidate;
  const put = await store.putUnavailableItem(candidate);
  if (!put.written) {
    item = put.current;
    if (!item) throw new PipelineError('result item vanished after a conditional check failed');
    if (item.eventPublishedAt) return 'duplicate';
    // Stored meanwhile: its own (STORED) event is due, under a STORED claim.
    if (item.status === 'STORED') return (await claimAndAnnounce(item, deps, budget)) ?? 'announced-pending';
  }
  logger.warn('service has no result for this resultId: recorded as UNAVAILABLE', { source: message.source });
  await announce(item, claim, deps);
  return item.status === 'STORED' ? 'announced-pending' : 'unavailable';
}

async function announceUpload(message: UploadMessage, deps: FetchResultDeps): Promise<FetchOutcome> {
  const uploadedMs = message.uploadedAt ? Date.parse(message.uploadedAt) : Number.NaN;
  const uploadedAt = Number.isNaN(uploadedMs) ? clock(deps) : new Date(uploadedMs).toISOString();
  await deps.publisher.publishDocumentsUploaded(uploadedDetail({ ...message, uploadedAt }, deps));
  deps.logger.info('documents upload announced');
  return 'upload-announced';
}

function hintsOf(message: ResultMessage): ResultHints {
  const { kind: _kind, ...hints } = message;
  return hints;
}

/** The result body as chunks, its service call bounded by the record's deadline. */
function openBody(
  resultId: string,
  source: ResultSource,
  budget: RecordBudget,
): Promise<AsyncIterable<Uint8Array>> {
  const options: CallBudget =
    budget.serviceDeadlineMs === undefined ? {} : { deadlineMs: budget.serviceDeadlineMs };
  return source.getResultStream(resultId, options);
}
