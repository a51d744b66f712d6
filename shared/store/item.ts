/**
 * The result item model (docs/pipeline.md, "DynamoDB results table"): its shape, how it is built from a
 * stripped result, and the size rules that keep every item under DynamoDB's 400 KB whatever the result
 * holds. Pure: no I/O.
 */

import { RESULT_SECTIONS } from '../api/sections';
import type { ObjectRef } from '../stream/blob-sink';
import { type ResultSummary, summarizeResult } from './summary';
import { parseCompleted } from './timestamps';
import { followingVersion, type ResultVersion, type VersionedFields } from './versions';

/** The table key of `resultId`'s result item: the id itself (the other per-result records carry a `#` suffix). */
export function resultItemKey(resultId: string): string {
  return resultId;
}

/** Status of a result item. */
export type ResultStatus = 'STORED' | 'UNAVAILABLE';

/** The DynamoDB result item (attributes absent when unknown; GSI keys are never empty strings). */
export interface ResultItem {
  resultId: string;
  status: ResultStatus;
  /** How the pipeline learned of the result first: webhook, poll or redrive. */
  source?: string;
  transactionId?: string;
  customerReference?: string;
  userId?: string;
  product?: string;
  /** Completion time from the poll record, else `storedAt` (then `completedKnown` is false). */
  completed: string;
  completedKnown: boolean;
  /** yyyy-MM-dd (UTC) of `completed`: partition key of the `byCompletedDay` index. */
  completedDay: string;
  /** Overall result value (STORED only). */
  result?: string;
  /** Result value per section present, e.g. `{ identity: 'APPROVED' }` (STORED only). */
  sections?: Record<string, string>;
  /** Reason codes, as many as fit {@link MAX_MESSAGES_BYTES}; result.json holds them all. */
  messages?: string[];
  /** Non-personal facts for the analytics projection (STORED only; docs/analytics.md). */
  summary?: ResultSummary;
  /** Number of reason codes of the result, set when `messages` holds only the first ones. */
  messageCount?: number;
  /** Why an UNAVAILABLE item is unavailable. */
  reason?: 'NOT_FOUND';
  bucket?: string;
  resultKey?: string;
  /**
   * References of the stored blobs when the item has no `document` (which holds them in place) and the
   * list fits {@link INLINE_ITEM_BYTES}; else they are in result.json. `withFullDocument` always fills it.
   */
  objects?: ObjectRef[];
  /** Number of stored blobs (always set on STORED items written since the item was bounded). */
  objectCount?: number;
  /** The stripped result (every `data` replaced by an `ObjectRef`), while the item fits {@link INLINE_ITEM_BYTES}. */
  document?: Record<string, unknown>;
  /** False when the stripped result lives only in S3 (`resultKey`): the item would have been too large. */
  documentInItem?: boolean;
  storedAt: string;
  /**
   * Version of the verdict this item holds (docs/changed-verdicts.md): absent on a first
   * version (1); 2, 3, … when the service changed the verdict after it was stored.
   */
  version?: number;
  /** History of the transaction's verdicts, oldest first, this one last; absent on a first version. */
  versions?: ResultVersion[];
  /**
   * When the item's event was published. Kept in the result's publication record (`publication.ts`), not
   * written with the item: `ResultStore.getItem` fills it in. Items stored before publication records
   * existed carry it themselves.
   */
  eventPublishedAt?: string;
  /** TTL, epoch seconds. */
  expiresAt: number;
}

/** Identifiers and poll metadata known before the result is fetched (from the queue message). */
export interface ResultHints {
  resultId: string;
  source?: string;
  transactionId?: string;
  customerReference?: string;
  userId?: string;
  product?: string;
  completed?: string;
}

/** Where `ResultStore.storeResult` stored a result. */
export interface StoredObjects {
  readonly resultKey: string;
  readonly objects: ObjectRef[];
  /** Size in bytes of the stripped result JSON. */
  readonly documentBytes: number;
}

/**
 * Largest item (as `dynamoItemSize` counts it) ever written. DynamoDB refuses items over 400 KB, and a
 * refused put can never succeed, so the limit leaves headroom for the estimate. The budgets below keep
 * every item far under it whatever the result holds.
 */
export const MAX_ITEM_BYTES = 350 * 1024;

/**
 * Largest item that carries the stripped document (or, without it, the object list) inline. Every write
 * of an item is billed one write unit per KB of the whole item (and a strongly consistent read one unit
 * per 4 KB), so the item is a summary and an index, and the full result — always in result.json — is
 * copied into it only while that is cheap: an identity document with its images and report fits; a result
 * with more images or sections keeps its object list only, or neither, and readers (`withFullDocument`,
 * `idv results get`) read result.json.
 */
export const INLINE_ITEM_BYTES = 4 * 1024;

/** Longest identifier kept in the item and its events (the events' schemas say at most 256 characters). */
const MAX_IDENTIFIER_LENGTH = 256;
/**
 * Budget of the `messages` list as DynamoDB counts it. The list goes into the event too, and a result may
 * hold thousands of reason codes; the first ones that fit are kept, `messageCount` says how many exist.
 */
export const MAX_MESSAGES_BYTES = 16 * 1024;
/** Longest product kept in the item and its events (the events' schemas say at most 64 characters). */
const MAX_PRODUCT_LENGTH = 64;

/** A non-empty string or undefined: DynamoDB refuses empty strings as index keys. */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * An identifier worth keeping: a non-empty string of at most `max` characters. Longer values stay in the
 * stored document only: as index keys they could exceed DynamoDB's key size and fail the put forever,
 * and in an event they would break its schema.
 */
function identifier(value: unknown, max = MAX_IDENTIFIER_LENGTH): string | undefined {
  const text = nonEmpty(value);
  return text !== undefined && text.length <= max ? text : undefined;
}

/**
 * Size of an attribute value as DynamoDB counts it (developer guide, "Item sizes"), rounded up: strings
 * by UTF-8 bytes, numbers 1 byte per two significant digits plus 1, booleans and null 1 byte, lists and
 * maps 3 bytes plus 1 per element plus the elements (and the map keys). JSON length is no bound: a list
 * of small numbers or booleans, as image metadata may hold, counts up to twice its JSON length.
 */
export function dynamoSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return Math.ceil(String(value).replace(/[^0-9]/g, '').length / 2) + 1;
  if (Array.isArray(value)) {
    return value.reduce<number>((sum, element) => sum + 1 + dynamoSize(element), 3);
  }
  if (typeof value === 'object') {
    let size = 3;
    for (const [key, element] of Object.entries(value)) {
      if (element !== undefined) size += 1 + Buffer.byteLength(key, 'utf8') + dynamoSize(element);
    }
    return size;
  }
  return 0;
}

/** Size of an item as DynamoDB counts it: attribute names plus values (`undefined` attributes are dropped). */
export function dynamoItemSize(item: object): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) size += Buffer.byteLength(name, 'utf8') + dynamoSize(value);
  }
  return size;
}

/** yyyy-MM-dd (UTC) of an ISO timestamp, or undefined when it does not parse. */
export function dayOf(timestamp: string | undefined): string | undefined {
  const ms = parseCompleted(timestamp);
  return ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10);
}

/** Per-section result values of a result object (`{ identity: 'APPROVED', … }`). */
export function sectionResults(result: Record<string, unknown>): Record<string, string> {
  const sections: Record<string, string> = {};
  for (const name of RESULT_SECTIONS) {
    const section = result[name] as { result?: unknown } | undefined;
    if (section && typeof section === 'object' && identifier(section.result)) {
      sections[name] = section.result as string;
    }
  }
  return sections;
}

/** Top-level reason codes of a result (strings only, each at most 256 characters). */
export function reasonCodes(result: Record<string, unknown>): string[] {
  const messages = result.messages;
  if (!Array.isArray(messages)) return [];
  return messages.filter((m): m is string => typeof m === 'string').map((m) => m.slice(0, 256));
}

/** Fields common to STORED and UNAVAILABLE items. */
function baseItem(hints: ResultHints, storedAt: string, retentionDays: number) {
  // Normalised to ISO 8601 UTC so the index sort key orders correctly whatever format the service used.
  const completedMs = parseCompleted(hints.completed);
  const completedKnown = completedMs !== undefined;
  const completed = completedKnown ? new Date(completedMs).toISOString() : storedAt;
  return {
    resultId: hints.resultId,
    source: nonEmpty(hints.source),
    transactionId: identifier(hints.transactionId),
    customerReference: identifier(hints.customerReference),
    userId: identifier(hints.userId),
    product: identifier(hints.product, MAX_PRODUCT_LENGTH),
    completed,
    completedKnown,
    completedDay: dayOf(completed)!,
    storedAt,
    expiresAt: expiresAtFor(storedAt, retentionDays),
  };
}

/** The TTL (epoch seconds) of an item stored at `storedAt` (ISO 8601) and kept `retentionDays` days. */
export function expiresAtFor(storedAt: string, retentionDays: number): number {
  return Math.floor(Date.parse(storedAt) / 1000) + retentionDays * 86_400;
}

/**
 * Builds the STORED item from the stripped result. Identifiers in the result win over the message's hints:
 * the result was fetched with our own credentials, the hints may come from an unauthenticated webhook.
 */
export function buildStoredItem(args: {
  hints: ResultHints;
  document: Record<string, unknown>;
  stored: StoredObjects;
  bucket: string;
  storedAt: string;
  retentionDays: number;
}): ResultItem {
  const { hints, document, stored } = args;
  const identifiers: ResultHints = {
    ...hints,
    transactionId: identifier(document.transactionId) ?? hints.transactionId,
    customerReference: identifier(document.customerReference) ?? hints.customerReference,
    userId: identifier(document.userId) ?? hints.userId,
  };
  const allMessages = reasonCodes(document);
  const messages = withinBudget(allMessages, MAX_MESSAGES_BYTES);
  const summary: ResultItem = compact({
    ...baseItem(identifiers, args.storedAt, args.retentionDays),
    status: 'STORED',
    result: identifier(document.result),
    sections: sectionResults(document),
    messages,
    messageCount: messages.length < allMessages.length ? allMessages.length : undefined,
    summary: summarizeResult(document),
    bucket: args.bucket,
    resultKey: stored.resultKey,
    objectCount: stored.objects.length,
    documentInItem: false,
  });
  // The document holds every reference in place, so the item lists them apart only without it.
  const withDocument: ResultItem = { ...summary, document, documentInItem: true };
  if (dynamoItemSize(withDocument) <= INLINE_ITEM_BYTES) return withDocument;
  const withObjects: ResultItem = { ...summary, objects: stored.objects };
  if (dynamoItemSize(withObjects) <= INLINE_ITEM_BYTES) return withObjects;
  return summary;
}

/** The first elements of `list` whose DynamoDB size fits `budget`. */
function withinBudget(list: string[], budget: number): string[] {
  let size = 3;
  let count = 0;
  for (const element of list) {
    size += 1 + dynamoSize(element);
    if (size > budget) break;
    count++;
  }
  return count === list.length ? list : list.slice(0, count);
}

/**
 * `item` (a STORED item just built) as the version after `previous`: its number and history (`versions.ts`).
 * The history counts towards the item's size, so a document that no longer fits {@link INLINE_ITEM_BYTES}
 * with it stays in result.json alone.
 */
export function asNextVersion(item: ResultItem, previous: VersionedFields): ResultItem {
  const versioned: ResultItem = { ...item, ...followingVersion(previous, item) };
  if (dynamoItemSize(versioned) <= INLINE_ITEM_BYTES || versioned.document === undefined) return versioned;
  const { document: _document, objects: _objects, ...rest } = versioned;
  return { ...rest, documentInItem: false };
}

/** Builds the UNAVAILABLE item for a resultId the service answered 404 to. */
export function buildUnavailableItem(args: {
  hints: ResultHints;
  storedAt: string;
  retentionDays: number;
}): ResultItem {
  return compact({
    ...baseItem(args.hints, args.storedAt, args.retentionDays),
    status: 'UNAVAILABLE',
    reason: 'NOT_FOUND',
  });
}

/** Drops top-level `undefined` attributes, so absent identifiers are absent, not null. */
function compact<T extends object>(item: T): T {
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined)) as T;
}
