/**
 * The publication record of a result (docs/pipeline.md, "One event per result"): a small item beside the
 * result item, in the same table, that holds who may publish the result's event and when it was
 * published. Claim and mark are writes of this record (one write unit each), never of the result item:
 * DynamoDB bills an update by the size of the whole item, so marking the result item itself cost as much
 * as storing it again.
 *
 * Its key is `<resultId>#publication`; `#` cannot occur in a resultId, so it never meets a result, and it
 * has none of the index keys, so no index holds it. It carries no personal data: the status, a delivery's
 * random token, times and the result's TTL.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed, itemOnFailedCondition } from './conditional';
import type { ResultStatus } from './item';
import { RESULTS_TABLE } from './table-schema';

/** The attribute of a publication record fenced by an erasure (`erasure/fence.ts`): when the erasure set the fence (ISO 8601). */
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

/** Suffix of a publication record's key; never part of a resultId (`RESULT_ID_PATTERN` has no `#`). */
export const PUBLICATION_KEY_SUFFIX = '#publication';

/** The table key of `resultId`'s publication record. */
export function publicationKey(resultId: string): string {
  return `${resultId}${PUBLICATION_KEY_SUFFIX}`;
}

/** True for a table key that is a publication record, not a result (scans see both). */
export function isPublicationKey(key: string): boolean {
  return key.endsWith(PUBLICATION_KEY_SUFFIX);
}

/** A claim on the publication of a result's event. */
export interface PublishClaim {
  /** Id of the claiming delivery (its SQS message id, or a random id). */
  readonly token: string;
  /** Epoch milliseconds: the claim holds until then. */
  readonly expiresAt: number;
  /**
   * The claim of an operator's refetch of an erased result (`refetch` message): it takes a record the
   * erasure fenced (`erasure/fence.ts`) and lifts the fence. Every other claim refuses a fenced record.
   */
  readonly reopensErasure?: boolean;
}

/** What a claim did: took the record, or found it published or held (the record as it was, if any is left). */
export type ClaimResult =
  | { readonly claimed: true }
  | { readonly claimed: false; readonly record: PublicationRecord | undefined };

/** The publication record as stored. */
export interface PublicationRecord {
  /** Status of the item whose event this record is about. */
  readonly status: ResultStatus;
  /** When that event was published (ISO 8601); absent while it is not. */
  readonly publishedAt?: string;
  /** Token of the delivery holding the claim, until the event is marked published. */
  readonly claim?: string;
  /** Epoch milliseconds after which `claim` no longer holds. */
  readonly claimExpiresAt?: number;
  /** TTL (epoch seconds), the result item's. */
  readonly expiresAt?: number;
  /** Set by an erasure (`erasure/fence.ts`): the result was erased; no claim or mark takes the record. */
  readonly erasedAt?: string;
}

/*
 * The claim's sub-conditions, joined with OR by {@link claimCondition}. The timeline they guard:
 *
 *   t0  no record                                           → NO_RECORD: anyone claims
 *   t1  delivery A claims (status, claim = A, until)         → HELD: others step aside until `until`
 *   t2a A stores the item, publishes, marks (publishedAt)    → PUBLISHED: nobody claims that status again
 *   t2b A fails before its item exists (a body it could not
 *       store): it releases its claim (or the claim expires)  → the record says STORED, but no item was
 *       ever written and nothing was published: FREE for the next delivery, whatever it found (a later
 *       404 records UNAVAILABLE, a later fetch stores)
 *   t3  the service answers after an UNAVAILABLE record     → OTHER_STATUS: a STORED claim takes over
 *
 * A late 404 never hides a stored result: it can take only a FREE record (unpublished, unheld), and its
 * conditional UNAVAILABLE item put then finds the STORED item, whose own event it announces instead.
 */
/** No publication record yet. */
const NO_RECORD = 'attribute_not_exists(#pk)';
/** Nobody holds a live claim: none was taken, it was released, it expired, or it is this token's own. */
const NOT_HELD = '(attribute_not_exists(claimExpiresAt) OR claimExpiresAt < :now OR claim = :token)';
/** Unpublished and not held: whatever status the record names, its event is not out and nobody works on it. */
const FREE = `(attribute_not_exists(publishedAt) AND ${NOT_HELD})`;
/** The record is about the other status (only a STORED claim may use this: it replaces UNAVAILABLE). */
const OTHER_STATUS = '#status <> :status';

/**
 * Conditions of a claim for `status` (see the timeline above): any delivery may claim a result that has
 * no record, or whose record is FREE — about either status, so a STORED record left by failed attempts
 * whose item was never written does not block a later UNAVAILABLE (or STORED) outcome. A STORED claim
 * also takes over a record about UNAVAILABLE, published or not: the service answered after all, and the
 * STORED event is due. An UNAVAILABLE claim never takes over a published or held STORED record.
 */
function claimCondition(status: ResultStatus): string {
  const parts = [NO_RECORD, FREE];
  if (status === 'STORED') parts.push(OTHER_STATUS);
  return parts.join(' OR ');
}

/**
 * Mark conditions: a status is marked once; a STORED mark replaces an UNAVAILABLE one; an UNAVAILABLE
 * mark never replaces a STORED record that is published.
 */
function markCondition(status: ResultStatus): string {
  const unmarked = 'attribute_not_exists(#pk) OR attribute_not_exists(publishedAt)';
  return status === 'STORED' ? `${unmarked} OR #status <> :status` : unmarked;
}

/** The publication records of one results table. */
export class Publications {
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(dynamo: DynamoDBDocumentClient, table: string) {
    this.#dynamo = dynamo;
    this.#table = table;
  }

  /** The record of `resultId` (strongly consistent read), or undefined. */
  async get(resultId: string): Promise<PublicationRecord | undefined> {
    const response = await this.#dynamo.send(
      new GetCommand({
        TableName: this.#table,
        Key: { [RESULTS_TABLE.partitionKey]: publicationKey(resultId) },
        ConsistentRead: true,
      }),
    );
    return response.Item as PublicationRecord | undefined;
  }

  /**
   * Claims the publication of the `status` event of `resultId` for `claim.token` until `claim.expiresAt`;
   * not claimed when it is published or another delivery holds an unexpired claim (see
   * {@link claimCondition}), with the record that said so. `expiresAt` (epoch seconds) is the result
   * item's TTL.
   */
  async claim(
    resultId: string,
    status: ResultStatus,
    claim: PublishClaim,
    nowMs: number,
    expiresAt?: number,
  ): Promise<ClaimResult> {
    try {
      await this.#update({
        TableName: this.#table,
        Key: { [RESULTS_TABLE.partitionKey]: publicationKey(resultId) },
        // REMOVE publishedAt: only ever present here when a STORED claim replaces an UNAVAILABLE record.
        // REMOVE erasedAt: only ever present when a refetch's claim lifts an erasure's fence.
        UpdateExpression: `SET #status = :status, claim = :token, claimExpiresAt = :until${expiresAt === undefined ? '' : ', expiresAt = :ttl'} REMOVE publishedAt, erasedAt`,
        // The erasure's fence (erasure/fence.ts) stops every claim but a refetch's.
        ConditionExpression: claim.reopensErasure
          ? reopeningFence(claimCondition(status))
          : unlessFenced(claimCondition(status)),
        ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey, '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': status,
          ':token': claim.token,
          ':until': claim.expiresAt,
          ':now': nowMs,
          ...(expiresAt !== undefined && { ':ttl': expiresAt }),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { claimed: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return { claimed: false, record: await itemOnFailedCondition(error, () => this.get(resultId)) };
    }
  }

  /**
   * Gives up the claim of `token` on `resultId`'s record (a delivery that claimed, then failed before it
   * published), so that another delivery need not wait for it to expire. Only this token's claim goes: a
   * record claimed by another delivery, or published, is left as it is.
   */
  async release(resultId: string, token: string): Promise<void> {
    try {
      await this.#update({
        TableName: this.#table,
        Key: { [RESULTS_TABLE.partitionKey]: publicationKey(resultId) },
        UpdateExpression: 'REMOVE claim, claimExpiresAt',
        ConditionExpression: 'claim = :token AND attribute_not_exists(publishedAt)',
        ExpressionAttributeValues: { ':token': token },
      });
    } catch (error) {
      if (isConditionalCheckFailed(error)) return;
      throw error;
    }
  }

  /**
   * Records that the `status` event of `resultId` was published at `at` and drops the claim; a second
   * mark of the same status is a no-op (see {@link markCondition}).
   */
  async mark(resultId: string, status: ResultStatus, at: string, expiresAt?: number): Promise<void> {
    try {
      await this.#update({
        TableName: this.#table,
        Key: { [RESULTS_TABLE.partitionKey]: publicationKey(resultId) },
        UpdateExpression: `SET #status = :status, publishedAt = :at${expiresAt === undefined ? '' : ', expiresAt = :ttl'} REMOVE claim, claimExpiresAt`,
        // A fenced record is an erased result's: a delivery whose claim expired cannot mark it.
        ConditionExpression: unlessFenced(markCondition(status)),
        ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey, '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': status,
          ':at': at,
          ...(expiresAt !== undefined && { ':ttl': expiresAt }),
        },
      });
    } catch (error) {
      if (isConditionalCheckFailed(error)) return;
      throw error;
    }
  }

  /** One UpdateItem of a record; a failed condition throws `ConditionalCheckFailedException`. */
  async #update(input: UpdateCommandInput): Promise<void> {
    await this.#dynamo.send(new UpdateCommand(input));
  }
}

/**
 * When the event of `item` was published, from its publication record: only a record about the item's
 * own status counts (an UNAVAILABLE event does not announce the STORED item that replaced it). Items
 * written before publication records existed carry `eventPublishedAt` themselves; that is kept.
 */
export function publishedAtOf(
  item: { status: ResultStatus; eventPublishedAt?: string },
  record: PublicationRecord | undefined,
): string | undefined {
  if (item.eventPublishedAt) return item.eventPublishedAt;
  return record?.status === item.status ? record.publishedAt : undefined;
}
