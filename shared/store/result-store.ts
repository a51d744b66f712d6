/**
 * The result store's I/O: decoded images and files as S3 objects, the stripped result JSON in S3 and the
 * result item in DynamoDB. The item model and its size rules are in `item.ts`, the key layout in
 * `keys.ts` (docs/pipeline.md, "Storage layout"); callers import those names from there.
 *
 * Idempotency: object keys are deterministic (a re-run overwrites the same bytes) and the item is written
 * with a conditional put, so a result is stored once however often it is announced or redelivered.
 */
import { createHash } from 'node:crypto';
import { DeleteObjectsCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { PipelineError } from '../errors';
import type { ObjectRef } from '../stream/blob-sink';
import { type IngestOptions, ingestResult } from '../stream/result-ingest';
import { batchGetAll } from './batch-get';
import { type ConditionFailure, isConditionalCheckFailed, itemOnFailedCondition } from './conditional';
import { erasureKey } from './erasure-record';
import type { ResultItem, StoredObjects } from './item';
import { resultBlobNames, resultJsonKey } from './keys';
import { type PublicationRecord, Publications, publicationKey, publishedAtOf } from './publication';
import { S3BlobTarget } from './s3-blobs';
import { RESULTS_TABLE } from './table-schema';
import { versionOf } from './versions';

/** What `storeResult` stored: the stripped document and where everything went. */
export interface StoredResult {
  readonly document: Record<string, unknown>;
  readonly stored: StoredObjects;
}

/** What fetch-result reads of a result before it asks the service (`ResultStore.readState`). */
export interface ResultState {
  /** The item, with `eventPublishedAt` when its status's event was published; undefined if none. */
  readonly item: ResultItem | undefined;
  /** Whether the result was erased on request (its erasure record exists). */
  readonly erased: boolean;
}

/** What a conditional put of an item did: wrote it, or found the item already there (if any is left). */
export type ItemPut =
  | { readonly written: true }
  | { readonly written: false; readonly current: ResultItem | undefined };

/** Options of the `ResultStore`. */
export interface ResultStoreOptions {
  readonly s3: S3Client;
  readonly dynamo: DynamoDBDocumentClient;
  readonly bucket: string;
  readonly table: string;
  /** Tunables of the streaming path (small-blob limit, upload concurrency). */
  readonly ingest?: IngestOptions;
}

/** The S3 + DynamoDB result store. */
export class ResultStore {
  readonly bucket: string;
  readonly table: string;
  readonly #s3: S3Client;
  readonly #dynamo: DynamoDBDocumentClient;
  readonly #ingest: IngestOptions;
  readonly #publications: Publications;

  constructor(options: ResultStoreOptions) {
    this.#s3 = options.s3;
    this.#publications = new Publications(options.dynamo, options.table);
    this.#ingest = options.ingest ?? {};
    this.#dynamo = options.dynamo;
    this.bucket = options.bucket;
    this.table = options.table;
  }

  /**
   * The item of a result (strongly consistent read), or undefined, with `eventPublishedAt` from its
   * publication record when the event of the item's status was published. Both reads at once.
   */
  async getItem(resultId: string): Promise<ResultItem | undefined> {
    const [item, publication] = await Promise.all([
      this.#readItem(resultId),
      this.#publications.get(resultId),
    ]);
    return withPublishedAt(item, publication);
  }

  /**
   * The item (as {@link getItem} gives it) and, unless `erasure` is false, whether the result was erased
   * on request (its erasure record, `erasure-record.ts`, exists): the item, its publication record and its
   * erasure record in one strongly consistent BatchGetItem, one request where three reads were.
   */
  async readState(resultId: string, options: { erasure?: boolean } = {}): Promise<ResultState> {
    const keys = [resultId, publicationKey(resultId)];
    if (options.erasure !== false) keys.push(erasureKey(resultId));
    const found = await this.#batchGet(keys);
    const item = found.get(resultId) as ResultItem | undefined;
    const publication = found.get(publicationKey(resultId)) as PublicationRecord | undefined;
    return { item: withPublishedAt(item, publication), erased: found.has(erasureKey(resultId)) };
  }

  /**
   * Whether the result's erasure record exists (strongly consistent read): fetch-result's look after its
   * last object, before the item is written (docs/erasure.md, "How it runs").
   */
  async isErased(resultId: string): Promise<boolean> {
    const response = await this.#dynamo.send(
      new GetCommand({
        TableName: this.table,
        Key: { [RESULTS_TABLE.partitionKey]: erasureKey(resultId) },
        ConsistentRead: true,
        ProjectionExpression: '#pk',
        ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey },
      }),
    );
    return response.Item !== undefined;
  }

  /**
   * Deletes the objects `stored` names (result.json and every blob): a fetch that lost the race with an
   * erasure after its claim expired (the erasure no longer waited for it) removes what it wrote itself.
   * By key: on the local emulator a key has one version; on AWS a claim cannot outlive its invocation, so
   * the erasure, which purges every version after its fence, always waited for the writer.
   */
  async discardStored(stored: StoredObjects): Promise<void> {
    const keys = [stored.resultKey, ...stored.objects.map((object) => object.key)];
    for (let start = 0; start < keys.length; start += 1000) {
      const answer = await this.#s3.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: keys.slice(start, start + 1000).map((Key) => ({ Key })), Quiet: true },
        }),
      );
      if (answer.Errors?.length) {
        throw new PipelineError(`S3 refused to delete ${answer.Errors.length} object(s) of an erased result`);
      }
    }
  }

  /** The items of `keys` by their table key (strongly consistent; unprocessed keys as `batch-get.ts` says). */
  async #batchGet(keys: string[]): Promise<Map<string, Record<string, unknown>>> {
    const partitionKey = RESULTS_TABLE.partitionKey;
    const items = await batchGetAll(
      this.#dynamo,
      this.table,
      keys.map((key) => ({ [partitionKey]: key })),
    );
    return new Map(items.map((item) => [String(item[partitionKey]), item]));
  }

  /** The item alone (strongly consistent read). */
  async #readItem(resultId: string): Promise<ResultItem | undefined> {
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
   * Stores a result body as it arrives (the pipeline's path): every blob to S3 while the body is read,
   * and the stripped result as `result.json` once every blob is named, alongside the last blobs' writes.
   * Resolves once all of them are stored. Throws `ResultContentError` for a body or value that cannot be
   * stored; every upload in progress is then aborted and nothing is reported stored (a `result.json`
   * already written is overwritten by the next delivery; no item points to it).
   */
  async storeResult(resultId: string, body: AsyncIterable<Uint8Array>, version = 1): Promise<StoredResult> {
    let stored: StoredObjects | undefined;
    const ingested = await ingestResult(
      body,
      new S3BlobTarget(this.#s3, this.bucket),
      resultBlobNames(resultId, version),
      this.#ingest,
      async (document, objects) => {
        stored = await this.#putResultJson(resultId, document, objects, version);
      },
    );
    return { document: ingested.document, stored: stored! };
  }

  async #putResultJson(
    resultId: string,
    document: Record<string, unknown>,
    objects: ObjectRef[],
    version: number,
  ): Promise<StoredObjects> {
    const resultKey = resultJsonKey(resultId, version);
    const body = Buffer.from(JSON.stringify(document), 'utf8');
    await this.#s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: resultKey,
        Body: body,
        ContentType: 'application/json',
        Metadata: { sha256: sha256(body) },
        // No ServerSideEncryption header: with `aws:kms` but no key id S3 would use the AWS-managed
        // aws/s3 key; without it the bucket's default encryption (our customer-managed key) applies.
      }),
    );
    return { resultKey, objects, documentBytes: body.length };
  }

  /** Conditional put of a STORED item: written, or the STORED item already there. */
  async putStoredItem(item: ResultItem): Promise<ItemPut> {
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          // An UNAVAILABLE item may be replaced: the service answered after all.
          ConditionExpression: 'attribute_not_exists(#pk) OR #status = :unavailable',
          ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey, '#status': 'status' },
          ExpressionAttributeValues: { ':unavailable': 'UNAVAILABLE' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { written: true };
    } catch (error) {
      if (isConditionalCheckFailed(error)) return this.#notWritten(error, item.resultId);
      throw error;
    }
  }

  /**
   * Conditional put of a later version of a STORED item (docs/changed-verdicts.md): written
   * only over the version before it, so two deliveries of one version write it once and an older version
   * never replaces a newer one; else the item already there.
   */
  async putVersionItem(item: ResultItem): Promise<ItemPut> {
    const previous = versionOf(item) - 1;
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: `#status = :stored AND (${previous === 1 ? 'attribute_not_exists(#version) OR ' : ''}#version = :previous)`,
          ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
          ExpressionAttributeValues: { ':stored': 'STORED', ':previous': previous },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { written: true };
    } catch (error) {
      if (isConditionalCheckFailed(error)) return this.#notWritten(error, item.resultId);
      throw error;
    }
  }

  /**
   * The latest STORED item of `transactionId` other than `resultId` (by `completed`, then version), or
   * undefined: what a new resultId of a stored transaction follows as its next version. One query of the
   * `byTransactionId` index (keys only; a transaction has a handful of results) and one batch read.
   */
  async latestOfTransaction(transactionId: string, resultId: string): Promise<ResultItem | undefined> {
    const index = RESULTS_TABLE.indexes.byTransactionId;
    const answer = await this.#dynamo.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: index.indexName,
        KeyConditionExpression: '#tx = :tx',
        ExpressionAttributeNames: { '#tx': index.partitionKey },
        ExpressionAttributeValues: { ':tx': transactionId },
        ScanIndexForward: false,
        Limit: 50,
      }),
    );
    const ids = [
      ...new Set(
        (answer.Items ?? [])
          .map((key) => String(key[RESULTS_TABLE.partitionKey]))
          .filter((id) => id !== resultId),
      ),
    ];
    if (ids.length === 0) return undefined;
    const found = await this.#batchGet(ids);
    const stored = [...found.values()]
      .map((item) => item as unknown as ResultItem)
      .filter((item) => item.status === 'STORED' && item.transactionId === transactionId);
    stored.sort((a, b) => a.completed.localeCompare(b.completed) || versionOf(a) - versionOf(b));
    return stored.at(-1);
  }

  /** Conditional put of an UNAVAILABLE item: written, or the item already there. */
  async putUnavailableItem(item: ResultItem): Promise<ItemPut> {
    try {
      await this.#dynamo.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': RESULTS_TABLE.partitionKey },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { written: true };
    } catch (error) {
      if (isConditionalCheckFailed(error)) return this.#notWritten(error, item.resultId);
      throw error;
    }
  }

  /**
   * The item that made a put's condition fail (the one DynamoDB returned with the failure, else read
   * again), with `eventPublishedAt` from its publication record, as `getItem` gives it.
   */
  async #notWritten(failure: ConditionFailure, resultId: string): Promise<ItemPut> {
    const [item, publication] = await Promise.all([
      itemOnFailedCondition(failure, () => this.#readItem(resultId)),
      this.#publications.get(resultId),
    ]);
    return { written: false, current: withPublishedAt(item, publication) };
  }
}

/** The item with `eventPublishedAt` from its publication record, when that announces the item's status. */
function withPublishedAt(
  item: ResultItem | undefined,
  publication: Parameters<typeof publishedAtOf>[1],
): ResultItem | undefined {
  if (!item) return undefined;
  const eventPublishedAt = publishedAtOf(item, publication);
  return eventPublishedAt ? { ...item, eventPublishedAt } : item;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
