import { randomInt } from 'node:crypto';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException as TableNotFoundException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, ResourceAlreadyExistsException } from '@aws-sdk/client-eventbridge';
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  createDynamoClient,
  createEventBridgeClient,
  createS3Client,
  createSecretsClient,
  createSqsClient,
} from '../shared/aws-clients';
import { type CustomerReferenceMode, defaultCustomerReferenceMode, ENV } from '../shared/config';
import { markersTableDefinition, resultsTableDefinition } from '../shared/store/table-schema';
import { clientConfig } from './client-config';
import type { LocalAws } from './local-aws';

/** Options of {@link createPipelineResources}. */
export interface PipelineResourceOptions {
  /** Prefix of every resource name. @default 'idv-local' */
  prefix?: string;
  /** Receives before a message moves to the DLQ. @default 3 */
  maxReceiveCount?: number;
  /** Queue visibility timeout in seconds (Lambda-like redelivery delay). @default 30 */
  visibilityTimeoutSeconds?: number;
  /**
   * Service client credentials written to the credentials secret. When absent the secret is created
   * empty (`{}`), like the stack does, and an existing value is kept.
   */
  credentials?: { clientId: string; clientSecret: string };
}

/** Names and URLs of the local pipeline's resources. */
export interface PipelineResources {
  tableName: string;
  bucketName: string;
  queueUrl: string;
  dlqUrl: string;
  credentialsSecretId: string;
  tokenCacheSecretId: string;
  webhookSecretId: string;
  eventBusName: string;
  /** The poll's enqueue markers (one message per pending result per window). */
  pollMarkersTableName: string;
  /** The marker window: the queue's visibility timeout. */
  pollMarkerWindowSeconds: number;
}

/** Settings of the functions that are not resource names. */
export interface PipelineEnvSettings {
  serviceBaseUrl: string;
  environment: string;
  retentionDays: number;
  scopes: readonly string[] | string;
  /**
   * Whether events carry `customerReference`, as `eventCustomerReference` in cdk.json.
   * @default the service environment's default (`defaultCustomerReferenceMode`)
   */
  eventCustomerReference?: CustomerReferenceMode;
  /**
   * Requests per second the fetch-result handlers of this process keep to together (one process, one pace).
   * @default none: no steady pace, only the service's Retry-After holds requests
   */
  serviceRequestsPerSecond?: number;
}

const WEBHOOK_SECRET_LENGTH = 40;
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The prefix of the local run's resource names. */
export const LOCAL_PREFIX = 'idv-local';
/** The local run's DLQ, as {@link createPipelineResources} names it by default. */
export const LOCAL_DLQ_NAME = `${LOCAL_PREFIX}-results-dlq`;

/**
 * Creates (or reuses, when they exist) the pipeline's table, bucket, queue with DLQ, three secrets and
 * event bus in the local emulators, mirroring what the CDK stack creates. Safe to call on every start.
 */
export async function createPipelineResources(
  aws: LocalAws,
  options: PipelineResourceOptions = {},
): Promise<PipelineResources> {
  const prefix = options.prefix ?? LOCAL_PREFIX;
  const names = {
    tableName: `${prefix}-results`,
    bucketName: `${prefix}-data`.toLowerCase(),
    queueName: `${prefix}-results`,
    dlqName: `${prefix}-results-dlq`,
    credentialsSecretId: `${prefix}/service-credentials`,
    tokenCacheSecretId: `${prefix}/token-cache`,
    webhookSecretId: `${prefix}/webhook-secret`,
    eventBusName: `${prefix}-events`,
    pollMarkersTableName: `${prefix}-poll-markers`,
  };

  const dynamodb = createDynamoClient(undefined, clientConfig(aws, 'dynamodb'));
  const s3 = createS3Client({ s3ForcePathStyle: true }, undefined, clientConfig(aws, 's3'));
  const sqs = createSqsClient(undefined, clientConfig(aws, 'sqs'));
  const secrets = createSecretsClient(undefined, clientConfig(aws, 'secretsManager'));
  const events = createEventBridgeClient(undefined, clientConfig(aws, 'eventBridge'));
  try {
    // No TimeToLiveSpecification on either table: dynalite has no TTL API; expiry is an AWS-only concern
    // (the poll compares the markers' times itself). The results indexes project what they do on AWS, so
    // a local index query answers exactly as the deployed one.
    await ensureTable(dynamodb, resultsTableDefinition(names.tableName));
    await ensureTable(dynamodb, markersTableDefinition(names.pollMarkersTableName));
    await ensureBucket(s3, names.bucketName);
    const { queueUrl, dlqUrl } = await ensureQueues(sqs, names.queueName, names.dlqName, options);

    await ensureSecret(secrets, names.credentialsSecretId, '{}');
    if (options.credentials) {
      await putIfChanged(secrets, names.credentialsSecretId, JSON.stringify(options.credentials));
    }
    await ensureSecret(secrets, names.tokenCacheSecretId, '{}');
    await ensureSecret(secrets, names.webhookSecretId, randomAlphanumeric(WEBHOOK_SECRET_LENGTH));

    try {
      await events.send(new CreateEventBusCommand({ Name: names.eventBusName }));
    } catch (error) {
      if (!(error instanceof ResourceAlreadyExistsException)) throw error;
    }

    return {
      tableName: names.tableName,
      bucketName: names.bucketName,
      queueUrl,
      dlqUrl,
      credentialsSecretId: names.credentialsSecretId,
      tokenCacheSecretId: names.tokenCacheSecretId,
      webhookSecretId: names.webhookSecretId,
      eventBusName: names.eventBusName,
      pollMarkersTableName: names.pollMarkersTableName,
      pollMarkerWindowSeconds: options.visibilityTimeoutSeconds ?? 30,
    };
  } finally {
    for (const client of [dynamodb, s3, sqs, secrets, events]) client.destroy();
  }
}

/**
 * The environment variables of the three functions (names from `ENV`) for these resources. Combine
 * with {@link LocalAws.env} to run the real handlers against the emulators.
 */
export function pipelineEnv(
  resources: PipelineResources,
  settings: PipelineEnvSettings,
): Record<string, string> {
  return {
    [ENV.environment]: settings.environment,
    [ENV.serviceBaseUrl]: settings.serviceBaseUrl,
    [ENV.scopes]: typeof settings.scopes === 'string' ? settings.scopes : settings.scopes.join(','),
    [ENV.credentialsSecretId]: resources.credentialsSecretId,
    [ENV.tokenCacheSecretId]: resources.tokenCacheSecretId,
    [ENV.webhookSecretId]: resources.webhookSecretId,
    [ENV.resultsQueueUrl]: resources.queueUrl,
    [ENV.resultsTableName]: resources.tableName,
    [ENV.dataBucketName]: resources.bucketName,
    [ENV.eventBusName]: resources.eventBusName,
    [ENV.retentionDays]: String(settings.retentionDays),
    [ENV.eventCustomerReference]:
      settings.eventCustomerReference ??
      defaultCustomerReferenceMode(settings.environment === 'production' ? 'production' : 'staging'),
    [ENV.pollMarkersTableName]: resources.pollMarkersTableName,
    [ENV.pollMarkerWindowSeconds]: String(resources.pollMarkerWindowSeconds),
    [ENV.s3ForcePathStyle]: 'true',
    ...(settings.serviceRequestsPerSecond !== undefined && {
      [ENV.serviceRequestsPerSecond]: String(settings.serviceRequestsPerSecond),
    }),
  };
}

/** Creates the table `definition` describes unless it exists, and waits until it is ACTIVE. */
async function ensureTable(
  client: DynamoDBClient,
  definition: ConstructorParameters<typeof CreateTableCommand>[0],
): Promise<void> {
  const tableName = definition.TableName!;
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if (!(error instanceof TableNotFoundException)) throw error;
  }
  await client.send(new CreateTableCommand(definition));
  // The SDK's waiter (DescribeTable until ACTIVE), polling as often as an emulator answers.
  await waitUntilTableExists(
    { client, minDelay: 0.05, maxDelay: 0.5, maxWaitTime: 10 },
    { TableName: tableName },
  );
}

/**
 * Creates the bucket when HeadBucket says it does not exist (404) — only then: any other answer (a 500 of
 * an emulator whose files a crash damaged) is an error naming the bucket, not a reason to create it
 * again (which would fail with BucketAlreadyExists and hide the cause).
 */
async function ensureBucket(client: S3Client, bucketName: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucketName }));
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status !== 404 && (error as { name?: string }).name !== 'NotFound') {
      throw new Error(
        `the local S3 emulator could not answer for bucket ${bucketName} (HeadBucket: ${status ?? (error as Error).name}): its files in the data directory may be damaged`,
        { cause: error },
      );
    }
    await client.send(new CreateBucketCommand({ Bucket: bucketName }));
  }
}

async function ensureQueues(
  client: SQSClient,
  queueName: string,
  dlqName: string,
  options: PipelineResourceOptions,
): Promise<{ queueUrl: string; dlqUrl: string }> {
  // CreateQueue is idempotent for identical attributes, so it doubles as "get the existing queue".
  const dlq = await client.send(new CreateQueueCommand({ QueueName: dlqName }));
  const dlqUrl = dlq.QueueUrl!;
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: queueName,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes?.QueueArn,
          maxReceiveCount: String(options.maxReceiveCount ?? 3),
        }),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl!, dlqUrl };
}

async function ensureSecret(client: SecretsManagerClient, name: string, initialValue: string): Promise<void> {
  try {
    await client.send(new CreateSecretCommand({ Name: name, SecretString: initialValue }));
  } catch (error) {
    if (!(error instanceof ResourceExistsException)) throw error;
  }
}

async function putIfChanged(client: SecretsManagerClient, secretId: string, value: string): Promise<void> {
  const current = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (current.SecretString !== value) {
    await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
  }
}

function randomAlphanumeric(length: number): string {
  return Array.from({ length }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join('');
}
