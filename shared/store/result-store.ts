/**
 * The result store: decoded images and files as S3 objects, the stripped result JSON in S3 and the result
 * item in DynamoDB (shape: ARCHITECTURE.md "Result item"; key and index names: `RESULTS_TABLE`).
 *
 * Idempotency: object keys are deterministic (a re-run overwrites the same bytes) and the item is written
 * with a conditional put, so a result is stored once however often it is announced or redelivered.
 */
import { createHash } from 'node:crypto';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ResultSummary, summarizeResult } from '../analytics/summary';
import {
  RESULT_FILE_DOCUMENT_TYPES,
  RESULT_IMAGE_DOCUMENT_TYPES,
  RESULT_IMAGE_PAGE_TYPES,
} from '../api/enums';
import { RESULT_SECTIONS } from '../api/schemas';
import { decodeBase64Data } from '../client/base64';
import { sniffContentType } from '../image';
import { RESULTS_TABLE } from './table-schema';
import { parseCompleted } from './timestamps';

/** Reference that replaces a base64 `data` field in the stored result. */
export interface ObjectRef {
  readonly key: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly sha256: string;
  /**
   * Set when `data` was not base64 in any known form: the object then holds the value exactly as the
   * service sent it (UTF-8 text), so nothing is lost and nothing corrupt poses as the image.
   */
  readonly undecoded?: true;
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
  messages?: string[];
  /** Non-personal facts for the analytics projection (STORED only; docs/analytics.md). */
  summary?: ResultSummary;
  /** Why an UNAVAILABLE item is unavailable. */
  reason?: 'NOT_FOUND';
  bucket?: string;
  resultKey?: string;
  objects?: ObjectRef[];
  /** The stripped result (every `data` replaced by an `ObjectRef`), unless it is too large for an item. */
  document?: Record<string, unknown>;
  /** False when the stripped result was too large for the item and lives only in S3 (`resultKey`). */
  documentInItem?: boolean;
  storedAt: string;
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

/** What `writeObjects` stored. */
export interface StoredObjects {
  readonly resultKey: string;
  readonly objects: ObjectRef[];
  /** Size in bytes of the stripped result JSON. */
  readonly documentBytes: number;
}

/**
 * Largest item (as `dynamoItemSize` counts it) written with the stripped result inside. DynamoDB refuses
 * items over 400 KB, and a refused put can never succeed, so the limit leaves headroom for the estimate.
 */
export const MAX_ITEM_BYTES = 350 * 1024;

/** Longest identifier kept in the item and its events (the events' schemas say at most 256 characters). */
const MAX_IDENTIFIER_LENGTH = 256;
/** Longest product kept in the item and its events (the events' schemas say at most 64 characters). */
const MAX_PRODUCT_LENGTH = 64;

/**
 * The resultId as one S3 key segment. Ids of only letters, digits, `-` and `_` (UUIDs, our simulator's ids)
 * keep their plain form. Every other character (`.` `:` `~` `+` `=` `@`, which another implementation may
 * use; S3 treats `:` `+` `=` `@` specially and `~` is to be avoided) becomes `.` plus two upper-case hex
 * digits per UTF-8 byte, e.g. `res.2026:0001` → `res.2E2026.3A0001`. The mapping is reversible and
 * collision-free: a plain segment never contains `.`, an escaped one always does, and `.` itself is escaped.
 */
export function resultIdKeyPart(resultId: string): string {
  return resultId.replace(/[^A-Za-z0-9_-]/gu, (char) =>
    [...Buffer.from(char, 'utf8')]
      .map((byte) => `.${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  );
}

/** S3 key of the stripped result JSON. */
export function resultJsonKey(resultId: string): string {
  return `results/${resultIdKeyPart(resultId)}/result.json`;
}

/** Two-digit (or more) 1-based position used in object keys. */
function position(index: number): string {
  return String(index + 1).padStart(2, '0');
}

/** An enum value for a key part, or `UNKNOWN`: raw strings never reach a key. */
function keyPart(value: unknown, allowed: readonly string[]): string {
  return typeof value === 'string' && allowed.includes(value) ? value : 'UNKNOWN';
}

/** S3 key of the `index`-th image of a result. */
export function imageKey(
  resultId: string,
  index: number,
  image: Record<string, unknown>,
  ext: string,
): string {
  const documentType = keyPart(image.documentType, RESULT_IMAGE_DOCUMENT_TYPES);
  const pageType = keyPart(image.pageType, RESULT_IMAGE_PAGE_TYPES);
  return `results/${resultIdKeyPart(resultId)}/images/${position(index)}-${documentType}-${pageType}.${ext}`;
}

/** S3 key of the `index`-th file of a result. */
export function fileKey(resultId: string, index: number, file: Record<string, unknown>, ext: string): string {
  const documentType = keyPart(file.documentType, RESULT_FILE_DOCUMENT_TYPES);
  return `results/${resultIdKeyPart(resultId)}/files/${position(index)}-${documentType}.${ext}`;
}

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
    if (section && typeof section === 'object' && typeof section.result === 'string') {
      sections[name] = section.result;
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
    expiresAt: Math.floor(Date.parse(storedAt) / 1000) + retentionDays * 86_400,
  };
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
  const item: ResultItem = compact({
    ...baseItem(identifiers, args.storedAt, args.retentionDays),
    status: 'STORED',
    result: nonEmpty(document.result),
    sections: sectionResults(document),
    messages: reasonCodes(document),
    summary: summarizeResult(document),
    bucket: args.bucket,
    resultKey: stored.resultKey,
    objects: stored.objects,
    documentInItem: true,
  });
  // The whole item is measured, not the document alone: the `objects` list grows with every image too.
  const withDocument = { ...item, document };
  if (dynamoItemSize(withDocument) <= MAX_ITEM_BYTES) return withDocument;
  return { ...item, documentInItem: false };
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

function isConditionalCheckFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Options of the `ResultStore`. */
export interface ResultStoreOptions {
  readonly s3: S3Client;
  readonly dynamo: DynamoDBDocumentClient;
  readonly bucket: string;
  readonly table: string;
}

/** The S3 + DynamoDB result store. */
export class ResultStore {
  readonly bucket: string;
  readonly table: string;
  readonly #s3: S3Client;
  readonly #dynamo: DynamoDBDocumentClient;

  constructor(options: ResultStoreOptions) {
    this.#s3 = options.s3;
    this.#dynamo = options.dynamo;
    this.bucket = options.bucket;
    this.table = options.table;
  }

  /** The item of a result (strongly consistent read), or undefined. */
  async getItem(resultId: string): Promise<ResultItem | undefined> {
    const response = await this.#dynamo.send(
      new GetCommand({
        TableName: this.table,
        Key: { [RESULTS_TABLE.partitionKey]: resultId },
        ConsistentRead: true,
      }),
    );
    return response.Item as ResultItem | undefined;
  }

  /**
   * Decodes every `images[i].data` and `files[i].data` of `result` one at a time into an S3 object and
   * replaces it in place by its `ObjectRef`, so at most one decoded buffer is alive at once; then writes
   * the stripped result as `result.json`. Mutates `result`. An entry whose `data` is missing, `null` or not
   * a string stays in the document as it came, with no object: the rest of the result is still stored.
   */
  async writeObjects(resultId: string, result: Record<string, unknown>): Promise<StoredObjects> {
    const objects: ObjectRef[] = [];
    const groups = [
      { list: result.images, key: imageKey },
      { list: result.files, key: fileKey },
    ];
    for (const { list, key } of groups) {
      if (!Array.isArray(list)) continue;
      for (const [index, entry] of list.entries()) {
        if (!entry || typeof entry !== 'object') continue;
        const record = entry as Record<string, unknown>;
        if (typeof record.data !== 'string') continue;
        const ref = await this.#putDecoded(record.data, (ext) => key(resultId, index, record, ext));
        // Dropping the base64 string here is what keeps memory bounded for large results.
        record.data = ref;
        objects.push(ref);
      }
    }
    const json = JSON.stringify(result);
    const resultKey = resultJsonKey(resultId);
    const body = Buffer.from(json, 'utf8');
    await this.#put(resultKey, body, 'application/json', sha256(body));
    return { resultKey, objects, documentBytes: body.length };
  }

  /** Conditional put of a STORED item: true if written, false if a STORED item already exists. */
  async putStoredItem(item: ResultItem): Promise<boolean> {
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          // An UNAVAILABLE item may be replaced: the service answered after all.
          ConditionExpression: 'attribute_not_exists(#pk) OR #status = :unavailable',
          ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey, '#status': 'status' },
          ExpressionAttributeValues: { ':unavailable': 'UNAVAILABLE' },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /** Conditional put of an UNAVAILABLE item: true if written, false if any item already exists. */
  async putUnavailableItem(item: ResultItem): Promise<boolean> {
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /** Records that the item's event was published (once; a second mark is a no-op). */
  async markPublished(resultId: string, status: ResultStatus, at: string): Promise<void> {
    try {
      await this.#dynamo.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [RESULTS_TABLE.partitionKey]: resultId },
          UpdateExpression: 'SET eventPublishedAt = :at',
          // Only the item whose event was published: a STORED item replacing an UNAVAILABLE one
          // must not inherit the UNAVAILABLE event's mark.
          ConditionExpression:
            'attribute_exists(#pk) AND attribute_not_exists(eventPublishedAt) AND #status = :status',
          ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey, '#status': 'status' },
          ExpressionAttributeValues: { ':at': at, ':status': status },
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailed(error)) return;
      throw error;
    }
  }

  async #putDecoded(data: string, keyFor: (ext: string) => string): Promise<ObjectRef> {
    const decoded = decodeBase64Data(data);
    const bytes = decoded ?? Buffer.from(data, 'utf8');
    const { contentType, extension } = decoded
      ? sniffContentType(bytes)
      : { contentType: 'text/plain; charset=utf-8', extension: 'txt' };
    const key = keyFor(extension);
    const digest = sha256(bytes);
    await this.#put(key, bytes, contentType, digest);
    return { key, contentType, bytes: bytes.length, sha256: digest, ...(decoded ? {} : { undecoded: true }) };
  }

  async #put(key: string, body: Buffer, contentType: string, digest: string): Promise<void> {
    await this.#s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        Metadata: { sha256: digest },
        // No ServerSideEncryption header: with `aws:kms` but no key id S3 would use the AWS-managed
        // aws/s3 key; without it the bucket's default encryption (our customer-managed key) applies.
      }),
    );
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
