/**
 * The integration tests' one set-up on the local AWS emulators: the emulators, the pipeline's resources
 * and a real `ResultStore` (and the result's publication records) on them, with the clients a test reads
 * the emulators through. Every integration test that needs the emulators starts them here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { DynamoEnqueueMarkers } from '../../shared/pipeline/enqueue-markers';
import type { ResultSource } from '../../shared/pipeline/fetch-result';
import { type PollSource, type PollSummary, pollAndEnqueue } from '../../shared/pipeline/poll';
import type { ResultsBatchDeps } from '../../shared/pipeline/results-batch';
import { buildStoredItem, type ResultHints } from '../../shared/store/item';
import { PollRecords } from '../../shared/store/poll-records';
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
import { memoryLogger } from './pipeline-fakes';

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

/**
 * The results batch's dependencies on `local`, fetching from `source`: its store and polling records
 * (kept 30 days), a publisher on its bus through `events`, staging, customer references in events,
 * 30 days' retention, a memory logger.
 */
export function localBatchDeps(
  local: LocalStore,
  events: EventBridgeClient,
  source: ResultSource,
): ResultsBatchDeps {
  return {
    source,
    pollRecords: new PollRecords(local.dynamo, local.resources.tableName, 30),
    store: local.store,
    publications: local.publications,
    publisher: new EventBridgePublisher(events, local.resources.eventBusName),
    environment: 'staging',
    eventCustomerReference: 'include',
    retentionDays: 30,
    logger: memoryLogger().logger,
  };
}

/**
 * One poll of `source` into `local`'s queue through `sqs`, as the schedule runs it: enqueue markers in
 * its markers table with a `windowSeconds` window.
 */
export function pollIntoLocalQueue(
  local: LocalStore,
  sqs: SQSClient,
  source: PollSource,
  windowSeconds: number,
): Promise<PollSummary> {
  return pollAndEnqueue({
    source,
    sqs,
    queueUrl: local.resources.queueUrl,
    logger: memoryLogger().logger,
    markers: new DynamoEnqueueMarkers({
      client: local.dynamo,
      tableName: local.resources.pollMarkersTableName,
      windowSeconds,
    }),
  });
}
