/**
 * The local run's floor (`bench/local-run.ts`): in one process, as `npm start` runs, the local AWS
 * emulators (`local/local-aws.ts`, on a data directory as the run's) and the floor of the work
 * (`floor.ts`: GET the generated body, native decode, SHA-256, one PutObject per image) — what the local
 * run must spend on the same loopback whatever the pipeline does.
 *
 * `node --import tsx bench/support/local-floor.ts URL RESULT_ID IMAGES IMAGE_BYTES DATA_DIR`; exits 0
 * when every image was written.
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { clientConfig } from '../../local/client-config';
import { startLocalAws } from '../../local/local-aws';
import { createS3Client } from '../../shared/aws-clients';
import { floor } from './floor';
import { imageSpans } from './stream-layout';

const [url, resultId, images, imageBytes, dataDir] = process.argv.slice(2);
if (!url || !resultId || !images || !imageBytes || !dataDir) {
  console.error('usage: local-floor.ts URL RESULT_ID IMAGES IMAGE_BYTES DATA_DIR');
  process.exit(2);
}
const aws = await startLocalAws({ dataDir });
try {
  // Built as the pipeline builds its own, with the emulator's endpoint and the run's key pair.
  const s3 = createS3Client({ s3ForcePathStyle: true }, undefined, clientConfig(aws, 's3'));
  await s3.send(new CreateBucketCommand({ Bucket: 'floor' }));
  const spec = { images: Number(images), imageBytes: Number(imageBytes) };
  await floor(s3, `${url}/raw/${resultId}`, 'floor', 'floor', imageSpans(resultId, spec), spec.imageBytes);
  s3.destroy();
} finally {
  await aws.close();
}
