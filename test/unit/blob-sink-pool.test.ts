/**
 * Small blobs decoded in place into pooled buffers (shared/stream/blob-sink.ts, buffer-pool.ts): the same
 * bytes as joining the pieces whatever the piece sizes, a buffer reused only after its write succeeded.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resultBlobNames } from '../../shared/store/keys';
import { BlobSink, type BlobTarget, type LargeUpload } from '../../shared/stream/blob-sink';
import { BufferPool } from '../../shared/stream/buffer-pool';
import { ingestResult } from '../../shared/stream/result-ingest';

/** A JPEG-looking blob of `bytes` bytes whose content depends on `seed`. */
function jpeg(bytes: number, seed = 1): Buffer {
  const blob = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) blob[i] = (i * 151 + seed * 31 + (i >> 9)) & 0xff;
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(blob);
  return blob;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A target that records what each multipart upload was given. */
function recordingTarget() {
  const uploads: Buffer[][] = [];
  const target: BlobTarget = {
    putSmall: async () => {},
    startLarge: (): LargeUpload => {
      const parts: Buffer[] = [];
      uploads.push(parts);
      return {
        // A copy, as a stream consumer would read the bytes before the pool gets the buffer back.
        space: () => undefined,
        write: (bytes) => parts.push(Buffer.from(bytes)) > 0,
        drained: async () => {},
        finish: async () => {},
        abort: async () => {},
      };
    },
    promote: async () => {},
    discard: async () => {},
  };
  return { target, uploads };
}

/** Decodes `blob` through a pooled sink, its base64 pushed in pieces of the given sizes (cycled). */
async function decode(
  blob: Buffer,
  pieceSizes: number[],
  options: { smallLimit: number; room: number; pool?: BufferPool },
) {
  const pool = options.pool ?? new BufferPool(options.smallLimit + options.room, 2);
  const { target, uploads } = recordingTarget();
  const sink = new BlobSink('images', 0, {
    target,
    stagingKey: 'staging/0',
    smallLimit: options.smallLimit,
    signal: new AbortController().signal,
    pool,
  });
  const text = Buffer.from(blob.toString('base64'));
  for (let at = 0, n = 0; at < text.length; n++) {
    const size = pieceSizes[n % pieceSizes.length]!;
    sink.push(text.subarray(at, at + size));
    at += size;
  }
  const completed = (await sink.end())!;
  return { completed, pool, uploads };
}

describe('BlobSink with a buffer pool', () => {
  const limit = 64 * 1024;

  it.each([
    ['even pieces', [4096]],
    ['odd pieces, every remainder', [1, 2, 3, 4093, 5, 7000]],
    ['one piece', [1 << 20]],
  ])('gives the same bytes as joining the pieces (%s)', async (_name, sizes) => {
    for (const bytes of [0, 1, 2, 3, 100, limit / 2 - 1, limit / 2, limit - 1, limit]) {
      // Prepare
      const blob = jpeg(Math.max(bytes, 4), bytes);

      // Act
      const { completed } = await decode(blob, sizes, { smallLimit: limit, room: 1024 });

      // Assess
      expect(completed.body?.equals(blob), `${bytes} bytes`).toBe(true);
      expect(completed.sha256).toBe(sha256(blob));
    }
  });

  it('hands a blob of 64 KiB or more over as a view of its buffer, reused only after a successful write', async () => {
    for (const reusable of [true, false]) {
      // Act
      const { completed, pool } = await decode(jpeg(100_000), [4096], { smallLimit: 4 * limit, room: 1024 });

      // Assess: the body lives in a pooled buffer, which is back in the pool only once released.
      expect(completed.body!.buffer.byteLength).toBe(4 * limit + 1024);
      expect(pool).toMatchObject({ available: 0, taken: 1 });
      completed.release!(reusable);
      expect(pool).toMatchObject({ available: reusable ? 1 : 0, taken: 0 });
    }
  });

  it('copies a blob under 64 KiB, and gives the buffer back at once', async () => {
    // Act
    const { completed, pool } = await decode(jpeg(20_000), [4096], { smallLimit: limit, room: 1024 });

    // Assess
    expect(completed.release).toBeUndefined();
    expect(completed.body!.buffer.byteLength).not.toBe(limit + 1024);
    expect(pool).toMatchObject({ available: 1, taken: 0 });
  });

  it('joins the pieces as before when every buffer of the pool is taken', async () => {
    // Prepare
    const pool = new BufferPool(limit + 1024, 1);
    const other = pool.take();
    const blob = jpeg(50_000);

    // Act
    const { completed } = await decode(blob, [4096], { smallLimit: limit, room: 1024, pool });

    // Assess
    expect(other).toBeDefined();
    expect(completed.body!.equals(blob)).toBe(true);
    expect(completed.release).toBeUndefined();
    expect(pool.taken).toBe(1);
  });

  it('joins the pieces when one does not fit the rest of the buffer', async () => {
    // Prepare: a blob of the whole buffer; each piece asks for up to 3 bytes more than it decodes to, so
    // the last one cannot fit.
    const blob = jpeg(limit);

    // Act
    const { completed, pool } = await decode(blob, [30_000], { smallLimit: limit, room: 0 });

    // Assess
    expect(completed.body!.equals(blob)).toBe(true);
    expect(completed.release).toBeUndefined();
    expect(pool.available).toBe(1);
  });

  it('starts the multipart upload with the bytes decoded in place, then the rest, in order', async () => {
    // Prepare
    const blob = jpeg(3 * limit + 123);

    // Act
    const { completed, pool, uploads } = await decode(blob, [4096, 999], { smallLimit: limit, room: 1024 });

    // Assess
    expect(completed.body).toBeUndefined();
    expect(uploads).toHaveLength(1);
    expect(Buffer.concat(uploads[0]!).equals(blob)).toBe(true);
    expect(completed.sha256).toBe(sha256(blob));
    expect(pool.available).toBe(1);
  });
});

describe('BlobSink once the blob is large', () => {
  it.each([
    ['small pieces', [4096, 999]],
    ['pieces larger than the buffer', [3 << 20, 7]],
    ['odd pieces', [1, 65_537, 3]],
  ])('hands the upload the same bytes, those decoded in place first (%s)', async (_name, sizes) => {
    // Prepare
    const blob = jpeg((5 << 20) + 12_345);

    // Act
    const { completed, uploads } = await decode(blob, sizes, { smallLimit: 64 * 1024, room: 1024 });

    // Assess
    expect(Buffer.concat(uploads[0]!).equals(blob)).toBe(true);
    expect(completed.sha256).toBe(sha256(blob));
  });
});

describe('ingestResult with pooled buffers', () => {
  it('never lets a later blob decode into a buffer whose PutObject is still running', async () => {
    // Prepare: blobs that fill most of the buffer (held as views of it), written slowly and out of order,
    // four at a time.
    const smallLimit = 600_000;
    const blobs = Array.from({ length: 8 }, (_, i) => jpeg(500_000, i));
    const text = Buffer.from(
      JSON.stringify({ result: 'APPROVED', images: blobs.map((b) => ({ data: b.toString('base64') })) }),
    );
    const body = (async function* () {
      for (let at = 0; at < text.length; at += 16_384) yield text.subarray(at, at + 16_384);
    })();
    const written = new Map<string, string>();
    let calls = 0;
    const target: BlobTarget = {
      putSmall: async (key, data, _type, hash) => {
        await new Promise((resolve) => setTimeout(resolve, 2 + (calls++ % 3) * 4));
        // What S3 would have received, read when the request ends.
        expect(sha256(data)).toBe(hash);
        written.set(key, sha256(data));
      },
      startLarge: () => {
        throw new Error('not used');
      },
      promote: async () => {},
      discard: async () => {},
    };

    // Act
    const { objects } = await ingestResult(body, target, resultBlobNames('r'), {
      smallLimit,
      concurrency: 4,
    });

    // Assess
    expect(objects.map((o) => o.sha256)).toEqual(blobs.map(sha256));
    expect([...written.values()].sort()).toEqual(blobs.map(sha256).sort());
  });

  /** A body of `count` JPEG-looking images of `bytes` each, in chunks of 16 KiB; `tail` replaces its end. */
  function body(count: number, bytes: number, tail?: string): AsyncIterable<Uint8Array> {
    const blobs = Array.from({ length: count }, (_, i) => ({ data: jpeg(bytes, i).toString('base64') }));
    let text = JSON.stringify({ result: 'APPROVED', images: blobs });
    if (tail !== undefined) text = text.slice(0, text.length - tail.length - 200) + tail;
    const bytesOut = Buffer.from(text);
    return (async function* () {
      for (let at = 0; at < bytesOut.length; at += 16_384) yield bytesOut.subarray(at, at + 16_384);
    })();
  }

  function target(failAt?: number): BlobTarget {
    let puts = 0;
    return {
      putSmall: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (++puts === failAt) throw Object.assign(new Error('slow down'), { name: 'SlowDown' });
      },
      startLarge: () => {
        throw new Error('not used');
      },
      promote: async () => {},
      discard: async () => {},
    };
  }

  it.each([
    ['a write that fails', () => body(8, 100_000), 3, 'slow down'],
    ['a value that is not base64 half-way', () => body(8, 100_000, '%%%"}]}'), undefined, 'not base64'],
    ['a body cut off', () => body(8, 100_000, 'AAAA'), undefined, 'ended after'],
  ])('has every buffer back in the pool after %s', async (_name, makeBody, failAt, message) => {
    // Prepare
    const pool = new BufferPool(300_000, 6);

    // Act
    const failure = ingestResult(makeBody(), target(failAt), resultBlobNames('r'), {
      smallLimit: 200_000,
      pool,
    });

    // Assess
    await expect(failure).rejects.toThrow(message);
    expect(pool.taken).toBe(0);
  });

  it('has every buffer back in the pool after a stored result, ready for the next one', async () => {
    // Prepare
    const pool = new BufferPool(300_000, 6);

    // Act
    await ingestResult(body(8, 100_000), target(), resultBlobNames('r'), { smallLimit: 200_000, pool });

    // Assess
    expect(pool.taken).toBe(0);
    expect(pool.available).toBeGreaterThan(0);
  });
});
