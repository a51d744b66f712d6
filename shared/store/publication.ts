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
import { PipelineError } from '../errors';
import { isConditionalCheckFailed, itemOnFailedCondition } from './conditional';
import type { ResultStatus } from './item';
import { RESULTS_TABLE } from './table-schema';

/**
 * The publication record's attributes, by the placeholder every expression of this module names them with
 * (`#status`, `#claim`, …; see {@link PublicationRecord} for what each holds). The one place their
 * names are written: each write sends the names its expressions use ({@link namesIn}).
 */
export const PUBLICATION_ATTRIBUTES = {
  pk: RESULTS_TABLE.partitionKey,
  status: 'status',
  publishedAt: 'publishedAt',
  claim: 'claim',
  claimExpiresAt: 'claimExpiresAt',
  claimVersion: 'claimVersion',
  version: 'version',
  expiresAt: 'expiresAt',
  erasedAt: 'erasedAt',
} as const;

/** The `ExpressionAttributeNames` of `expressions`: each `#name` they use, from {@link PUBLICATION_ATTRIBUTES}. */
export function namesIn(...expressions: readonly string[]): Record<string, string> {
  const names: Record<string, string> = {};
  for (const expression of expressions) {
    for (const [placeholder, name] of expression.matchAll(/#(\w+)/g)) {
      const attribute = (PUBLICATION_ATTRIBUTES as Record<string, string>)[name!];
      if (attribute === undefined)
        throw new PipelineError(`${placeholder} is not an attribute of the publication record`);
      names[placeholder] = attribute;
    }
  }
  return names;
}

/**
 * `condition` (of a claim or a mark of the publication record), refused once the erasure has fenced the
 * record: no delivery claims or marks an erased result.
 */
export function unlessFenced(condition: string): string {
  return `attribute_not_exists(#erasedAt) AND (${condition})`;
}

/**
 * The claim condition of a refetch (`idv results refetch`, an operator's explicit request to fetch an
 * erased result again): the fence does not hold it back, and a fenced record (which has no status) is
 * free.
 */
export function reopeningFence(condition: string): string {
  return `(${condition}) OR (attribute_exists(#erasedAt) AND attribute_not_exists(#status))`;
}

/** Suffix of a publication record's key; never part of a resultId (`RESULT_ID_PATTERN` has no `#`). */
export const PUBLICATION_KEY_SUFFIX = '#publication';

/** The table key of `resultId`'s publication record. */
export function publicationKey(resultId: string): string {
  return `${resultId}${PUBLICATION_KEY_SUFFIX}`;
}

/** The table key of `resultId`'s publication record, as DynamoDB's `Key`. */
function recordKey(resultId: string): Record<string, string> {
  return { [RESULTS_TABLE.partitionKey]: publicationKey(resultId) };
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
  /**
   * Version of the result whose event `publishedAt` is about (docs/changed-verdicts.md);
   * absent for a first version.
   */
  readonly version?: number;
  /** Version a live (or expired) claim is about, while a later version of a published result is stored. */
  readonly claimVersion?: number;
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
const NOT_HELD = '(attribute_not_exists(#claimExpiresAt) OR #claimExpiresAt < :now OR #claim = :token)';
/** Unpublished and not held: whatever status the record names, its event is not out and nobody works on it. */
const FREE = `(attribute_not_exists(#publishedAt) AND ${NOT_HELD})`;
/** The record is about the other status (only a STORED claim may use this: it replaces UNAVAILABLE). */
const OTHER_STATUS = '#status <> :status';
/** The published event is about a version before `:version` (a record without one is about the first). */
const EARLIER_VERSION = '(attribute_not_exists(#version) OR #version < :version)';

/*
 * A later version of a STORED result (the service changed its verdict and announced the same resultId
 * again) is claimed on the same record, which keeps the previous version's publication meanwhile:
 *
 *   v1  published (publishedAt, version absent or 1)                → a claim for v2 may take it
 *   v2  claimed (claim, claimVersion = 2), item put, event, mark    → version = 2, claim and claimVersion go
 *   v2  a second delivery of the same version                       → refused: held (HELD), or version 2
 *                                                                     published (a duplicate)
 *   v2  the claimer failed (released or expired)                     → NOT_HELD: the redelivery claims again
 *
 * The erasure's fence refuses these claims as every other.
 */
/**
 * Conditions of a claim for version `:version` (2 or more) of a published STORED result: its record says
 * an earlier version is published and nobody holds it; or there is no record, or one that only claims of
 * later versions wrote (no status) and nobody holds: an item stored before publication records existed,
 * whose own `eventPublishedAt` says it is published (the caller read it so).
 */
const LATER_VERSION = `(attribute_exists(#publishedAt) AND #status = :status AND ${EARLIER_VERSION} AND ${NOT_HELD}) OR ${NO_RECORD} OR (attribute_not_exists(#status) AND ${NOT_HELD})`;

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
 * mark never replaces a STORED record that is published. A version is marked once, after the one before
 * it; a mark never takes the record back to an earlier version (a late mark of a delivery whose claim
 * expired).
 */
function markCondition(status: ResultStatus, version: number): string {
  const unmarked = `attribute_not_exists(#pk) OR attribute_not_exists(#publishedAt)${version > 1 ? ` OR ${EARLIER_VERSION}` : ''}`;
  const base = status === 'STORED' ? `${unmarked} OR #status <> :status` : unmarked;
  return `(${base}) AND (attribute_not_exists(#version) OR #version <= :version)`;
}

/** No delivery holds the record: never claimed, released, or marked (the mark removes the claim). */
const NO_CLAIM = 'attribute_not_exists(#claimExpiresAt)';
/** The holder's claim expired (plus the clocks' skew, in `:over`): its invocation is over. */
const CLAIM_IS_OVER = '#claimExpiresAt < :over';
/** The very claim the erasure has watched for longer than a claim can live (`:seenToken`, `:seenUntil`). */
const CLAIM_OUTLIVED = '(#claim = :seenToken AND #claimExpiresAt = :seenUntil)';

/** One attempt of the erasure's fence: when a claim counts as over, and the claim it has watched outlive its life. */
export interface FenceAttempt {
  /** A claim whose `claimExpiresAt` is before this (epoch ms: the erasure's now less the clocks' skew) is over. */
  readonly overBefore: number;
  /** The claim the erasure has seen unchanged for longer than a claim can live: over whatever the clocks say. */
  readonly outlived?: { readonly token: string; readonly until: number };
}

/** What one fence attempt found: fenced (and whether a record with a status was replaced), or the holder. */
export type FenceOutcome =
  | { readonly fenced: true; readonly replacedRecord: boolean }
  | { readonly fenced: false; readonly holder: PublicationRecord | undefined };

/**
 * The writes a delivery makes on a result's publication record (fetch-result's `publications`
 * dependency; `Publications` implements them).
 */
export interface PublicationWrites {
  /**
   * Claims the publication of the `status` event of `resultId` for `claim.token` until `claim.expiresAt`:
   * not claimed when it is published or another delivery holds an unexpired claim, with the record that
   * said so. `expiresAt` (epoch seconds) is the result item's TTL; `version` (2 or more) claims a later
   * version of a published STORED result.
   */
  claim(
    resultId: string,
    status: ResultStatus,
    claim: PublishClaim,
    nowMs: number,
    expiresAt?: number,
    version?: number,
  ): Promise<ClaimResult>;
  /** Gives up the claim of `token` on `resultId`'s record, unless another delivery holds it or it is published. */
  release(resultId: string, token: string): Promise<void>;
  /** Records that the `status` event of `resultId` (its `version`, the first by default) was published at `at`. */
  mark(
    resultId: string,
    status: ResultStatus,
    at: string,
    expiresAt?: number,
    version?: number,
  ): Promise<void>;
}

/** The publication records of one results table: every write of a record goes through here. */
export class Publications implements PublicationWrites {
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
        Key: recordKey(resultId),
        ConsistentRead: true,
      }),
    );
    return response.Item as PublicationRecord | undefined;
  }

  /**
   * Claims the publication of the `status` event of `resultId` for `claim.token` until `claim.expiresAt`;
   * not claimed when it is published or another delivery holds an unexpired claim (see
   * {@link claimCondition}), with the record that said so. `expiresAt` (epoch seconds) is the result
   * item's TTL. `version` (2 or more) claims a later version of a published STORED result
   * ({@link LATER_VERSION}); without it the claim is for the result's first stored body.
   */
  async claim(
    resultId: string,
    status: ResultStatus,
    claim: PublishClaim,
    nowMs: number,
    expiresAt?: number,
    version?: number,
  ): Promise<ClaimResult> {
    try {
      if (version !== undefined && version > 1) {
        await this.#claimVersion(resultId, status, claim, nowMs, version, expiresAt);
        return { claimed: true };
      }
      await this.#update({
        TableName: this.#table,
        Key: recordKey(resultId),
        // REMOVE publishedAt: only ever present here when a STORED claim replaces an UNAVAILABLE record.
        // REMOVE erasedAt: only ever present when a refetch's claim lifts an erasure's fence.
        UpdateExpression: `SET #status = :status, #claim = :token, #claimExpiresAt = :until${expiresAt === undefined ? '' : ', #expiresAt = :ttl'} REMOVE #publishedAt, #erasedAt`,
        // The erasure's fence (erasure/fence.ts) stops every claim but a refetch's.
        ConditionExpression: claim.reopensErasure
          ? reopeningFence(claimCondition(status))
          : unlessFenced(claimCondition(status)),
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

  /** The claim of a later version ({@link LATER_VERSION}): the previous version's publication stays. */
  async #claimVersion(
    resultId: string,
    status: ResultStatus,
    claim: PublishClaim,
    nowMs: number,
    version: number,
    expiresAt?: number,
  ): Promise<void> {
    await this.#update({
      TableName: this.#table,
      Key: recordKey(resultId),
      UpdateExpression: `SET #claim = :token, #claimExpiresAt = :until, #claimVersion = :version${expiresAt === undefined ? '' : ', #expiresAt = :ttl'}`,
      ConditionExpression: unlessFenced(LATER_VERSION),
      ExpressionAttributeValues: {
        ':status': status,
        ':token': claim.token,
        ':until': claim.expiresAt,
        ':now': nowMs,
        ':version': version,
        ...(expiresAt !== undefined && { ':ttl': expiresAt }),
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  }

  /**
   * Gives up the claim of `token` on `resultId`'s record (a delivery that claimed, then failed before it
   * published), so that another delivery need not wait for it to expire. Only this token's claim goes: a
   * record claimed by another delivery, or published, is left as it is.
   */
  async release(resultId: string, token: string): Promise<void> {
    await this.#updateIfStill({
      TableName: this.#table,
      Key: recordKey(resultId),
      UpdateExpression: 'REMOVE #claim, #claimExpiresAt, #claimVersion',
      // The mark removes the claim, so a claim of this token is unpublished (a later version's claim
      // sits beside the previous version's publishedAt).
      ConditionExpression: '#claim = :token',
      ExpressionAttributeValues: { ':token': token },
    });
  }

  /**
   * Records that the `status` event of `resultId` (its `version`, the first by default) was published at
   * `at` and drops the claim; a second mark of the same status and version is a no-op (see
   * {@link markCondition}).
   */
  async mark(
    resultId: string,
    status: ResultStatus,
    at: string,
    expiresAt?: number,
    version = 1,
  ): Promise<void> {
    await this.#updateIfStill({
      TableName: this.#table,
      Key: recordKey(resultId),
      UpdateExpression: `SET #status = :status, #publishedAt = :at${version > 1 ? ', #version = :version' : ''}${expiresAt === undefined ? '' : ', #expiresAt = :ttl'} REMOVE #claim, #claimExpiresAt, #claimVersion`,
      // A fenced record is an erased result's: a delivery whose claim expired cannot mark it.
      ConditionExpression: unlessFenced(markCondition(status, version)),
      ExpressionAttributeValues: {
        ':status': status,
        ':at': at,
        ':version': version,
        ...(expiresAt !== undefined && { ':ttl': expiresAt }),
      },
    });
  }

  /**
   * The erasure's fence (shared/erasure/fence.ts decides when to try): sets `erasedAt` with the fence's TTL
   * `expiresAt` (epoch seconds) and drops status, publication time, claim and version, if no delivery
   * holds a live claim ({@link NO_CLAIM}, {@link CLAIM_IS_OVER}, {@link CLAIM_OUTLIVED}). From then on
   * every claim and mark refuses the record ({@link unlessFenced}). Not fenced: the record that held it.
   */
  async fence(
    resultId: string,
    erasedAt: string,
    expiresAt: number,
    attempt: FenceAttempt,
  ): Promise<FenceOutcome> {
    try {
      const answer = await this.#update({
        TableName: this.#table,
        Key: recordKey(resultId),
        UpdateExpression:
          'SET #erasedAt = :at, #expiresAt = :ttl REMOVE #status, #publishedAt, #claim, #claimExpiresAt, #version, #claimVersion',
        ConditionExpression: [NO_CLAIM, CLAIM_IS_OVER, ...(attempt.outlived ? [CLAIM_OUTLIVED] : [])].join(
          ' OR ',
        ),
        ExpressionAttributeValues: {
          ':at': erasedAt,
          ':ttl': expiresAt,
          ':over': attempt.overBefore,
          ...(attempt.outlived && {
            ':seenToken': attempt.outlived.token,
            ':seenUntil': attempt.outlived.until,
          }),
        },
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return {
        fenced: true,
        replacedRecord: answer.Attributes?.[PUBLICATION_ATTRIBUTES.status] !== undefined,
      };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return { fenced: false, holder: await itemOnFailedCondition(error, () => this.get(resultId)) };
    }
  }

  /**
   * One UpdateItem of a record, with the attribute names its expressions use; a failed condition throws
   * `ConditionalCheckFailedException`.
   */
  #update(input: Omit<UpdateCommandInput, 'ExpressionAttributeNames'>) {
    const names = namesIn(input.UpdateExpression ?? '', input.ConditionExpression ?? '');
    return this.#dynamo.send(new UpdateCommand({ ...input, ExpressionAttributeNames: names }));
  }

  /** One UpdateItem that may find its condition false: false then, and the record is left as it is. */
  async #updateIfStill(input: Omit<UpdateCommandInput, 'ExpressionAttributeNames'>): Promise<void> {
    try {
      await this.#update(input);
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
}

/**
 * When the event of `item` was published, from its publication record: only a record about the item's
 * own status counts (an UNAVAILABLE event does not announce the STORED item that replaced it). Items
 * written before publication records existed carry `eventPublishedAt` themselves; that is kept.
 */
export function publishedAtOf(
  item: { status: ResultStatus; eventPublishedAt?: string; version?: number },
  record: PublicationRecord | undefined,
): string | undefined {
  if (item.eventPublishedAt) return item.eventPublishedAt;
  // A later version's item is announced only once the record says that version is out.
  if ((record?.version ?? 1) < (item.version ?? 1)) return undefined;
  return record?.status === item.status ? record.publishedAt : undefined;
}
