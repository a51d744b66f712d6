/**
 * The chaos suite's byte check: what was stored under a result in S3 against what the service serves for
 * it, compared by SHA-256 of every decoded base64 `data` value.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { IdvClient } from '../../shared/client';

/**
 * The sha256 of every decoded base64 `data` value the service serves for `resultId` against those of the
 * objects stored under its prefix (result.json aside); undefined when they are the same multiset.
 */
export async function compareBytes(
  s3: S3Client,
  bucket: string,
  upstream: IdvClient,
  resultId: string,
): Promise<string | undefined> {
  const served: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'data' && typeof inner === 'string') served.push(sha256(Buffer.from(inner, 'base64')));
        else walk(inner);
      }
    }
  };
  walk(JSON.parse((await upstream.getResultBody(resultId)).toString('utf8')));
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `results/${resultId}/` }));
  const stored: string[] = [];
  for (const object of listed.Contents ?? []) {
    if (object.Key!.endsWith('/result.json')) continue;
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: object.Key! }));
    stored.push(sha256(Buffer.from(await got.Body!.transformToByteArray())));
  }
  served.sort();
  stored.sort();
  if (served.join() === stored.join()) return undefined;
  return `stored bytes differ from the served ones (${stored.length} objects, ${served.length} served)`;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
