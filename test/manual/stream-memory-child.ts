/** Child of test/manual/stream-memory.ts: runs one result through the fetch-result core, prints VmHWM. */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IdvClient } from '../../shared/client/client';
import { processMessage } from '../../shared/pipeline/fetch-result';
import { Publications } from '../../shared/store/publication';
import { ResultStore } from '../../shared/store/result-store';
import { FakePublisher, memoryLogger } from '../support/pipeline-fakes';

const settings = JSON.parse(process.argv[2]!);
const status = () => {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kb = (name: string) => Number(text.match(new RegExp(`${name}:\\s+(\\d+) kB`))?.[1]);
  return { vmHwmMB: Math.round(kb('VmHWM') / 1024), vmRssMB: Math.round(kb('VmRSS') / 1024) };
};
const token = { accessToken: 'tok', tokenType: 'Bearer', expiresAt: Date.now() + 3_600_000, scopes: [] };
const client = new IdvClient({
  baseUrl: settings.baseUrl,
  environment: 'staging',
  tokenProvider: { getToken: async () => token, refresh: async () => token },
});
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(settings.dynamodb));
const store = new ResultStore({
  s3: new S3Client(settings.s3),
  dynamo,
  bucket: settings.bucket,
  table: settings.table,
});
const before = status();
const started = performance.now();
const outcome = await processMessage(
  { resultId: 'mem-1', source: 'poll' },
  {
    source: client,
    store,
    publications: new Publications(dynamo, settings.table),
    publisher: new FakePublisher(),
    environment: 'staging',
    retentionDays: 1,
    logger: memoryLogger().logger,
  },
);
const item = await store.getItem('mem-1');
console.log(
  JSON.stringify({
    outcome,
    objects: item?.objectCount,
    seconds: Math.round(performance.now() - started) / 1000,
    before,
    after: status(),
  }),
);
