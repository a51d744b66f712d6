/**
 * The store-level integration tests' set-up: the emulators, the pipeline's resources and a real
 * `ResultStore` (and the result's publication records) on them.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Publications } from '../../shared/store/publication';
import { ResultStore } from '../../shared/store/result-store';
import type { IngestOptions } from '../../shared/stream/result-ingest';
import {
  clientConfig,
  createPipelineResources,
  type LocalAws,
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

/** Starts the emulators with the pipeline's resources named after `prefix`, and a store on them. */
export async function startLocalStore(prefix: string, ingest?: IngestOptions): Promise<LocalStore> {
  const aws = await startLocalAws();
  const resources = await createPipelineResources(aws, { prefix });
  const s3 = new S3Client(clientConfig(aws, 's3'));
  const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
  const table = resources.tableName;
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
