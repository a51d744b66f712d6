/**
 * The naive peer of fetch-result for the cost comparison (docs/benchmarks.md, "Full cost per 1,000
 * results"): what a first version of the function would do with the same body — the whole answer
 * buffered as one string, `JSON.parse`, `Buffer.from(data, 'base64')` per image and one `PutObject`
 * each, `result.json` with the image keys, one `PutItem` of the same JSON (the result item the design
 * asks for: the document, its images as keys) and one `PutEvents`. No streaming, no claim,
 * no idempotency. It runs in the size bench's handler process (`bench/support/size-worker.ts`) after
 * the handler's own results, so its garbage cannot flatter or spoil the handler's figures, and its
 * time, CPU, peak RSS and requests are measured the same way.
 */

import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';

/** Where the naive peer reads and writes. */
export interface NaivePeerTarget {
  /** The body's URL (the stream service's `/raw/{resultId}`: the same bytes as the result GET). */
  url: string;
  resultId: string;
  bucket: string;
  table: string;
  eventBus: string;
}

/** The clients it uses (made once per process, as a function would at module scope). */
export interface NaivePeerClients {
  s3: S3Client;
  dynamo: DynamoDBDocumentClient;
  events: EventBridgeClient;
}

interface NaiveImage {
  documentType?: unknown;
  pageType?: unknown;
  data?: unknown;
}

/** Fetches, parses, decodes and stores one result the naive way; answers the body bytes it read. */
export async function naiveFetchAndStore(
  target: NaivePeerTarget,
  clients: NaivePeerClients,
): Promise<{ bytes: number; objects: number }> {
  const answer = await fetch(target.url);
  if (!answer.ok) throw new Error(`naive GET answered ${answer.status}`);
  const text = await answer.text();
  const body = JSON.parse(text) as { images?: NaiveImage[]; [key: string]: unknown };
  const prefix = `naive/${target.resultId}`;
  const keys: string[] = [];
  const images = body.images ?? [];
  for (const [index, image] of images.entries()) {
    const key = `${prefix}/images/${index}.jpg`;
    await clients.s3.send(
      new PutObjectCommand({
        Bucket: target.bucket,
        Key: key,
        Body: Buffer.from(String(image.data ?? ''), 'base64'),
        ContentType: 'image/jpeg',
      }),
    );
    keys.push(key);
    image.data = key;
  }
  await clients.s3.send(
    new PutObjectCommand({
      Bucket: target.bucket,
      Key: `${prefix}/result.json`,
      Body: JSON.stringify(body),
      ContentType: 'application/json',
    }),
  );
  const storedAt = new Date().toISOString();
  await clients.dynamo.send(
    new PutCommand({
      TableName: target.table,
      // The JSON item the design asks of any implementation: the result's document, its images as keys.
      Item: {
        resultId: `naive-${target.resultId}`,
        status: 'STORED',
        storedAt,
        objects: keys.length,
        document: body,
      },
    }),
  );
  await clients.events.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: target.eventBus,
          Source: 'bench.naive',
          DetailType: 'VerificationResultStored',
          Detail: JSON.stringify({ resultId: target.resultId, storedAt, objects: keys.length + 1 }),
        },
      ],
    }),
  );
  return { bytes: Buffer.byteLength(text), objects: keys.length + 1 };
}
