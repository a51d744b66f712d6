/**
 * The direct PutObject of small blobs (shared/store/direct-put.ts) over real connections: against the
 * local S3 emulator, whose front checks every signature, and against a hostile S3 double on node:http
 * that throttles, refuses, cuts connections, stalls and answers with oversized error bodies.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_OPTIONS } from '../../shared/client/retry';
import { DirectPut, DirectPutError, UnsendableRequestError } from '../../shared/store/direct-put';
import { S3BlobTarget } from '../../shared/store/s3-blobs';
import { clientConfig } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(50 * 1024, 7)]);
const SHA = createHash('sha256').update(JPEG).digest('hex');
const JPEG_TYPE = { contentType: 'image/jpeg', extension: 'jpg' };
const PERSONAL = 'Jantje Direct Testpersoon';

describe('against the local S3 emulator (signatures checked)', () => {
  let local: LocalStore;
  beforeAll(async () => {
    local = await startLocalStore('idv-direct');
  }, 60_000);
  afterAll(() => local.close());

  it('stores the blob byte for byte, with its content type and sha256 metadata', async () => {
    // Prepare
    const bucket = local.resources.bucketName;
    const target = new S3BlobTarget(local.s3, bucket, new DirectPut(local.s3, bucket));
    const key = 'results/direct/images/0 front (copy).jpg';

    // Act
    await target.putSmall(key, JPEG, JPEG_TYPE, SHA, new AbortController().signal);

    // Assess
    const stored = await local.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(JPEG)).toBe(true);
    expect(stored.ContentType).toBe('image/jpeg');
    expect(stored.Metadata).toEqual({ sha256: SHA });
  });

  it('is refused (403, not retried) when signed with another secret', async () => {
    // Prepare: a client of the same endpoint with a wrong secret
    const config = clientConfig(local.aws, 's3');
    const wrong = new S3Client({
      ...config,
      credentials: { ...config.credentials, secretAccessKey: 'not-the-secret' },
    });
    const bucket = local.resources.bucketName;
    const direct = new DirectPut(wrong, bucket);

    // Act
    const failure = await direct
      .put(
        (await direct.route())!,
        'results/direct/refused.jpg',
        JPEG,
        'image/jpeg',
        SHA,
        new AbortController().signal,
      )
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(DirectPutError);
    expect((failure as DirectPutError).$metadata).toEqual({ httpStatusCode: 403, attempts: 1 });
    await expect(
      local.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'results/direct/refused.jpg' })),
    ).rejects.toThrow();
    wrong.destroy();
  });
});

/** What the double does with one request. */
type Answer = (req: IncomingMessage, res: ServerResponse) => void;

describe('against a hostile S3 double', () => {
  let server: Server;
  let endpoint: string;
  let script: Answer[] = [];
  let seen: { headers: IncomingMessage['headers']; bytes: number }[] = [];
  const open = new Set<import('node:net').Socket>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ headers: req.headers, bytes: Buffer.concat(chunks).length });
        const answer = script.shift() ?? ok;
        answer(req, res);
      });
    });
    server.on('connection', (socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    script = [];
    seen = [];
  });

  const ok: Answer = (_req, res) => res.writeHead(200, { etag: '"e"' }).end();
  const s3Error =
    (status: number, code: string): Answer =>
    (_req, res) =>
      res
        .writeHead(status, { 'content-type': 'application/xml' })
        .end(`<?xml version="1.0"?><Error><Code>${code}</Code><Message>${PERSONAL}</Message></Error>`);
  const cut: Answer = (req) => req.socket.destroy();

  function put(options: { signal?: AbortSignal; maxAttempts?: number; contentType?: string } = {}) {
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDDOUBLE', secretAccessKey: 'double-secret' },
      ...(options.maxAttempts && { maxAttempts: options.maxAttempts }),
    });
    const direct = new DirectPut(s3, 'double-bucket');
    return direct
      .route()
      .then((route) =>
        direct.put(
          route!,
          'results/r1/images/0.jpg',
          JPEG,
          options.contentType ?? 'image/jpeg',
          SHA,
          options.signal ?? new AbortController().signal,
        ),
      )
      .finally(() => s3.destroy());
  }

  it('sends what the SDK sends for this PutObject: path, checksum, payload hash, metadata, signature', async () => {
    // Act
    await put();

    // Assess
    const [request] = seen;
    expect(request!.bytes).toBe(JPEG.length);
    expect(request!.headers).toMatchObject({
      'content-type': 'image/jpeg',
      'content-length': String(JPEG.length),
      'x-amz-content-sha256': SHA,
      'x-amz-checksum-sha256': Buffer.from(SHA, 'hex').toString('base64'),
      'x-amz-meta-sha256': SHA,
    });
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDDOUBLE\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-checksum-sha256;x-amz-content-sha256;x-amz-date;x-amz-meta-sha256, Signature=[0-9a-f]{64}$/,
    );
  });

  it('retries a throttled request (503 SlowDown) and a cut connection, then succeeds', async () => {
    // Prepare
    script = [s3Error(503, 'SlowDown'), cut, ok];

    // Act
    await put();

    // Assess: three attempts, the whole body each time
    expect(seen.map((s) => s.bytes)).toEqual([JPEG.length, JPEG.length, JPEG.length]);
  });

  it('gives up after the client’s maxAttempts, naming the code and status and not the answer’s text', async () => {
    // Prepare
    script = [s3Error(500, 'InternalError'), s3Error(500, 'InternalError'), s3Error(500, 'InternalError')];

    // Act
    const failure = (await put({ maxAttempts: 2 }).catch((error: unknown) => error)) as DirectPutError;

    // Assess
    expect(seen).toHaveLength(2);
    expect(failure).toBeInstanceOf(DirectPutError);
    expect(failure.name).toBe('InternalError');
    expect(failure.$metadata).toEqual({ httpStatusCode: 500, attempts: 2 });
    expect(failure.$fault).toBe('server');
    expect(failure.message).toBe(
      'PutObject of results/r1/images/0.jpg failed with HTTP 500 (InternalError) after 2 attempts',
    );
    expect(JSON.stringify({ ...failure, message: failure.message })).not.toContain(PERSONAL);
  });

  it('does not repeat a refusal (403 AccessDenied)', async () => {
    // Prepare
    script = [s3Error(403, 'AccessDenied')];

    // Act
    const failure = (await put().catch((error: unknown) => error)) as DirectPutError;

    // Assess
    expect(seen).toHaveLength(1);
    expect(failure.name).toBe('AccessDenied');
    expect(failure.$fault).toBe('client');
  });

  it('reads at most 8 KiB of an error body, however much is sent, and still names the code', async () => {
    // Prepare: a 400 whose body goes on for 64 MiB
    script = [
      (_req, res) => {
        res.writeHead(400, { 'content-type': 'application/xml' });
        res.write('<Error><Code>BadDigest</Code><Message>');
        const filler = Buffer.alloc(1024 * 1024, 'x');
        let left = 64;
        const more = () => {
          while (left > 0 && !res.destroyed) {
            left--;
            if (!res.write(filler)) return void res.once('drain', more);
          }
          res.end();
        };
        more();
      },
    ];

    // Act
    const failure = (await put().catch((error: unknown) => error)) as DirectPutError;

    // Assess
    expect(failure.name).toBe('BadDigest');
    expect(failure.$metadata.httpStatusCode).toBe(400);
  });

  it('sends nothing and tries once when a header value could end its line (no injected header)', async () => {
    // Act
    const failure = await put({ contentType: 'image/jpeg\r\nx-amz-acl: public-read' }).catch(
      (error: unknown) => error,
    );

    // Assess
    expect(failure).toBeInstanceOf(UnsendableRequestError);
    expect(seen).toHaveLength(0);
  });

  it('stops at once when aborted while backing off, with the abort’s reason', async () => {
    // Prepare: throttled, with the backoff's jitter at its top (199 ms: a jitter near 0 would send the
    // retry before the abort); the caller aborts 20 ms after the first answer
    const random = vi.spyOn(DEFAULT_RETRY_OPTIONS, 'random').mockReturnValue(0.999);
    const controller = new AbortController();
    script = [
      (req, res) => {
        s3Error(503, 'SlowDown')(req, res);
        res.on('finish', () => setTimeout(() => controller.abort(new Error('batch deadline')), 20));
      },
    ];

    // Act
    const failure = await put({ signal: controller.signal })
      .catch((error: unknown) => error)
      .finally(() => random.mockRestore());

    // Assess
    expect((failure as Error).message).toBe('batch deadline');
    expect(seen).toHaveLength(1);
  });

  it('stops a request the double never answers when aborted', async () => {
    // Prepare
    const controller = new AbortController();
    script = [() => setTimeout(() => controller.abort(new Error('batch deadline')), 20)];

    // Act
    const failure = await put({ signal: controller.signal }).catch((error: unknown) => error);

    // Assess
    expect((failure as Error).message).toBe('batch deadline');
  });
});
