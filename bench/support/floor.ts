/**
 * The floor of fetch-result's work on a generated body (`stream-service.ts`): what any implementation must
 * spend — GET the body, decode each image's base64 with Node's decoder and no check, SHA-256 it, write it
 * with the pipeline's own PutObject (`S3BlobTarget.putSmall`). Nothing is parsed, checked or recorded;
 * the images are found by their offsets (`stream-layout.ts`). Used by the size bench (`size-worker.ts`)
 * and the local-run bench (`local-floor.ts`).
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { S3BlobTarget } from '../../shared/store/s3-blobs';

/**
 * Each image's base64 in `spans` decoded natively as the body arrives (a partial quartet
 * carried across chunks), hashed, and written with one PutObject, at most 4 at once.
 */
export async function floor(
  s3: S3Client,
  url: string,
  bucket: string,
  key: string,
  spans: [number, number][],
  imageBytes: number,
) {
  const answer = await fetch(url);
  if (!answer.ok || !answer.body) throw new Error(`floor GET answered ${answer.status}`);
  const target = new S3BlobTarget(s3, bucket);
  const type = { contentType: 'image/jpeg', extension: 'jpg' };
  const signal = new AbortController().signal;
  const free: Buffer[] = [];
  const writes = new Set<Promise<void>>();
  let offset = 0;
  let image = 0;
  let buffer: Buffer = Buffer.allocUnsafe(imageBytes);
  let filled = 0;
  let hash = createHash('sha256');
  let carry = '';
  const decode = (text: string) => {
    const n = buffer.write(text, filled, 'base64');
    hash.update(buffer.subarray(filled, filled + n));
    filled += n;
  };
  for await (const chunk of answer.body as AsyncIterable<Uint8Array>) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let from = 0;
    while (image < spans.length) {
      const [start, end] = spans[image]!;
      let i = Math.max(start - offset, from);
      if (i >= bytes.length) break;
      const stop = Math.min(end - offset, bytes.length);
      const last = stop === end - offset;
      if (carry) {
        const take = Math.min(4 - carry.length, stop - i);
        carry += bytes.toString('latin1', i, i + take);
        i += take;
        if (carry.length === 4 || last) {
          decode(carry);
          carry = '';
        }
      }
      const whole = last ? stop : i + ((stop - i) & ~3);
      if (whole > i) decode(bytes.toString('latin1', i, whole));
      if (whole < stop) carry = bytes.toString('latin1', whole, stop);
      from = stop;
      if (!last) break;
      // Spans off by a byte would decode something else: the sizes catch it.
      if (filled !== imageBytes) throw new Error(`floor: image ${image} decoded to ${filled} bytes`);
      const body = buffer.subarray(0, filled);
      const done = buffer;
      const write = target.putSmall(`${key}/${image}`, body, type, hash.digest('hex'), signal).then(() => {
        writes.delete(write);
        free.push(done);
      });
      writes.add(write);
      if (writes.size >= 4) await Promise.race(writes);
      buffer = free.pop() ?? Buffer.allocUnsafe(imageBytes);
      filled = 0;
      hash = createHash('sha256');
      image++;
    }
    offset += bytes.length;
  }
  await Promise.all(writes);
  if (image !== spans.length) throw new Error(`floor: ${image} of ${spans.length} images in the body`);
  return offset;
}
