/**
 * Analyst queries over the results table and bucket: one result, a transaction's or a customer
 * reference's results, and results by completion day (the `byCompletedDay` index, queried day by day,
 * never a Scan). Used by `idv results …`; works against AWS and the local emulators alike.
 *
 * The indexes project keys only (and the day index the two filter attributes, see `RESULTS_TABLE`), so a
 * query reads the keys from the index and then the items from the table (`BatchGetItem`, 100 at a time),
 * in the index's order. Reads are rare; every write of a result would pay for fuller indexes.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { PipelineError } from '../errors';
import { batchGetAll } from '../store/batch-get';
import type { ResultItem } from '../store/item';
import { Publications, publishedAtOf } from '../store/publication';
import { RESULTS_TABLE } from '../store/table-schema';
import type { ObjectRef } from '../stream/blob-sink';

/** Where the results live. */
export interface ResultsQueryDeps {
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  tableName: string;
  /**
   * Bucket to read objects from. @default the bucket recorded on each item (set this only when the
   * objects were copied to another bucket)
   */
  bucketName?: string;
}

/** Filters of {@link listResults}; dates are `yyyy-MM-dd` or ISO timestamps (UTC). */
export interface ListFilter {
  since: Date;
  until: Date;
  result?: string;
  product?: string;
}

/** A stored object that did not match its recorded SHA-256. */
export class ChecksumMismatchError extends PipelineError {
  override readonly name = 'ChecksumMismatchError';
  constructor(readonly key: string) {
    super(`SHA-256 of ${key} does not match the stored checksum`);
  }
}

/** Longest `--since`..`--until` span listed, so a typo cannot start a query per day for decades. */
export const MAX_LIST_DAYS = 366;

/**
 * The item of one result, or `undefined`, with `eventPublishedAt` from its publication record
 * (docs/pipeline.md, "One event per result").
 */
export async function getResult(deps: ResultsQueryDeps, resultId: string): Promise<ResultItem | undefined> {
  const [{ Item }, publication] = await Promise.all([
    deps.dynamo.send(
      new GetCommand({ TableName: deps.tableName, Key: { [RESULTS_TABLE.partitionKey]: resultId } }),
    ),
    new Publications(deps.dynamo, deps.tableName).get(resultId),
  ]);
  const item = Item as ResultItem | undefined;
  const eventPublishedAt = item && publishedAtOf(item, publication);
  return item && eventPublishedAt ? { ...item, eventPublishedAt } : item;
}

/**
 * The item with everything a bounded item leaves to result.json filled back in: the stripped `document`,
 * the whole `objects` list and every reason code (docs/pipeline.md, "DynamoDB results table"). An item
 * that holds its document is completed without reading S3 (its `objects` come from the document).
 */
export async function withFullDocument(deps: ResultsQueryDeps, item: ResultItem): Promise<ResultItem> {
  const complete = item.documentInItem !== false && item.document !== undefined;
  const bucket = deps.bucketName ?? item.bucket;
  if (complete) return { ...item, objects: item.objects ?? objectRefs(item.document!) };
  if (item.status !== 'STORED' || !bucket || !item.resultKey) return item;
  const object = await deps.s3.send(new GetObjectCommand({ Bucket: bucket, Key: item.resultKey }));
  const text = await object.Body!.transformToString('utf8');
  const expected = object.Metadata?.['sha256'];
  if (expected && expected !== createHash('sha256').update(text, 'utf8').digest('hex')) {
    throw new ChecksumMismatchError(item.resultKey);
  }
  const document = JSON.parse(text) as Record<string, unknown>;
  const messages = Array.isArray(document.messages)
    ? document.messages.filter((m): m is string => typeof m === 'string')
    : item.messages;
  return {
    ...item,
    document,
    objects: item.objects ?? objectRefs(document),
    ...(messages && { messages }),
  };
}

/** The references in a stripped document, images first, as the store lists them. */
export function objectRefs(document: Record<string, unknown>): ObjectRef[] {
  const refs: ObjectRef[] = [];
  for (const group of [document.images, document.files]) {
    if (!Array.isArray(group)) continue;
    for (const entry of group) {
      const data = (entry as { data?: unknown } | null)?.data as Partial<ObjectRef> | undefined;
      if (
        data &&
        typeof data === 'object' &&
        typeof data.key === 'string' &&
        typeof data.sha256 === 'string'
      ) {
        refs.push(data as ObjectRef);
      }
    }
  }
  return refs;
}

/** Every result of a transaction, oldest first. */
export function resultsByTransaction(deps: ResultsQueryDeps, transactionId: string): Promise<ResultItem[]> {
  return queryIndex(deps, RESULTS_TABLE.indexes.byTransactionId, transactionId);
}

/** Every result of a customer reference, oldest first. */
export function resultsByReference(deps: ResultsQueryDeps, customerReference: string): Promise<ResultItem[]> {
  return queryIndex(deps, RESULTS_TABLE.indexes.byCustomerReference, customerReference);
}

/** Every item of `index` whose partition key is `value`, in sort-key (`completed`) order. */
function queryIndex(
  deps: ResultsQueryDeps,
  index: { readonly indexName: string; readonly partitionKey: string },
  value: string,
): Promise<ResultItem[]> {
  return queryAll(deps, {
    IndexName: index.indexName,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': index.partitionKey },
    ExpressionAttributeValues: { ':pk': value },
  });
}

/**
 * Results completed between `since` and `until` (inclusive), oldest first, optionally filtered by
 * overall result and product. One Query per UTC day on `byCompletedDay`; `onDay` reports progress.
 */
export async function listResults(
  deps: ResultsQueryDeps,
  filter: ListFilter,
  onDay?: (day: string, found: number) => void,
): Promise<ResultItem[]> {
  const days = daysBetween(filter.since, filter.until);
  const index = RESULTS_TABLE.indexes.byCompletedDay;
  const names: Record<string, string> = { '#pk': index.partitionKey, '#sk': index.sortKey };
  const values: Record<string, unknown> = {
    ':from': filter.since.toISOString(),
    ':to': filter.until.toISOString(),
  };
  const filters: string[] = [];
  if (filter.result) {
    names['#result'] = 'result';
    values[':result'] = filter.result;
    filters.push('#result = :result');
  }
  if (filter.product) {
    names['#product'] = 'product';
    values[':product'] = filter.product;
    filters.push('#product = :product');
  }
  const found: ResultItem[] = [];
  for (const day of days) {
    const items = await queryAll(deps, {
      IndexName: index.indexName,
      KeyConditionExpression: '#pk = :day AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':day': day },
      ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    });
    found.push(...items);
    onDay?.(day, items.length);
  }
  return found;
}

/** The UTC days (`yyyy-MM-dd`) from `since` to `until`; throws when the span is reversed or too long. */
export function daysBetween(since: Date, until: Date): string[] {
  if (Number.isNaN(since.getTime()) || Number.isNaN(until.getTime())) throw new RangeError('invalid date');
  if (since > until) throw new RangeError('--since is after --until');
  const days: string[] = [];
  const cursor = new Date(Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate()));
  while (cursor <= until) {
    days.push(cursor.toISOString().slice(0, 10));
    if (days.length > MAX_LIST_DAYS) throw new RangeError(`the span is longer than ${MAX_LIST_DAYS} days`);
    cursor.setUTCDate(cursor.getUTCDate() + 1);
  }
  return days;
}

/** One written file of {@link downloadResult}. */
export interface DownloadedFile {
  path: string;
  bytes: number;
  sha256: string;
}

/**
 * Writes `result.json` and every image and file of a stored result into `dir`, checking each object's
 * SHA-256 (the item's `ObjectRef`, for `result.json` the object's `sha256` metadata) before writing it.
 * File names are the last part of the pipeline's own S3 keys, so nothing in the result picks a path.
 */
export async function downloadResult(
  deps: ResultsQueryDeps,
  item: ResultItem,
  dir: string,
  onFile?: (file: DownloadedFile, index: number, total: number) => void,
): Promise<DownloadedFile[]> {
  const bucket = deps.bucketName ?? item.bucket;
  if (item.status !== 'STORED' || !bucket || !item.resultKey) return [];
  // Results hold personal data: the folder and files are for the current user only.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const targets = [
    { key: item.resultKey, sha256: undefined as string | undefined, name: 'result.json' },
    ...(item.objects ?? []).map((ref) => ({ key: ref.key, sha256: ref.sha256, name: basename(ref.key) })),
  ];
  const written: DownloadedFile[] = [];
  for (const [position, target] of targets.entries()) {
    const object = await deps.s3.send(new GetObjectCommand({ Bucket: bucket, Key: target.key }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    const digest = createHash('sha256').update(bytes).digest('hex');
    const expected = target.sha256 ?? object.Metadata?.['sha256'];
    if (expected && expected !== digest) throw new ChecksumMismatchError(target.key);
    const path = join(dir, target.name);
    await writeFile(path, bytes, { mode: 0o600 });
    const file = { path, bytes: bytes.length, sha256: digest };
    written.push(file);
    onFile?.(file, position + 1, targets.length);
  }
  return written;
}

/** A list view of an item: identifiers, outcome and times, without the stored document. */
export function summarize(item: ResultItem): Partial<ResultItem> {
  const { document: _document, objects, ...rest } = item;
  return { ...rest, ...(objects ? { objects: objects.map((ref) => ({ ...ref })) } : {}) };
}

/** Items of every key `input` finds (all pages), in the index's order. */
async function queryAll(
  deps: ResultsQueryDeps,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<ResultItem[]> {
  const ids: string[] = [];
  for await (const page of paginateQuery({ client: deps.dynamo }, { ...input, TableName: deps.tableName })) {
    for (const key of page.Items ?? []) ids.push(key[RESULTS_TABLE.partitionKey] as string);
  }
  return getItems(deps, ids);
}

/**
 * The items of `ids`, in that order. An id whose item is gone (TTL expiry between the query and the
 * read) is left out, as the index itself would have shown it a moment later.
 */
export async function getItems(deps: ResultsQueryDeps, ids: readonly string[]): Promise<ResultItem[]> {
  const pk = RESULTS_TABLE.partitionKey;
  const items = await batchGetAll(
    deps.dynamo,
    deps.tableName,
    ids.map((id) => ({ [pk]: id })),
    { consistentRead: false },
  );
  const found = new Map(items.map((item) => [item[pk] as string, item as unknown as ResultItem]));
  return ids.flatMap((id) => {
    const item = found.get(id);
    return item ? [item] : [];
  });
}
