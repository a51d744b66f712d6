/**
 * Result objects after a lifecycle transition (docs/storage.md), on the emulators: two results stored by
 * the real fetch-result core, then every object moved to STANDARD_IA as a transition does (same key,
 * bytes and content type, another class; s3rver keeps the class and answers it, but knows no
 * GLACIER_IR). Readers see no difference: `idv results get --out` writes the same bytes, and
 * `idv results erase` removes every object of the erased result, with its receipt, and nothing of the
 * other; a byte scan of the data directory finds none of the erased result's planted data.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { type FetchResultDeps, processQueueRecord } from '../../shared/pipeline/fetch-result';
import { eraseLocally, runIdvInProcess } from '../support/cli';
import { clientConfig } from '../support/local-aws';
import { startLocalStore } from '../support/local-store';
import { FakeSource, memoryLogger } from '../support/pipeline-fakes';

const ERASED = 'res-class-erase-1';
const KEPT = 'res-class-keep-1';
/** Planted in the erased result (a name, image bytes) and in the kept one (the scan's positive control). */
const PLANTED = ['Plantedname-Tieringova', 'PIXEL-Tieringova-4410'];
const CONTROL = ['Controlname-Standardova', 'PIXEL-Standardova-8823'];

/** A JPEG's first bytes and a marker, padded to `bytes` (above the plan's smallest transitioned size). */
function jpeg(marker: string, bytes: number): Buffer {
  const head = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(marker)]);
  return Buffer.concat([head, Buffer.alloc(bytes - head.length, 0x41)]);
}

const IMAGE_BYTES = 512 * 1024;
const images = new Map([
  [ERASED, jpeg(PLANTED[1]!, IMAGE_BYTES)],
  [KEPT, jpeg(CONTROL[1]!, IMAGE_BYTES)],
]);

function result(transactionId: string, name: string, image: Buffer) {
  return {
    transactionId,
    customerReference: `ref-${transactionId}`,
    result: 'APPROVED',
    images: [{ data: image.toString('base64'), documentType: 'PASSPORT', pageType: 'FRONT' }],
    identity: { result: 'APPROVED', data: { name: { fullname: name } } },
  };
}

/** Every file under `dir` holding `needle` in its bytes or its path. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...filesHolding(path, needle));
    else if (path.includes(needle) || readFileSync(path).includes(Buffer.from(needle))) found.push(path);
  }
  return found;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The keys under `prefix` with their storage class as HeadObject answers it. */
async function classes(s3: S3Client, bucket: string, prefix: string): Promise<Record<string, string>> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  const out: Record<string, string> = {};
  for (const { Key } of listed.Contents ?? []) {
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: Key! }));
    out[Key!] = head.StorageClass ?? 'STANDARD';
  }
  return out;
}

describe('result objects in another storage class (local emulators)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-classes-'));
  const source = new FakeSource(
    new Map<string, unknown>([
      [ERASED, result('tx-class-erase-1', PLANTED[0]!, images.get(ERASED)!)],
      [KEPT, result('tx-class-keep-1', CONTROL[0]!, images.get(KEPT)!)],
    ]),
  );
  let transitioned: Record<string, string> = {};

  beforeAll(async () => {
    const local = await startLocalStore('idv-local', { dataDir });
    const events = new EventBridgeClient(clientConfig(local.aws, 'eventBridge'));
    try {
      const deps: FetchResultDeps = {
        source,
        store: local.store,
        publications: local.publications,
        publisher: new EventBridgePublisher(events, local.resources.eventBusName),
        environment: 'staging',
        retentionDays: 90,
        logger: memoryLogger().logger,
      };
      for (const resultId of [ERASED, KEPT]) {
        expect(await processQueueRecord(JSON.stringify({ resultId, source: 'poll' }), deps)).toBe('stored');
      }
      // What a lifecycle transition does to each object: the same key, bytes and type in another class.
      const bucket = local.resources.bucketName;
      const listed = await local.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'results/' }));
      for (const { Key } of listed.Contents ?? []) {
        const head = await local.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: Key! }));
        await local.s3.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: Key!,
            CopySource: `${bucket}/${Key!}`,
            StorageClass: 'STANDARD_IA',
            MetadataDirective: 'REPLACE',
            ...(head.ContentType !== undefined && { ContentType: head.ContentType }),
          }),
        );
      }
      transitioned = await classes(local.s3, bucket, 'results/');
      // The image reads back byte for byte from its new class.
      const imageKey = Object.keys(transitioned).find((k) => k.startsWith(`results/${KEPT}/images/`))!;
      const body = await local.s3.send(new GetObjectCommand({ Bucket: bucket, Key: imageKey }));
      expect(sha256(await body.Body!.transformToByteArray())).toBe(sha256(images.get(KEPT)!));
    } finally {
      events.destroy();
      await local.close();
    }
  }, 120_000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps the class on every object of both results (the emulator honours it)', () => {
    // Assess
    expect(Object.keys(transitioned)).toHaveLength(4);
    expect(new Set(Object.values(transitioned))).toEqual(new Set(['STANDARD_IA']));
  });

  it('idv results get --out writes the same bytes from the transitioned objects', async () => {
    // Prepare
    const out = join(dataDir, 'out');

    // Act
    const run = await runIdvInProcess([
      'results',
      'get',
      KEPT,
      '--local',
      '--data-dir',
      dataDir,
      '--out',
      out,
    ]);

    // Assess
    expect(run.code, run.err).toBe(0);
    const written = readdirSync(out);
    expect(written).toContain('result.json');
    const image = written.find((name) => name !== 'result.json')!;
    expect(sha256(readFileSync(join(out, image)))).toBe(sha256(images.get(KEPT)!));
    expect(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')).transactionId).toBe('tx-class-keep-1');
    rmSync(out, { recursive: true, force: true });
  }, 60_000);

  it('idv results erase removes every transitioned object of the result, with its receipt, and none of the other', async () => {
    // Act
    const run = await eraseLocally('tx-class-erase-1', dataDir);

    // Assess: the receipt counts both objects and says the bucket is erased …
    expect(run.code, run.err).toBe(0);
    const [erased] = JSON.parse(run.out).erased;
    expect(erased).toMatchObject({
      erasedResultId: ERASED,
      state: 'ERASED',
      counts: { objects: 2 },
      receipt: { dataBucket: { erased: true } },
    });
    // … no file of the data directory holds the erased result's planted data, the kept one's is there …
    for (const needle of PLANTED) expect(filesHolding(dataDir, needle), needle).toEqual([]);
    for (const needle of CONTROL) expect(filesHolding(dataDir, needle), needle).not.toEqual([]);
    // … and the kept result's objects are still in their class.
    const local = await startLocalStore('idv-local', { dataDir });
    try {
      const left = await classes(local.s3, local.resources.bucketName, 'results/');
      expect(Object.keys(left).filter((k) => k.includes(ERASED))).toEqual([]);
      expect(Object.values(left)).toEqual(['STANDARD_IA', 'STANDARD_IA']);
    } finally {
      await local.close();
    }
  }, 60_000);
});
