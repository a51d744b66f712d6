/**
 * DynamoDB's and EventBridge's requests signed and sent by the pipeline's own client (direct-json.ts,
 * direct-dynamo.ts): against the local emulators behind their authenticating fronts, which refuse every
 * request whose SigV4 signature over its body does not match (so each round trip here checks the
 * signature), and against a hostile double of DynamoDB for retries, refusals and what an error carries.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { isConditionalCheckFailed } from '../../shared/store/conditional';
import { DocumentRequests } from '../../shared/store/direct-dynamo';
import { clientConfig } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';

let local: LocalStore;

beforeAll(async () => {
  local = await startLocalStore('idv-direct');
}, 60_000);

afterAll(async () => {
  await local?.close();
});

describe('direct DynamoDB requests against the emulator', () => {
  it('puts, updates and reads items as the document client does, signed as the front checks', async () => {
    // Prepare
    const requests = new DocumentRequests(local.dynamo);
    const table = local.resources.tableName;
    const item = {
      resultId: 'd-1',
      status: 'STORED',
      nested: { list: [1, 'two', { three: true }], none: null },
      dropped: undefined,
      count: 42,
    };

    // Act
    await requests.put({
      TableName: table,
      Item: item,
      ConditionExpression: 'attribute_not_exists(resultId)',
    });
    await requests.update({
      TableName: table,
      Key: { resultId: 'd-1' },
      UpdateExpression: 'SET #c = :c',
      ExpressionAttributeNames: { '#c': 'count' },
      ExpressionAttributeValues: { ':c': 43 },
    });
    const read = await requests.batchGet({
      RequestItems: {
        [table]: { Keys: [{ resultId: 'd-1' }, { resultId: 'd-none' }], ConsistentRead: true },
      },
    });
    const again = requests
      .put({ TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(resultId)' })
      .catch((error: unknown) => error);

    // Assess: the route is the emulator's own; the SDK reads what the direct requests wrote.
    expect((await new DocumentRequests(local.dynamo).route())?.host).toBe(
      new URL(local.aws.endpoints.dynamodb).host,
    );
    expect(read.Responses?.[table]).toEqual([
      {
        resultId: 'd-1',
        status: 'STORED',
        nested: { list: [1, 'two', { three: true }], none: null },
        count: 43,
      },
    ]);
    const { Item } = await local.dynamo.send(new GetCommand({ TableName: table, Key: { resultId: 'd-1' } }));
    expect(Item).toMatchObject({ count: 43, nested: { list: [1, 'two', { three: true }] } });
    const failure = await again;
    expect(isConditionalCheckFailed(failure)).toBe(true);
    expect((failure as Error).message).toBe(
      'DynamoDB PutItem failed with HTTP 400 (ConditionalCheckFailedException) after 1 attempt',
    );
  });

  it('is refused by the front when signed with another secret (the front checks the signature)', async () => {
    // Prepare
    const config = clientConfig(local.aws, 'dynamodb');
    const wrong = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        ...config,
        credentials: { accessKeyId: local.aws.credentials.accessKeyId, secretAccessKey: 'not-the-secret' },
        maxAttempts: 1,
      }),
    );

    // Act
    const failure = await new DocumentRequests(wrong)
      .update({
        TableName: local.resources.tableName,
        Key: { resultId: 'd-2' },
        UpdateExpression: 'REMOVE a',
      })
      .catch((error: Error) => error);
    wrong.destroy();

    // Assess
    expect(failure?.message).toMatch(/^DynamoDB UpdateItem failed with HTTP 403 /);
  });

  it('publishes an event the local EventBridge accepts', async () => {
    // Prepare
    const client = new EventBridgeClient(clientConfig(local.aws, 'eventBridge'));
    const publisher = new EventBridgePublisher(client, local.resources.eventBusName, { direct: true });
    const before = local.aws.events.entries().length;

    // Act
    await publisher.publishDocumentsUploaded({
      transactionId: 'tx-direct',
      uploadedAt: '2027-01-01T00:00:00.000Z',
      environment: 'staging',
    });

    // Assess
    const entries = local.aws.events.entries().slice(before);
    expect(entries).toHaveLength(1);
    expect(JSON.stringify(entries[0])).toContain('tx-direct');
    client.destroy();
  });
});

describe('direct DynamoDB requests against a hostile double', () => {
  /** A DynamoDB double that answers each request with the next of `answers` and keeps what it was sent. */
  async function double(answers: ((req: IncomingMessage) => { status: number; body: string | Buffer })[]) {
    const seen: { target: string; body: string }[] = [];
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ target: String(req.headers['x-amz-target']), body: Buffer.concat(chunks).toString() });
        const answer = (answers[seen.length - 1] ?? answers.at(-1)!)(req);
        res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(answer.body);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
        maxAttempts: 3,
      }),
    );
    return {
      requests: new DocumentRequests(client),
      seen,
      close: async () => {
        client.destroy();
        server.closeAllConnections();
        server.close();
      },
    };
  }

  const throttled = () => ({
    status: 400,
    body: JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
      message: 'slow down',
    }),
  });

  it('retries throttling and 5xx, then succeeds, with the same signed body each time', async () => {
    // Prepare
    const dynamo = await double([
      throttled,
      () => ({ status: 503, body: '' }),
      () => ({ status: 200, body: '{}' }),
    ]);

    // Act
    await dynamo.requests.update({ TableName: 't', Key: { resultId: 'r' }, UpdateExpression: 'REMOVE a' });
    await dynamo.close();

    // Assess
    expect(dynamo.seen.map((s) => s.target)).toEqual(Array(3).fill('DynamoDB_20120810.UpdateItem'));
    expect(new Set(dynamo.seen.map((s) => s.body)).size).toBe(1);
    expect(JSON.parse(dynamo.seen[0]!.body)).toMatchObject({ Key: { resultId: { S: 'r' } } });
  });

  it('gives up after the client`s attempts, naming the code and never the answer`s text', async () => {
    // Prepare: the double's message repeats what it was sent, personal data included.
    const dynamo = await double([
      () => ({
        status: 400,
        body: JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
          message: 'Jane Example X1234567',
        }),
      }),
    ]);

    // Act
    const failure = await dynamo.requests
      .put({ TableName: 't', Item: { resultId: 'r', name: 'Jane Example' } })
      .then(
        () => undefined,
        (error: unknown) => error as Error & { $metadata: { attempts: number } },
      );
    await dynamo.close();

    // Assess
    expect(dynamo.seen).toHaveLength(3);
    expect(failure?.name).toBe('ThrottlingException');
    expect(failure?.$metadata.attempts).toBe(3);
    expect(failure?.message).toBe(
      'DynamoDB PutItem failed with HTTP 400 (ThrottlingException) after 3 attempts',
    );
    expect(JSON.stringify({ ...failure, message: failure?.message })).not.toContain('Jane');
  });

  it('refuses an answer that is not JSON, an error code that is not a word, and one over 16 MiB', async () => {
    // Prepare
    const notJson = await double([() => ({ status: 200, body: '<html>Jane Example</html>' })]);
    const oddCode = await double([
      () => ({ status: 400, body: JSON.stringify({ __type: 'Jane Example!' }) }),
    ]);
    const huge = await double([() => ({ status: 200, body: Buffer.alloc(17 * 1024 * 1024, 0x20) })]);

    // Act
    const failures = await Promise.all(
      [notJson, oddCode, huge].map((d) =>
        d.requests.update({ TableName: 't', Key: { resultId: 'r' }, UpdateExpression: 'REMOVE a' }).then(
          () => undefined,
          (error: Error) => error,
        ),
      ),
    );
    await Promise.all([notJson, oddCode, huge].map((d) => d.close()));

    // Assess: none is taken for a success; no message holds the answer's text.
    expect(failures.map((f) => f?.name)).toEqual(['MalformedAnswer', 'Http400', 'MalformedAnswer']);
    for (const failure of failures) expect(failure?.message).not.toContain('Jane');
  });
});
