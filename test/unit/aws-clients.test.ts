/**
 * The one place the SDK clients are configured (shared/aws-clients.ts): S3's checksums named, and a
 * tracer wrapping the very client the code then uses, so a traced function sends the same commands through
 * the same client as one with tracing off.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  createDynamoDocumentClient,
  createEventBridgeClient,
  createS3Client,
  createSecretsClient,
  createSqsClient,
} from '../../shared/aws-clients';
import { NO_TRACER, type Tracer } from '../../shared/tracing';

/** A tracer that records which clients it was asked to wrap and hands each back as it is. */
function recordingTracer(): { tracer: Tracer; wrapped: unknown[] } {
  const wrapped: unknown[] = [];
  const tracer: Tracer = {
    ...NO_TRACER,
    captureAWSv3Client: <T>(client: T) => {
      wrapped.push(client);
      return client;
    },
  };
  return { tracer, wrapped };
}

describe('shared/aws-clients', () => {
  it('names the checksums S3 checks on every write and validates on reads', async () => {
    // Act
    const s3 = createS3Client({ s3ForcePathStyle: true }, undefined, { region: 'eu-west-1' });

    // Assess
    expect(await s3.config.requestChecksumCalculation()).toBe('WHEN_SUPPORTED');
    expect(await s3.config.responseChecksumValidation()).toBe('WHEN_SUPPORTED');
    expect(s3.config.forcePathStyle).toBe(true);
  });

  it('has the tracer wrap the same client instances the code sends through', () => {
    // Prepare
    const { tracer, wrapped } = recordingTracer();

    // Act
    const s3 = createS3Client({ s3ForcePathStyle: false }, tracer);
    const documents = createDynamoDocumentClient(tracer);
    const sqs = createSqsClient(tracer);
    const secrets = createSecretsClient(tracer);
    const events = createEventBridgeClient(tracer);

    // Assess: the document client sends through the wrapped DynamoDB client, not a copy of its own.
    expect(wrapped).toHaveLength(5);
    expect(wrapped[0]).toBe(s3);
    expect(wrapped[0]).toBeInstanceOf(S3Client);
    expect(wrapped[1]).toBeInstanceOf(DynamoDBClient);
    expect(documents.config).toBe((wrapped[1] as DynamoDBClient).config);
    expect(wrapped.slice(2)).toEqual([sqs, secrets, events]);
  });

  it('takes the local emulators endpoint and key pair as overrides', async () => {
    // Act
    const events = createEventBridgeClient(undefined, {
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:4999',
      credentials: { accessKeyId: 'LOCALKEY', secretAccessKey: 'secret' },
    });

    // Assess
    expect(await events.config.region()).toBe('us-east-1');
    expect((await events.config.credentials()).accessKeyId).toBe('LOCALKEY');
    expect((await events.config.endpoint!()).port).toBe(4999);
  });
});
