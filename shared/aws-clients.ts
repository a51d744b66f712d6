/**
 * AWS SDK clients, built once per container by the handler modules. Endpoints are not set here: the SDK
 * reads `AWS_ENDPOINT_URL_<SERVICE>` itself, which is how the local run and the integration tests point
 * the same code at the emulators.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsClientConfig } from './config';

/** S3 client; path-style addressing when configured (the local emulator needs it). */
export function createS3Client(config: AwsClientConfig): S3Client {
  return new S3Client({ forcePathStyle: config.s3ForcePathStyle });
}

/** DynamoDB document client that drops `undefined` attributes (optional identifiers). */
export function createDynamoDocumentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** SQS client. */
export function createSqsClient(): SQSClient {
  return new SQSClient({});
}

/** Secrets Manager client. */
export function createSecretsClient(): SecretsManagerClient {
  return new SecretsManagerClient({});
}

/** EventBridge client. */
export function createEventBridgeClient(): EventBridgeClient {
  return new EventBridgeClient({});
}
