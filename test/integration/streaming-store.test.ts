/**
 * Streaming fetch-and-store over real connections (issue 10): a service on node:http serving result bodies
 * in chunks, the real client's `getResultStream`, the real `ResultStore.storeResult` into s3rver and
 * dynalite. A large blob goes through multipart staging and is copied to its final key; each kind of bad
 * input fails with its reason code, leaves no object and no item, and logs no personal data.
 */

import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdvClient } from '../../shared/client/client';
import { ConnectionError } from '../../shared/client/errors';
import { type FetchResultDeps, processQueueRecord } from '../../shared/pipeline/fetch-result';
import { objectRefs } from '../../shared/queries/results';
import type { ResultStore } from '../../shared/store/result-store';
import { S3BlobTarget } from '../../shared/store/s3-blobs';
import { ResultContentError } from '../../shared/stream/errors';
import { clientConfig, type LocalAws, type PipelineResources } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { FakePublisher, memoryLogger } from '../support/pipeline-fakes';

const PERSONAL = 'Jantje Streaming Testpersoon';
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(6 * 1024 * 1024)]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(300)]);
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function body(images: unknown[]): string {
  return JSON.stringify({
    transactionId: 'tx-stream',
    result: 'APPROVED',
    identity: { result: 'APPROVED', data: { name: { fullname: PERSONAL } } },
    images,
  });
}

/** Each resultId's answer: the body to send, and whether to cut the connection half-way. */
const BODIES: Record<string, { text: string; cut?: boolean }> = {
  large: {
    text: body([
      // `data` before the names, as the simulator and the spec's field order have it.
      {
        data: JPEG.toString('base64').replace(/(.{76})/g, '$1\n'),
        documentType: 'PASSPORT',
        pageType: 'FRONT',
      },
      { data: `data:image/png;base64,${PNG.toString('base64url')}`, documentType: 'LIVE', pageType: 'ANY' },
    ]),
  },
  'bad-base64': { text: body([{ data: `${PNG.toString('base64')}%%`, documentType: 'LIVE' }]) },
  'not-image': { text: body([{ data: Buffer.from(`%PDF-1.4 ${PERSONAL}`).toString('base64') }]) },
  'data-number': { text: body([{ data: 42, documentType: 'LIVE' }]) },
  // Broken after the image: its upload may have started and must not survive.
  'broken-json': {
    text: body([{ data: PNG.toString('base64'), documentType: 'LIVE' }, 'x']).replace(',"x"]', ',"x"}'),
  },
  truncated: { text: body([{ data: JPEG.toString('base64'), documentType: 'PASSPORT' }]), cut: true },
};

/** An S3 client on the emulators that records each request's signed payload hash (`x-amz-content-sha256`). */
function payloadHashRecorder(): { recording: S3Client; signed: string[] } {
  const signed: string[] = [];
  const recording = new S3Client(clientConfig(aws, 's3'));
  recording.middlewareStack.add(
    (next) => async (args) => {
      signed.push((args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256']!);
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low' },
  );
  return { recording, signed };
}

let local: LocalStore;
let aws: LocalAws;
let resources: PipelineResources;
let server: Server;
let s3: S3Client;
let store: ResultStore;
let client: IdvClient;

beforeAll(async () => {
  local = await startLocalStore('idv-stream', { ingest: { smallLimit: 1024 * 1024, concurrency: 2 } });
  ({ aws, resources, s3, store } = local);
  server = createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    const answer = BODIES[id];
    if (!answer) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":5,"message":"Not Found"}');
      return;
    }
    const bytes = Buffer.from(answer.text);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    const end = answer.cut ? bytes.length >> 1 : bytes.length;
    let at = 0;
    const next = () => {
      if (at >= end) {
        if (answer.cut) res.socket?.destroy();
        else res.end();
        return;
      }
      const chunk = bytes.subarray(at, at + 256 * 1024);
      at += chunk.length;
      if (res.write(chunk)) setImmediate(next);
      else res.once('drain', next);
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const token = { accessToken: 'tok', tokenType: 'Bearer', expiresAt: Date.now() + 3_600_000, scopes: [] };
  client = new IdvClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    environment: 'staging',
    tokenProvider: { getToken: async () => token, refresh: async () => token },
    retry: { maxAttempts: 1 },
  });
}, 60_000);

afterAll(async () => {
  server?.close();
  await local?.close();
});

function deps(): { deps: FetchResultDeps; lines: string[]; publisher: FakePublisher } {
  const { logger, lines } = memoryLogger();
  const publisher = new FakePublisher();
  return {
    lines,
    publisher,
    deps: {
      source: client,
      store,
      publications: local.publications,
      publisher,
      environment: 'staging',
      retentionDays: 7,
      logger,
    },
  };
}

async function keys(prefix: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: resources.bucketName, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

describe('small blob writes', () => {
  it('hand S3 the SHA-256 computed while decoding, to check and to sign, and no second checksum', async () => {
    // Prepare: a client that records the headers each request is signed with.
    const signed: Record<string, string>[] = [];
    const recording = new S3Client(clientConfig(aws, 's3'));
    recording.middlewareStack.add(
      (next) => async (args) => {
        signed.push({ ...(args.request as { headers: Record<string, string> }).headers });
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    const bytes = PNG;
    const key = 'results/checksum/images/0.png';

    // Act
    await new S3BlobTarget(recording, resources.bucketName).putSmall(
      key,
      bytes,
      { contentType: 'image/png', extension: 'png' },
      sha(bytes),
      new AbortController().signal,
    );

    // Assess
    const headers = signed.at(-1)!;
    expect(headers['x-amz-content-sha256']).toBe(sha(bytes));
    expect(headers['x-amz-checksum-sha256']).toBe(Buffer.from(sha(bytes), 'hex').toString('base64'));
    expect(headers['x-amz-checksum-crc32']).toBeUndefined();
    expect(headers['authorization']).toContain('Signature=');
    const stored = await s3.send(new GetObjectCommand({ Bucket: resources.bucketName, Key: key }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(bytes)).toBe(true);
    recording.destroy();
  });

  it('leave every other request of the client, and a client shared by two targets, signed as the SDK signs it', async () => {
    // Prepare
    const { recording, signed } = payloadHashRecorder();
    new S3BlobTarget(recording, resources.bucketName);
    const target = new S3BlobTarget(recording, resources.bucketName);
    const text = Buffer.from('{"result":"APPROVED"}');

    // Act: a PutObject without ChecksumSHA256 (as result.json's), then a blob
    await recording.send(
      new PutObjectCommand({ Bucket: resources.bucketName, Key: 'results/checksum/result.json', Body: text }),
    );
    await target.putSmall(
      'results/checksum/images/2.png',
      PNG,
      { contentType: 'image/png', extension: 'png' },
      sha(PNG),
      new AbortController().signal,
    );

    // Assess: the SDK's own hash of the body, then the blob's SHA-256
    expect(signed).toEqual([sha(text), sha(PNG)]);
    recording.destroy();
  });

  it('sign with the given SHA-256 instead of hashing the blob again (S3 checks the body against it)', async () => {
    // Prepare
    const { recording, signed } = payloadHashRecorder();
    const claimed = sha(Buffer.from('other bytes'));

    // Act: the emulator checks neither header; S3 would refuse this object.
    await new S3BlobTarget(recording, resources.bucketName).putSmall(
      'results/checksum/images/1.png',
      PNG,
      { contentType: 'image/png', extension: 'png' },
      claimed,
      new AbortController().signal,
    );

    // Assess
    expect(signed.at(-1)).toBe(claimed);
    recording.destroy();
  });
});

describe('streaming fetch-and-store (real HTTP, s3rver, dynalite)', () => {
  it('stores a large blob through multipart staging, byte-identical with its SHA-256, and a small one', async () => {
    // Prepare
    const { deps: d, publisher } = deps();

    // Act
    const outcome = await processQueueRecord(JSON.stringify({ resultId: 'large', source: 'poll' }), d);

    // Assess
    expect(outcome).toBe('stored');
    expect(await keys('results/large/')).toEqual([
      'results/large/images/01-PASSPORT-FRONT.jpg',
      'results/large/images/02-LIVE-ANY.png',
      'results/large/result.json',
    ]);
    expect(await keys('staging/')).toEqual([]);
    const object = await s3.send(
      new GetObjectCommand({
        Bucket: resources.bucketName,
        Key: 'results/large/images/01-PASSPORT-FRONT.jpg',
      }),
    );
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    expect(sha(bytes)).toBe(sha(JPEG));
    expect(object.Metadata?.['sha256']).toBe(sha(JPEG));
    expect(object.ContentType).toBe('image/jpeg');
    const item = await store.getItem('large');
    // The document holds the references in place; the item does not list them twice.
    const refs = objectRefs(item!.document!);
    expect(refs.map((o) => o.sha256)).toEqual([sha(JPEG), sha(PNG)]);
    expect(item?.objects).toBeUndefined();
    expect(item?.objectCount).toBe(2);
    expect(publisher.stored[0]?.storage.objectCount).toBe(2);
    // result.json goes as the small blobs do: its SHA-256 as metadata (and as the checksum S3 verifies).
    const json = await s3.send(
      new GetObjectCommand({ Bucket: resources.bucketName, Key: 'results/large/result.json' }),
    );
    const text = Buffer.from(await json.Body!.transformToByteArray());
    expect(json.ContentType).toBe('application/json');
    expect(json.Metadata?.['sha256']).toBe(sha(text));
    expect(JSON.parse(text.toString('utf8'))).toEqual(item?.document);
  });

  it.each([
    ['bad-base64', 'DATA_NOT_BASE64'],
    ['not-image', 'DATA_NOT_IMAGE'],
    ['data-number', 'DATA_NOT_STRING'],
    ['broken-json', 'BODY_NOT_JSON'],
  ])('refuses %s with reason %s: no object, no item, no personal data in the log', async (id, reason) => {
    // Prepare
    const { deps: d, lines } = deps();

    // Act
    const error = await processQueueRecord(JSON.stringify({ resultId: id, source: 'poll' }), d).catch(
      (e: unknown) => e,
    );

    // Assess
    expect(error).toBeInstanceOf(ResultContentError);
    expect((error as ResultContentError).reason).toBe(reason);
    expect((error as ResultContentError).transient).toBe(false);
    expect(await keys(`results/${id}/`)).toEqual([]);
    expect(await keys('staging/')).toEqual([]);
    expect(await store.getItem(id)).toBeUndefined();
    const log = lines.join('\n');
    expect(log).toContain(reason);
    expect(log).not.toContain(PERSONAL);
    expect(log).not.toContain('Jantje');
  });

  it('treats a body cut off mid-way as transient: the upload is aborted, nothing stored', async () => {
    // Prepare
    const { deps: d, lines } = deps();

    // Act
    const error = await processQueueRecord(
      JSON.stringify({ resultId: 'truncated', source: 'poll' }),
      d,
    ).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain('interrupted after');
    expect(await keys('results/truncated/')).toEqual([]);
    expect(await keys('staging/')).toEqual([]);
    expect(await store.getItem('truncated')).toBeUndefined();
    expect(lines.join('\n')).toContain('left for redelivery');
  });
});

describe('large blob writes (shared/store/s3-blobs.ts)', () => {
  /** A client that records each request's method, query and checksum headers. */
  function recordingClient() {
    const requests: { method: string; query: Record<string, unknown>; headers: Record<string, string> }[] =
      [];
    const recording = new S3Client(clientConfig(aws, 's3'));
    recording.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as {
          method: string;
          query: Record<string, unknown>;
          headers: Record<string, string>;
        };
        // First attempts only: s3rver answers a DeleteObjects of several keys in one folder with a 500
        // once (its parallel deletes race to remove the emptied folder, after every object is gone), and
        // the SDK's retry then finds nothing left to delete. S3 itself does not.
        if (!request.headers['amz-sdk-request']?.startsWith('attempt=1;')) return next(args);
        requests.push({
          method: request.method,
          query: { ...request.query },
          headers: { ...request.headers },
        });
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    return { recording, requests };
  }

  it('delete every staging key of a result in one DeleteObjects request, not one request per key', async () => {
    // Prepare: three staging objects.
    const target = new S3BlobTarget(s3, resources.bucketName);
    const staged = ['staging/discard/images-01', 'staging/discard/images-02', 'staging/discard/files-01'];
    for (const key of staged) {
      await target.putSmall(
        key,
        PNG,
        { contentType: 'image/png', extension: 'png' },
        sha(PNG),
        new AbortController().signal,
      );
    }
    const { recording, requests } = recordingClient();

    // Act
    await new S3BlobTarget(recording, resources.bucketName).discard(staged);

    // Assess
    expect(requests.map((r) => `${r.method} ${Object.keys(r.query).join(',')}`)).toEqual(['POST delete']);
    expect(await keys('staging/discard/')).toEqual([]);
    recording.destroy();
  });

  it('upload parts with the checksums lib-storage sets: CRC32 named at creation, each part checksummed, repeated on completion', async () => {
    // Prepare: 11 MiB in pieces of odd sizes, so parts of 5, 5 and 1 MiB.
    const { recording, requests } = recordingClient();
    const blob = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(11 * 1024 * 1024 - 4)]);
    const upload = new S3BlobTarget(recording, resources.bucketName).startLarge(
      'staging/parts/images-01',
      { contentType: 'image/jpeg', extension: 'jpg' },
      new AbortController().signal,
    );

    // Act
    for (let at = 0; at < blob.length; at += 48 * 1024 + 7) {
      if (!upload.write(blob.subarray(at, at + 48 * 1024 + 7))) await upload.drained();
    }
    await upload.finish();

    // Assess
    const created = requests.find((r) => 'uploads' in r.query)!;
    expect(created.headers['x-amz-checksum-algorithm']).toBe('CRC32');
    const parts = requests.filter((r) => 'partNumber' in r.query);
    expect(parts.map((r) => r.query.partNumber)).toEqual(['1', '2', '3']);
    for (const part of parts) expect(part.headers['x-amz-checksum-crc32']).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const object = await s3.send(
      new GetObjectCommand({ Bucket: resources.bucketName, Key: 'staging/parts/images-01' }),
    );
    expect(sha(Buffer.from(await object.Body!.transformToByteArray()))).toBe(sha(blob));
    await new S3BlobTarget(s3, resources.bucketName).discard(['staging/parts/images-01']);
    recording.destroy();
  });
});
