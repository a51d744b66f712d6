// Run as another user (uid 65534) by test/integration/local-privacy.test.ts: tries every way into a
// running local run (AWS SDK with published or guessed keys, raw HTTP without auth, the emulators' unix
// sockets, the data directory's files, the run's environment) and prints one JSON line per attempt.
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const input = JSON.parse(process.argv[2]);
const require = createRequire(join(input.root, 'package.json'));
const s3 = require('@aws-sdk/client-s3');
const dynamodb = require('@aws-sdk/client-dynamodb');
const sqs = require('@aws-sdk/client-sqs');
const sm = require('@aws-sdk/client-secrets-manager');
const eb = require('@aws-sdk/client-eventbridge');

const results = [];
const record = (name, outcome, detail = {}) => results.push({ name, outcome, ...detail });

async function attempt(name, run) {
  try {
    const answer = await run();
    record(name, 'ok', { text: JSON.stringify(answer ?? null).slice(0, 300) });
  } catch (error) {
    record(name, 'refused', {
      status: error?.$metadata?.httpStatusCode,
      code: error?.code ?? error?.name,
      text: String(error?.message ?? '').slice(0, 300),
    });
  }
}

const KEYS = {
  published: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  guessed: { accessKeyId: 'test', secretAccessKey: 'test' },
};
const { endpoints, resources } = input;
for (const [label, credentials] of Object.entries(KEYS)) {
  const config = (endpoint) => ({ region: 'us-east-1', endpoint, credentials, maxAttempts: 1 });
  const s3Client = new s3.S3Client({ ...config(endpoints.s3), forcePathStyle: true });
  await attempt(`${label} s3 ListObjectsV2`, () =>
    s3Client.send(new s3.ListObjectsV2Command({ Bucket: resources.bucketName })),
  );
  await attempt(`${label} s3 GetObject`, async () => {
    const answer = await s3Client.send(
      new s3.GetObjectCommand({ Bucket: resources.bucketName, Key: input.objectKey }),
    );
    return answer.Body.transformToString();
  });
  const dynamo = new dynamodb.DynamoDBClient(config(endpoints.dynamodb));
  await attempt(`${label} dynamodb Scan`, () =>
    dynamo.send(new dynamodb.ScanCommand({ TableName: resources.tableName })),
  );
  await attempt(`${label} dynamodb ListTables`, () => dynamo.send(new dynamodb.ListTablesCommand({})));
  const queue = new sqs.SQSClient(config(endpoints.sqs));
  await attempt(`${label} sqs ReceiveMessage`, () =>
    queue.send(
      new sqs.ReceiveMessageCommand({ QueueUrl: resources.dlqUrl, VisibilityTimeout: 0, WaitTimeSeconds: 0 }),
    ),
  );
  await attempt(`${label} sqs ListQueues`, () => queue.send(new sqs.ListQueuesCommand({})));
  const secrets = new sm.SecretsManagerClient(config(endpoints.secretsManager));
  for (const id of [resources.credentialsSecretId, resources.tokenCacheSecretId, resources.webhookSecretId]) {
    await attempt(`${label} secretsmanager GetSecretValue ${id}`, () =>
      secrets.send(new sm.GetSecretValueCommand({ SecretId: id })),
    );
  }
  const bus = new eb.EventBridgeClient(config(endpoints.eventBridge));
  await attempt(`${label} eventbridge PutEvents`, () =>
    bus.send(
      new eb.PutEventsCommand({
        Entries: [
          { EventBusName: resources.eventBusName, Source: 'probe', DetailType: 'probe', Detail: '{}' },
        ],
      }),
    ),
  );
}

/** A raw HTTP request (no SDK, no signature); `ok` for any answer below 400. */
function raw(name, options, body) {
  return new Promise((resolve) => {
    const req = request({ ...options, timeout: 5000 }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        if (text.length < 300) text += chunk.toString();
      });
      res.on('end', () => {
        record(name, res.statusCode < 400 ? 'ok' : 'refused', { status: res.statusCode, text });
        resolve();
      });
    });
    req.on('error', (error) => {
      record(name, 'refused', { code: error.code });
      resolve();
    });
    req.end(body);
  });
}

const forged =
  'AWS4-HMAC-SHA256 Credential=S3RVER/20240101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00';
for (const [service, endpoint] of Object.entries(endpoints)) {
  const url = new URL(endpoint);
  const at = { host: url.hostname, port: url.port };
  await raw(`raw ${service} GET /`, { ...at, path: '/' });
  await raw(`raw ${service} GET / forged header`, { ...at, path: '/', headers: { authorization: forged } });
}
const s3Url = new URL(endpoints.s3);
await raw('raw s3 GET bucket', { host: s3Url.hostname, port: s3Url.port, path: `/${resources.bucketName}` });
await raw('raw s3 GET object', {
  host: s3Url.hostname,
  port: s3Url.port,
  path: `/${resources.bucketName}/${input.objectKey}`,
});
const smUrl = new URL(endpoints.secretsManager);
for (const authorization of [undefined, forged]) {
  await raw(
    `raw secretsmanager GetSecretValue${authorization ? ' forged header' : ''}`,
    {
      host: smUrl.hostname,
      port: smUrl.port,
      method: 'POST',
      path: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'secretsmanager.GetSecretValue',
        ...(authorization ? { authorization } : {}),
      },
    },
    JSON.stringify({ SecretId: resources.webhookSecretId }),
  );
}

// The simulator of the run: its port is on 127.0.0.1 like the fronts'.
if (input.simulator) {
  const sim = new URL(input.simulator.url);
  const at = { host: sim.hostname, port: sim.port };
  await raw('simulator GET /__sim/stats', { ...at, path: '/__sim/stats' });
  await raw('simulator GET /__sim/result-ids', { ...at, path: '/__sim/result-ids' });
  await raw(
    'simulator cross-origin text/plain POST /__sim/advance',
    {
      ...at,
      method: 'POST',
      path: '/__sim/advance',
      headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
    },
    '{"ms":3000000000}',
  );
  await raw('simulator rebound Host', {
    ...at,
    path: '/__sim/stats',
    headers: { host: `evil.example:${sim.port}` },
  });
  const demo = Buffer.from('local-demo-client:local-demo-secret').toString('base64');
  await raw(
    'simulator token with the demo credentials',
    {
      ...at,
      method: 'POST',
      path: '/api/v2/oauth/token',
      headers: { authorization: `Basic ${demo}`, 'content-type': 'application/json' },
    },
    '{"scopes":["results:read"]}',
  );
  await raw('simulator result download', {
    ...at,
    path: `/api/v2/result/${input.resultId}`,
    headers: { authorization: 'Bearer guessed' },
  });
}

// The emulators' own unix sockets, in owner-only directories.
for (const directory of readdirSync(tmpdir()).filter((name) => name.startsWith('idv-aws-'))) {
  try {
    readdirSync(join(tmpdir(), directory));
    record(`list ${directory}`, 'ok');
  } catch (error) {
    record(`list ${directory}`, 'refused', { code: error.code });
  }
  for (const socket of ['dynamodb', 's3', 'sqs', 'secrets-manager', 'eventbridge']) {
    await raw(`socket ${socket}`, {
      socketPath: join(tmpdir(), directory, `${socket}.sock`),
      path: socket === 's3' ? `/${resources.bucketName}` : '/',
    });
  }
}

// The data directory and its files, and the run's environment (it holds the key pair).
for (const path of [input.dataDir, ...input.files, `/proc/${input.pid}/environ`]) {
  try {
    const text = path === input.dataDir ? readdirSync(path).join(',') : readFileSync(path, 'utf8');
    record(`read ${path}`, 'ok', { text: text.slice(0, 300) });
  } catch (error) {
    record(`read ${path}`, 'refused', { code: error.code });
  }
}

process.stdout.write(`${JSON.stringify({ uid: process.getuid(), results })}\n`);
process.exit(0);
