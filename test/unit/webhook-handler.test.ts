/**
 * The webhook handler module answers 500 (so the service retries the delivery) when it cannot read the
 * secret or cannot enqueue, and never leaks the cause to the caller.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '../../shared/config';

const SECRET = 'W'.repeat(40);
const secrets = mockClient(SecretsManagerClient);
const sqs = mockClient(SQSClient);
let handler: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
const lines: string[] = [];

function event(): APIGatewayProxyEvent {
  return {
    resource: '/webhooks/{token}/result',
    path: `/webhooks/${SECRET}/result`,
    pathParameters: { token: SECRET },
    body: '{"resultId":"r-500"}',
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEvent;
}

describe('webhook handler failures', () => {
  beforeAll(async () => {
    Object.assign(process.env, {
      AWS_REGION: 'eu-west-1',
      [ENV.environment]: 'staging',
      [ENV.webhookSecretId]: 'hook',
      [ENV.resultsQueueUrl]: 'https://sqs.invalid/q',
    });
    const keep = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(keep as never);
    vi.spyOn(process.stderr, 'write').mockImplementation(keep as never);
    ({ handler } = await import('../../functions/webhook/handler'));
  });
  afterAll(() => vi.restoreAllMocks());
  beforeEach(() => {
    secrets.reset();
    sqs.reset();
  });

  it('answers 500 when the secret cannot be read, and enqueues nothing', async () => {
    // Prepare
    secrets.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException: not allowed'));

    // Act
    const response = await handler(event());

    // Assess
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ message: 'Internal Server Error' });
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
    expect(lines.join('')).toContain('webhook failed');
  });

  it('answers 500 when the queue send fails, so the sender retries', async () => {
    // Prepare
    secrets.on(GetSecretValueCommand).resolves({ SecretString: SECRET });
    sqs.on(SendMessageCommand).rejects(new Error('queue unavailable'));

    // Act
    const response = await handler(event());

    // Assess
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({ message: 'Internal Server Error' });
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
    expect(lines.join('')).not.toContain(SECRET);
  });
});
