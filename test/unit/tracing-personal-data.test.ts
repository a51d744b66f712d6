import { Tracer } from '@aws-lambda-powertools/tracer';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, Context, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '../../shared/config';
import { annotateIds, inSubsegment, queueMessageIds, traceErrorFacts } from '../../shared/tracing';

/** Personal data as it could reach a function: in a webhook body, a message hint, an error message. */
const PERSONAL = ['Jane', 'Doe', '1970-01-01', 'NL1234567', 'jane@example.com'];
const containsPersonal = (value: unknown) => {
  const text = JSON.stringify(value);
  return PERSONAL.some((needle) => text.includes(needle));
};

/** A tracer double that records what would enter a trace. */
function recordingTracer() {
  const annotations: Array<[string, unknown]> = [];
  const metadata: Array<[string, unknown]> = [];
  const subsegment = { addNewSubsegment: () => subsegment, addErrorFlag: vi.fn(), close: vi.fn() };
  const tracer = {
    putAnnotation: (key: string, value: unknown) => annotations.push([key, value]),
    putMetadata: (key: string, value: unknown) => metadata.push([key, value]),
    getSegment: () => subsegment,
    setSegment: vi.fn(),
    annotateColdStart: vi.fn(),
    addServiceNameAnnotation: vi.fn(),
  } as unknown as Tracer;
  return { tracer, annotations, metadata, subsegment };
}

describe('what enters a trace (shared/tracing.ts)', () => {
  it('annotates only well-formed resultId and transactionId, whatever else the input holds', () => {
    // Prepare
    const { tracer, annotations } = recordingTracer();

    // Act
    annotateIds(tracer, { resultId: 'r-1', transactionId: 'tx-1', customerReference: 'Jane Doe' } as never);
    annotateIds(tracer, { resultId: 'Jane Doe 1970-01-01', transactionId: { name: 'Jane' } });

    // Assess
    expect(annotations).toEqual([
      ['resultId', 'r-1'],
      ['transactionId', 'tx-1'],
    ]);
  });

  it('reads only the ids of a queue message body, never its hints, and survives a malformed body', () => {
    const body = JSON.stringify({
      resultId: 'r-2',
      source: 'webhook',
      transactionId: 'tx-2',
      customerReference: 'Jane Doe',
      userId: 'jane@example.com',
    });

    expect(queueMessageIds(body)).toEqual({ resultId: 'r-2', transactionId: 'tx-2' });
    expect(queueMessageIds('{"resultId": ')).toEqual({});
  });

  it('on an error keeps the name, status and code as metadata, never the message', async () => {
    // Prepare
    const { tracer, annotations, metadata, subsegment } = recordingTracer();
    const error = Object.assign(new Error('no document for Jane Doe, born 1970-01-01 (NL1234567)'), {
      name: 'ServiceError',
      status: 403,
      code: 7,
    });

    // Act
    const run = inSubsegment(
      tracer,
      '### record',
      async () => {
        throw error;
      },
      { ids: { resultId: 'r-3', transactionId: 'Jane Doe' } },
    );

    // Assess
    await expect(run).rejects.toBe(error);
    expect(annotations).toEqual([['resultId', 'r-3']]);
    expect(metadata).toEqual([['error', { name: 'ServiceError', status: 403, code: 7 }]]);
    expect(subsegment.addErrorFlag).toHaveBeenCalled();
    expect(subsegment.close).toHaveBeenCalled();
    expect(traceErrorFacts('Jane Doe')).toEqual({ name: 'NonError' });
  });
});

describe('the real handlers put no personal data into a trace', () => {
  const sqsMock = mockClient(SQSClient);
  const secretsMock = mockClient(SecretsManagerClient);
  const dynamoMock = mockClient(DynamoDBClient);
  const token = 'a'.repeat(40);
  const context = {
    awsRequestId: 'req-1',
    functionName: 'fn',
    getRemainingTimeInMillis: () => 10_000,
  } as Context;
  let annotate: ReturnType<typeof vi.spyOn>;
  let metadata: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    vi.resetModules();
    sqsMock.reset();
    secretsMock.reset();
    dynamoMock.reset();
    for (const [name, value] of Object.entries({
      [ENV.environment]: 'staging',
      [ENV.serviceBaseUrl]: 'http://127.0.0.1:9',
      [ENV.credentialsSecretId]: 'creds',
      [ENV.tokenCacheSecretId]: 'cache',
      [ENV.webhookSecretId]: 'hook',
      [ENV.resultsQueueUrl]: 'http://queue.local/q',
      [ENV.resultsTableName]: 'table',
      [ENV.dataBucketName]: 'bucket',
      [ENV.eventBusName]: 'bus',
      [ENV.retentionDays]: '30',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      // "In Lambda", so the handlers build Powertools' Tracer (not the one that does nothing), which the
      // spy below keeps from sending anything: what is recorded is what it was asked to put in a trace.
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    }))
      vi.stubEnv(name, value);
    vi.spyOn(Tracer.prototype, 'isTracingEnabled').mockReturnValue(false);
    annotate = vi.spyOn(Tracer.prototype, 'putAnnotation');
    metadata = vi.spyOn(Tracer.prototype, 'putMetadata');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('webhook: a body full of personal data yields only the resultId annotation', async () => {
    // Prepare
    secretsMock.on(GetSecretValueCommand).resolves({ SecretString: token });
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const { handler } = await import('../../functions/webhook/handler');
    const body = {
      resultId: 'r-10',
      name: 'Jane Doe',
      dateOfBirth: '1970-01-01',
      documentNumber: 'NL1234567',
      email: 'jane@example.com',
    };

    // Act
    const response = await handler(
      {
        path: `/webhooks/${token}/result`,
        body: JSON.stringify(body),
        isBase64Encoded: false,
      } as APIGatewayProxyEvent,
      context,
    );

    // Assess
    expect(response.statusCode).toBe(202);
    expect(annotate.mock.calls).toEqual([['resultId', 'r-10']]);
    expect(containsPersonal(metadata.mock.calls)).toBe(false);
  });

  it('fetch-result: a failing record with personal hints yields only its ids and the error name', async () => {
    // Prepare: the credentials cannot be read, with a message that quotes personal data.
    dynamoMock.onAnyCommand().resolves({});
    secretsMock.on(GetSecretValueCommand).rejects(new Error('denied while serving Jane Doe 1970-01-01'));
    const { handler } = await import('../../functions/fetch-result/handler');
    const message = {
      resultId: 'r-11',
      source: 'poll',
      transactionId: 'tx-11',
      customerReference: 'Jane Doe',
      userId: 'jane@example.com',
    };
    const event = {
      Records: [{ messageId: 'm-11', body: JSON.stringify(message), attributes: {}, eventSource: 'aws:sqs' }],
    } as unknown as SQSEvent;

    // Act
    const response = await handler(event, context);

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-11' }]);
    expect(annotate.mock.calls).toEqual([
      ['resultId', 'r-11'],
      ['transactionId', 'tx-11'],
    ]);
    expect(metadata.mock.calls).toEqual([['error', { name: expect.any(String) }]]);
    expect(containsPersonal(annotate.mock.calls)).toBe(false);
    expect(containsPersonal(metadata.mock.calls)).toBe(false);
  });
});
