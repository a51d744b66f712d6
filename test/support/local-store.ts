/**
 * The integration tests' one set-up on the local AWS emulators: the emulators, the pipeline's resources
 * and a real `ResultStore` (and the result's publication records) on them, with the clients a test reads
 * the emulators through. Every integration test that needs the emulators starts them here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { buildStoredItem, type ResultHints } from '../../shared/store/item';
import { Publications } from '../../shared/store/publication';
import { ResultStore } from '../../shared/store/result-store';
import type { IngestOptions } from '../../shared/stream/result-ingest';
import {
  clientConfig,
  createPipelineResources,
  type LocalAws,
  type PipelineResourceOptions,
  type PipelineResources,
  startLocalAws,
} from './local-aws';

/** What {@link startLocalStore} started; `close` stops it all. */
export interface LocalStore {
  readonly aws: LocalAws;
  readonly resources: PipelineResources;
  readonly s3: S3Client;
  readonly dynamo: DynamoDBDocumentClient;
  readonly store: ResultStore;
  readonly publications: Publications;
  close(): Promise<void>;
}

/** How {@link startLocalStore} sets up the emulators and the store. */
export interface LocalStoreOptions {
  /** The store's ingest options (small-blob limit, upload concurrency). */
  ingest?: IngestOptions;
  /** Persistent state directory of the emulators (as `npm start --data-dir`); absent: in memory. */
  dataDir?: string;
  /** The pipeline resources' settings other than their prefix. */
  resources?: Omit<PipelineResourceOptions, 'prefix'>;
}

/** Starts the emulators with the pipeline's resources named after `prefix`, and a store on them. */
export async function startLocalStore(prefix: string, options: LocalStoreOptions = {}): Promise<LocalStore> {
  const aws = await startLocalAws(options.dataDir === undefined ? {} : { dataDir: options.dataDir });
  const resources = await createPipelineResources(aws, { ...options.resources, prefix });
  const s3 = new S3Client(clientConfig(aws, 's3'));
  const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
  const table = resources.tableName;
  const { ingest } = options;
  return {
    aws,
    resources,
    s3,
    dynamo,
    store: new ResultStore({ s3, dynamo, bucket: resources.bucketName, table, ...(ingest && { ingest }) }),
    publications: new Publications(dynamo, table),
    async close() {
      s3.destroy();
      dynamo.destroy();
      await aws.close();
    },
  };
}

/**
 * Stores `result` (as the service would stream it) under `hints.resultId` in `local`'s store, then puts
 * its STORED item, kept 30 days: what fetch-result leaves for a result it fetched.
 */
export async function putStoredResult(local: LocalStore, hints: ResultHints, result: unknown): Promise<void> {
  const body = Buffer.from(JSON.stringify(result));
  const { document, stored } = await local.store.storeResult(
    hints.resultId,
    (async function* () {
      yield body;
    })(),
  );
  await local.store.putStoredItem(
    buildStoredItem({
      hints,
      document,
      stored,
      bucket: local.resources.bucketName,
      storedAt: new Date().toISOString(),
      retentionDays: 30,
    }),
  );
}
