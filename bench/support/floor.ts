/**
 * The floor of fetch-result's work on a generated body (`stream-service.ts`): what any implementation must
 * spend — GET the body, decode each image's base64 with Node's decoder and no check, SHA-256 it, write it
 * with the pipeline's own PutObject (`S3BlobTarget.putSmall`); with `records`, also the storage requests
 * every stored result makes through the same SDK clients: `result.json` (a PutObject), the item (a
 * PutItem) and the event (a PutEvents). Nothing is parsed, checked or claimed; the images are found by
 * their offsets (`stream-layout.ts`). Used by the size bench (`size-worker.ts`) and the local-run bench
 * (`local-floor.ts`).
 */
import { createHash } from 'node:crypto';
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { S3BlobTarget } from '../../shared/store/s3-blobs';
import { RESULTS_TABLE } from '../../shared/store/table-schema';

/** Where the floor writes a result's item and event (the size bench's table and bus). */
export interface FloorRecords {
  readonly dynamo: DynamoDBDocumentClient;
  readonly events: EventBridgeClient;
  readonly table: string;
  readonly eventBus: string;
  readonly resultId: string;
}

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
  records?: FloorRecords,
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
  if (image !== spans.length) throw new Error(`floor: ${image} of ${spans.length} images in the body`);
  if (records) {
    const references = spans.map((_, i) => ({
      key: `${key}/${i}`,
      contentType: type.contentType,
      bytes: imageBytes,
    }));
    const document = Buffer.from(JSON.stringify({ resultId: records.resultId, images: references }));
    const json = { contentType: 'application/json', extension: 'json' };
    const digest = createHash('sha256').update(document).digest('hex');
    writes.add(target.putSmall(`${key}/result.json`, document, json, digest, signal));
    await Promise.all(writes);
    // The item, then its event: one after the other, as a stored result's are.
    const item = { [RESULTS_TABLE.partitionKey]: records.resultId, status: 'STORED', images: references };
    await records.dynamo.send(new PutCommand({ TableName: records.table, Item: item }));
    const detail = JSON.stringify({ resultId: records.resultId, status: 'STORED' });
    await records.events.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: records.eventBus, Source: 'idv.floor', DetailType: 'Floor', Detail: detail },
        ],
      }),
    );
  }
  await Promise.all(writes);
  return offset;
}
