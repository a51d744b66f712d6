/**
 * Entry that test/infra/bundled-store.test.ts bundles with the functions' own esbuild options (the
 * stand-ins of `LAMBDA_BUNDLING` included) and runs in a plain Node: it stores one result through the
 * real `ResultStore` and the S3 and DynamoDB clients of `shared/aws-clients.ts`, against the emulators
 * named by argv[2] (JSON: the client settings, the bucket, the table and the file of the image, large
 * enough for a multipart upload). Prints one JSON line: the stored objects and document size.
 */
import { readFileSync } from 'node:fs';
import { createDynamoDocumentClient, createS3Client } from '../../shared/aws-clients';
import { ResultStore } from '../../shared/store/result-store';

interface ProbeArgs {
  s3: { region: string; endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  dynamo: { region: string; endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  bucket: string;
  table: string;
  imageFile: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as ProbeArgs;
const store = new ResultStore({
  s3: createS3Client({ s3ForcePathStyle: true }, undefined, args.s3),
  dynamo: createDynamoDocumentClient(undefined, args.dynamo),
  bucket: args.bucket,
  table: args.table,
});
const text = JSON.stringify({
  transactionId: 'tx-bundled',
  result: 'APPROVED',
  images: [{ type: 'PASSPORT', data: readFileSync(args.imageFile).toString('base64') }],
});
async function* body(): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
}
const { stored } = await store.storeResult('r-bundled', body());
process.stdout.write(`${JSON.stringify({ objects: stored.objects, documentBytes: stored.documentBytes })}\n`);
