/**
 * Constant-memory check, run by hand (issue 10): `npx tsx test/manual/stream-memory.ts [BODY_MB]`.
 * Starts s3rver + dynalite and an HTTP service that serves one result of about BODY_MB (default 300) MB:
 * two JPEG images as base64, generated on the fly. A child process capped at `--max-old-space-size=200`
 * runs the fetch-result core (real client, `getResultStream`, `ResultStore.storeResult`) on it and reports
 * its kernel peak RSS (VmHWM) before and after. The figure is quoted in docs/pipeline.md.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientConfig, createPipelineResources, startLocalAws } from '../support/local-aws';

const bodyMb = Number(process.argv[2] ?? 300);
const BLOCK = 3 * 1024 * 1024;
const first = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(BLOCK - 4)]).toString(
  'base64',
);
const block = randomBytes(BLOCK).toString('base64');
const blocksPerImage = Math.max(1, Math.round((bodyMb * 1024 * 1024) / 2 / block.length));

const aws = await startLocalAws();
const resources = await createPipelineResources(aws, { prefix: 'idv-mem' });
const server = createServer(async (req, res) => {
  if (!req.url?.includes('/result/')) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json' });
  const write = async (text: string) => {
    if (!res.write(text)) await new Promise((resolve) => res.once('drain', resolve));
  };
  await write('{"transactionId":"tx-mem","result":"APPROVED","images":[');
  for (const [n, page] of ['FRONT', 'BACK'].entries()) {
    await write(`${n ? ',' : ''}{"data":"${first}`);
    for (let i = 1; i < blocksPerImage; i++) await write(block);
    await write(`","documentType":"PASSPORT","pageType":"${page}"}`);
  }
  res.end(']}');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const settings = {
  baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  s3: clientConfig(aws, 's3'),
  dynamodb: clientConfig(aws, 'dynamodb'),
  bucket: resources.bucketName,
  table: resources.tableName,
};
const child = spawn(
  process.execPath,
  [
    '--max-old-space-size=200',
    '--import',
    'tsx',
    'test/manual/stream-memory-child.ts',
    JSON.stringify(settings),
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
console.log(
  JSON.stringify({ bodyMB: Math.round((2 * blocksPerImage * block.length) / 1048576), exit: code }),
);
server.close();
await aws.close();
process.exit(code ?? 1);
