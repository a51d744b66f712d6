import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  ChangeMessageVisibilityCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../shared/config';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { RESULTS_TABLE } from '../../shared/store/table-schema';
import {
  clientConfig,
  createPipelineResources,
  type LocalAws,
  type LocalEvent,
  type PipelineResources,
  pipelineEnv,
  startLocalAws,
} from '../support/local-aws';

const ENDPOINT_VARIABLES = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_S3',
  'AWS_ENDPOINT_URL_SQS',
  'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  'AWS_ENDPOINT_URL_EVENTBRIDGE',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
];

describe('local AWS emulators', () => {
  let aws: LocalAws;
  let resources: PipelineResources;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-local-aws-'));
    aws = await startLocalAws({ dataDir });
    resources = await createPipelineResources(aws, {
      prefix: 'test',
      maxReceiveCount: 2,
      visibilityTimeoutSeconds: 1,
      credentials: { clientId: 'client-a', clientSecret: 'secret-a' },
    });
  });

  afterAll(async () => {
    await aws?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores an item and finds it through each GSI of the results table', async () => {
    // Prepare
    const documents = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
    /** The items of index `index` whose `key` is `value`. */
    const query = (index: keyof typeof RESULTS_TABLE.indexes, key: string, value: string) =>
      documents.send(
        new QueryCommand({
          TableName: resources.tableName,
          IndexName: RESULTS_TABLE.indexes[index].indexName,
          KeyConditionExpression: `${key} = :value`,
          ExpressionAttributeValues: { ':value': value },
        }),
      );
    const item = {
      resultId: 'r-1',
      transactionId: 'tx-1',
      customerReference: 'ref-1',
      completed: '2025-01-02T03:04:05Z',
      completedDay: '2025-01-02',
    };

    // Act
    await documents.send(new PutCommand({ TableName: resources.tableName, Item: item }));
    const got = await documents.send(
      new GetCommand({ TableName: resources.tableName, Key: { resultId: 'r-1' } }),
    );
    const byDay = await query('byCompletedDay', 'completedDay', '2025-01-02');
    const byTransaction = await query('byTransactionId', 'transactionId', 'tx-1');

    // Assess
    expect(got.Item).toEqual(item);
    // The indexes project what they project on AWS: keys only (the day index adds result and product).
    expect(byDay.Items).toEqual([{ resultId: 'r-1', completedDay: '2025-01-02', completed: item.completed }]);
    expect(byTransaction.Items).toEqual([
      { resultId: 'r-1', transactionId: 'tx-1', completed: item.completed },
    ]);
    documents.destroy();
  });

  it('puts and gets an object in the bucket', async () => {
    // Prepare
    const s3 = new S3Client(clientConfig(aws, 's3'));
    const body = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

    // Act
    await s3.send(
      new PutObjectCommand({
        Bucket: resources.bucketName,
        Key: 'results/r-1/images/01-PASSPORT-FRONT.jpg',
        Body: body,
        ContentType: 'image/jpeg',
        Metadata: { sha256: 'abc' },
      }),
    );
    const got = await s3.send(
      new GetObjectCommand({ Bucket: resources.bucketName, Key: 'results/r-1/images/01-PASSPORT-FRONT.jpg' }),
    );

    // Assess
    expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(body);
    expect(got.ContentType).toBe('image/jpeg');
    expect(got.Metadata).toEqual({ sha256: 'abc' });
    s3.destroy();
  });

  it('redelivers after the visibility timeout and dead-letters after maxReceiveCount', async () => {
    // Prepare
    const sqs = new SQSClient(clientConfig(aws, 'sqs'));
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: resources.queueUrl,
        MessageBody: '{"resultId":"r-2","source":"poll"}',
      }),
    );
    const receive = () =>
      sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: resources.queueUrl,
          WaitTimeSeconds: 3,
          MaxNumberOfMessages: 10,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );

    // Act
    const first = await receive();
    const hidden = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: resources.queueUrl,
        WaitTimeSeconds: 0,
        MaxNumberOfMessages: 10,
      }),
    );
    const second = await receive();
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: resources.queueUrl,
        ReceiptHandle: second.Messages![0]!.ReceiptHandle!,
        VisibilityTimeout: 0,
      }),
    );
    const third = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: resources.queueUrl,
        WaitTimeSeconds: 1,
        MaxNumberOfMessages: 10,
      }),
    );
    const dead = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: resources.dlqUrl, WaitTimeSeconds: 3, MaxNumberOfMessages: 10 }),
    );

    // Assess
    expect(first.Messages).toHaveLength(1);
    expect(first.Messages![0]!.Attributes?.ApproximateReceiveCount).toBe('1');
    expect(hidden.Messages ?? []).toHaveLength(0);
    expect(second.Messages![0]!.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(third.Messages ?? []).toHaveLength(0);
    expect(dead.Messages?.map((message) => message.Body)).toEqual(['{"resultId":"r-2","source":"poll"}']);
    sqs.destroy();
  });

  it('reads and writes secrets and reports a missing one as ResourceNotFoundException', async () => {
    // Prepare
    const secrets = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
    const token = JSON.stringify({ accessToken: 'x', tokenType: 'Bearer', expiresAt: 1, scopes: [] });

    // Act
    const credentials = await secrets.send(
      new GetSecretValueCommand({ SecretId: resources.credentialsSecretId }),
    );
    const webhook = await secrets.send(new GetSecretValueCommand({ SecretId: resources.webhookSecretId }));
    const emptyCache = await secrets.send(
      new GetSecretValueCommand({ SecretId: resources.tokenCacheSecretId }),
    );
    await secrets.send(
      new PutSecretValueCommand({ SecretId: resources.tokenCacheSecretId, SecretString: token }),
    );
    const cache = await secrets.send(new GetSecretValueCommand({ SecretId: emptyCache.ARN! }));
    const missing = secrets.send(new GetSecretValueCommand({ SecretId: 'no-such-secret' }));

    // Assess
    expect(JSON.parse(credentials.SecretString!)).toEqual({ clientId: 'client-a', clientSecret: 'secret-a' });
    expect(webhook.SecretString).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(emptyCache.SecretString).toBe('{}');
    expect(cache.SecretString).toBe(token);
    await expect(missing).rejects.toBeInstanceOf(ResourceNotFoundException);
    secrets.destroy();
  });

  it('captures events on the bus, tells listeners and appends them to events.jsonl', async () => {
    // Prepare
    const events = new EventBridgeClient(clientConfig(aws, 'eventBridge'));
    const heard: LocalEvent[] = [];
    const stop = aws.events.on((event) => heard.push(event));

    // Act
    const put = await events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: resources.eventBusName,
            Source: EVENT_SOURCE,
            DetailType: DETAIL_TYPES.resultStored,
            Detail: JSON.stringify({ resultId: 'r-1' }),
          },
          { EventBusName: 'no-such-bus', Source: EVENT_SOURCE, DetailType: 'x', Detail: '{}' },
        ],
      }),
    );
    stop();

    // Assess
    expect(put.FailedEntryCount).toBe(1);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({
      source: EVENT_SOURCE,
      'detail-type': DETAIL_TYPES.resultStored,
      detail: { resultId: 'r-1' },
      eventBusName: resources.eventBusName,
    });
    expect(aws.events.entries()).toEqual(heard);
    const lines = readFileSync(join(dataDir, 'events.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ detail: { resultId: 'r-1' } });
    events.destroy();
  });

  it('lets SDK clients without an explicit endpoint reach the emulators through AWS_ENDPOINT_URL_*', async () => {
    // Prepare
    const saved = Object.fromEntries(ENDPOINT_VARIABLES.map((name) => [name, process.env[name]]));
    Object.assign(process.env, aws.env());
    try {
      const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
      const s3 = new S3Client({ forcePathStyle: process.env['IDV_S3_FORCE_PATH_STYLE'] === 'true' });
      const sqs = new SQSClient({});
      const secrets = new SecretsManagerClient({});
      const events = new EventBridgeClient({});

      // Act
      const item = await documents.send(
        new GetCommand({ TableName: resources.tableName, Key: { resultId: 'r-1' } }),
      );
      await s3.send(new PutObjectCommand({ Bucket: resources.bucketName, Key: 'env-check', Body: 'ok' }));
      const object = await s3.send(new GetObjectCommand({ Bucket: resources.bucketName, Key: 'env-check' }));
      await sqs.send(
        new SendMessageCommand({ QueueUrl: resources.queueUrl, MessageBody: '{"resultId":"r-3"}' }),
      );
      const message = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: resources.queueUrl, WaitTimeSeconds: 2 }),
      );
      const secret = await secrets.send(new GetSecretValueCommand({ SecretId: resources.webhookSecretId }));
      const put = await events.send(
        new PutEventsCommand({
          Entries: [
            { EventBusName: resources.eventBusName, Source: EVENT_SOURCE, DetailType: 'env', Detail: '{}' },
          ],
        }),
      );

      // Assess
      expect(item.Item?.['resultId']).toBe('r-1');
      expect(await object.Body!.transformToString()).toBe('ok');
      expect(message.Messages?.[0]?.Body).toBe('{"resultId":"r-3"}');
      expect(secret.SecretString).toHaveLength(40);
      expect(put.FailedEntryCount).toBe(0);
      for (const client of [documents, s3, sqs, secrets, events]) client.destroy();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('maps resources to the function environment with the ENV names', () => {
    // Act
    const env = pipelineEnv(resources, {
      serviceBaseUrl: 'http://127.0.0.1:1',
      environment: 'staging',
      retentionDays: 30,
      scopes: ['productapi.poll.read', 'productapi.result.read'],
      serviceRequestsPerSecond: 8,
    });

    // Assess
    expect(env[ENV.resultsTableName]).toBe(resources.tableName);
    expect(env[ENV.serviceRequestsPerSecond]).toBe('8');
    expect(env[ENV.resultsQueueUrl]).toBe(resources.queueUrl);
    expect(env[ENV.scopes]).toBe('productapi.poll.read,productapi.result.read');
    expect(env[ENV.retentionDays]).toBe('30');
    // Every name the functions read.
    expect(Object.keys(env).sort()).toEqual(Object.values(ENV).sort());
  });

  it('reuses existing resources and keeps data when restarted on the same data directory', async () => {
    // Prepare
    const secrets = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
    const webhookBefore = await secrets.send(
      new GetSecretValueCommand({ SecretId: resources.webhookSecretId }),
    );
    secrets.destroy();
    await aws.close();

    // Act
    aws = await startLocalAws({ dataDir });
    const again = await createPipelineResources(aws, {
      prefix: 'test',
      maxReceiveCount: 2,
      visibilityTimeoutSeconds: 1,
    });
    const documents = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig(aws, 'dynamodb')));
    const item = await documents.send(
      new GetCommand({ TableName: again.tableName, Key: { resultId: 'r-1' } }),
    );
    const secretsAfter = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
    const webhookAfter = await secretsAfter.send(
      new GetSecretValueCommand({ SecretId: again.webhookSecretId }),
    );
    const credentials = await secretsAfter.send(
      new GetSecretValueCommand({ SecretId: again.credentialsSecretId }),
    );

    // Assess
    expect(item.Item?.['transactionId']).toBe('tx-1');
    expect(webhookAfter.SecretString).toBe(webhookBefore.SecretString);
    expect(JSON.parse(credentials.SecretString!)).toEqual({ clientId: 'client-a', clientSecret: 'secret-a' });
    documents.destroy();
    secretsAfter.destroy();
  });
});
