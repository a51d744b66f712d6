/**
 * AWS SDK clients, built once per container by the handler modules. Endpoints are not set here: the SDK
 * reads `AWS_ENDPOINT_URL_<SERVICE>` itself, which is how the local run and the integration tests point
 * the same code at the emulators. Given a tracer (the functions pass theirs), every call of the client is an
 * X-Ray subsegment; the CLI passes none.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsClientConfig } from './config';
// Type only: the CLI builds these clients too and must not load the X-Ray SDK.
import type { Tracer } from './tracing';

const maybeTraced = <T>(client: T, tracer?: Tracer): T =>
  tracer ? tracer.captureAWSv3Client(client) : client;

/** S3 client; path-style addressing when configured (the local emulator needs it). */
export function createS3Client(config: AwsClientConfig, tracer?: Tracer): S3Client {
  return maybeTraced(new S3Client({ forcePathStyle: config.s3ForcePathStyle }), tracer);
}

/** DynamoDB document client that drops `undefined` attributes (optional identifiers). */
export function createDynamoDocumentClient(tracer?: Tracer): DynamoDBDocumentClient {
  // The base client is traced: the document client sends through it.
  return DynamoDBDocumentClient.from(maybeTraced(new DynamoDBClient({}), tracer), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** SQS client. */
export function createSqsClient(tracer?: Tracer): SQSClient {
  return maybeTraced(new SQSClient({}), tracer);
}

/** Secrets Manager client. */
export function createSecretsClient(tracer?: Tracer): SecretsManagerClient {
  return maybeTraced(new SecretsManagerClient({}), tracer);
}

/** EventBridge client. */
export function createEventBridgeClient(tracer?: Tracer): EventBridgeClient {
  return maybeTraced(new EventBridgeClient({}), tracer);
}
