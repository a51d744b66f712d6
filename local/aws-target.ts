import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDynamoDocumentClient,
  createEventBridgeClient,
  createS3Client,
  createSqsClient,
} from '../shared/aws-clients';
import { ANALYTICS_ENV, ENV, loadAwsClientConfig } from '../shared/config';
import { CLOSE_DEADLINE_MS, OPEN_DEADLINE_MS, probeRun, waitForDataLock, withinDeadline } from './local-open';
import { readLiveStack, STACK_FILE } from './stack-file';

/** Environment variable of the DLQ URL for the operator commands (the functions never need it). */
export const DLQ_URL_VARIABLE = 'IDV_DLQ_URL';

/** `--local` names a directory that `npm start` never used; nothing was opened or created. */
export class NoLocalDataError extends Error {
  override readonly name = 'NoLocalDataError';
  readonly dataDir: string;

  constructor(dataDir: string) {
    super(
      `no local data at ${dataDir}: run \`npm start\` first (in the repository root), or pass --data-dir`,
    );
    this.dataDir = dataDir;
  }
}

/** Whether `dataDir` holds what `npm start` leaves: a stack file or the DynamoDB emulator's data. */
export function hasLocalData(dataDir: string): boolean {
  return existsSync(join(dataDir, STACK_FILE)) || existsSync(join(dataDir, 'dynamodb'));
}

/** Where the analyst and operator commands read and write. */
export interface AwsTarget {
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
  tableName?: string;
  bucketName?: string;
  queueUrl?: string;
  dlqUrl?: string;
  /** The bus the pipeline publishes on (erasure events). */
  events: EventBridgeClient;
  eventBusName?: string;
  /** The poll's enqueue markers table. */
  markersTableName?: string;
  /** The analytics bucket (AWS; locally the projection is in the data directory). */
  analyticsBucketName?: string;
  /** The service environment, when known (`IDV_ENVIRONMENT`). */
  environment?: string;
  /** `aws`, `local (npm start)` or `local (emulators started for this command)`. */
  description: string;
  /** The local stack (`--local`), not AWS. */
  local: boolean;
  /** A running `npm start` serves the local stack (its queues and their messages exist). */
  running: boolean;
  /** What starting the emulators here repaired after a crash, one line each (local, no run active). */
  repairs?: readonly string[];
  close(): Promise<void>;
}

/** Flags/environment naming the target. */
export interface AwsTargetOptions {
  local: boolean;
  dataDir?: string;
  table?: string;
  bucket?: string;
  queueUrl?: string;
  dlqUrl?: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Opens the results store: with `local`, the running `npm start` (found through `.local/stack.json`)
 * or, when none runs, the emulators started here on the persisted data; else AWS, with names from the
 * flags or the functions' environment variables and credentials from the standard AWS chain.
 * Throws {@link NoLocalDataError} when `local` names a directory without local data (never creates it).
 */
export async function openAwsTarget(options: AwsTargetOptions): Promise<AwsTarget> {
  if (!options.local) {
    // The functions' own client builders and config reader, so the CLI reads the stack as they write it.
    const dynamo = createDynamoDocumentClient();
    const s3 = createS3Client(loadAwsClientConfig(options.env));
    const sqs = createSqsClient();
    const events = createEventBridgeClient();
    return {
      dynamo,
      s3,
      sqs,
      events,
      eventBusName: options.env[ENV.eventBusName],
      markersTableName: options.env[ENV.pollMarkersTableName],
      analyticsBucketName: options.env[ANALYTICS_ENV.analyticsBucketName],
      environment: options.env[ENV.environment],
      tableName: options.table ?? options.env[ENV.resultsTableName],
      bucketName: options.bucket ?? options.env[ENV.dataBucketName],
      queueUrl: options.queueUrl ?? options.env[ENV.resultsQueueUrl],
      dlqUrl: options.dlqUrl ?? options.env[DLQ_URL_VARIABLE],
      description: 'aws',
      local: false,
      running: false,
      close: async () => {
        for (const client of [dynamo, s3, sqs, events]) client.destroy();
      },
    };
  }
  const dataDir = resolve(options.dataDir ?? '.local');
  const running = readLiveStack(dataDir);
  // Starting the emulators on a directory creates it: from a subdirectory, or with a misspelt --data-dir,
  // that would leave a stray empty data directory behind and answer `[]` as if nothing were stored.
  if (!running && !hasLocalData(dataDir)) throw new NoLocalDataError(dataDir);
  let endpoints = running?.endpoints;
  let resources = running?.resources;
  let region = running?.region;
  let credentials = running?.credentials;
  let stop: (() => Promise<void>) | undefined;
  let repairs: readonly string[] = [];
  // A run that is alive but stopped or hung is said so within seconds, not after the SDK's retries.
  if (running?.endpoints?.dynamodb) await probeRun(running.endpoints.dynamodb, running.pid);
  if (!running) {
    // Bounded: the data may be held by a process still stopping, or left by a SIGKILL on a loaded machine.
    const deadline = Date.now() + OPEN_DEADLINE_MS;
    const opening = (async () => {
      await waitForDataLock(dataDir, deadline);
      // Loaded here, not with this module: the emulators are ~0.2 s of modules every other CLI command skips.
      const [{ startLocalAws }, { createPipelineResources }] = await Promise.all([
        import('./local-aws'),
        import('./pipeline-resources'),
      ]);
      const aws = await startLocalAws({ dataDir });
      try {
        return { aws, resources: await createPipelineResources(aws) };
      } catch (error) {
        await aws.close().catch(() => undefined);
        throw error;
      }
    })();
    const opened = await withinDeadline(
      `opening the local data in ${dataDir}`,
      Math.max(0, deadline - Date.now()),
      opening,
      (late) => void late.aws.close().catch(() => undefined),
    );
    const { aws } = opened;
    stop = () => withinDeadline('stopping the local emulators', CLOSE_DEADLINE_MS, aws.close());
    repairs = aws.repairs;
    resources = opened.resources;
    ({ endpoints, region, credentials } = aws);
  }
  const config = (endpoint: string) => ({ region: region!, endpoint, credentials: credentials! });
  const dynamo = createDynamoDocumentClient(undefined, config(endpoints!.dynamodb));
  const s3 = createS3Client({ s3ForcePathStyle: true }, undefined, config(endpoints!.s3));
  const sqs = createSqsClient(undefined, config(endpoints!.sqs));
  const events = createEventBridgeClient(undefined, config(endpoints!.eventBridge));
  return {
    dynamo,
    s3,
    sqs,
    events,
    eventBusName: resources!.eventBusName,
    markersTableName: resources!.pollMarkersTableName,
    tableName: resources!.tableName,
    bucketName: resources!.bucketName,
    queueUrl: resources!.queueUrl,
    dlqUrl: resources!.dlqUrl,
    description: running
      ? `local (npm start, pid ${running.pid})`
      : 'local (emulators started for this command)',
    local: true,
    running: running !== undefined,
    ...(repairs.length > 0 && { repairs }),
    close: async () => {
      for (const client of [dynamo, s3, sqs, events]) client.destroy();
      await stop?.();
    },
  };
}
