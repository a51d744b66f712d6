/**
 * A large blob is decoded in place into its multipart upload's part buffers (shared/stream/blob-sink.ts,
 * `LargeUpload.space`): the bytes decoded into the pooled buffer before the blob outgrew `smallLimit` go
 * to the upload as a view of that buffer, not as a copy of their own, and every later piece is decoded
 * straight into the part being filled; the bytes are the blob's at every piece size.
 */
import { describe, expect, it } from 'vitest';
import { BlobSink, type BlobTarget, type LargeUpload } from '../../shared/stream/blob-sink';
import { BufferPool } from '../../shared/stream/buffer-pool';

function jpeg(bytes: number): Buffer {
  const blob = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) blob[i] = (i * 151 + (i >> 9)) & 0xff;
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(blob);
  return blob;
}

const PART = 256 * 1024;

/** An upload that hands out room in its current part and records how each write arrived. */
function partedUpload() {
  const parts: Buffer[] = [];
  let part = Buffer.alloc(PART);
  let filled = 0;
  const writes: { inPart: boolean; buffer: ArrayBufferLike; bytes: number }[] = [];
  const upload: LargeUpload = {
    space: (bytes) => (PART - filled >= bytes ? part.subarray(filled) : undefined),
    write: (bytes) => {
      const inPart = bytes.buffer === part.buffer && bytes.byteOffset === part.byteOffset + filled;
      writes.push({ inPart, buffer: bytes.buffer, bytes: bytes.length });
      for (let offset = 0; offset < bytes.length; ) {
        const n = Math.min(PART - filled, bytes.length - offset);
        if (!inPart) bytes.copy(part, filled, offset, offset + n);
        filled += n;
        offset += n;
        if (filled === PART) {
          parts.push(part);
          part = Buffer.alloc(PART);
          filled = 0;
        }
      }
      return true;
    },
    drained: async () => {},
    finish: async () => {
      parts.push(part.subarray(0, filled));
    },
    abort: async () => {},
  };
  return { upload, parts, writes };
}

describe('a large blob decoded into its upload', () => {
  it.each([
    ['pieces of 4 KiB', [4096]],
    ['odd pieces', [1, 4093, 7, 5000, 3]],
    ['pieces of 48 KiB', [48 * 1024]],
  ])('gets the arena as a view and later pieces in place, same bytes (%s)', async (_name, sizes) => {
    // Prepare: a blob of 5.3 parts past a small limit of one part; pooled buffers with room for a piece
    // past the limit, as the ingest sizes them.
    const blob = jpeg(Math.floor(PART * 5.3));
    const pool = new BufferPool(PART + 64 * 1024, 2);
    const taken: Buffer[] = [];
    const take = pool.take.bind(pool);
    pool.take = () => {
      const buffer = take();
      if (buffer) taken.push(buffer);
      return buffer;
    };
    const { upload, parts, writes } = partedUpload();
    const target: BlobTarget = {
      putSmall: async () => {},
      startLarge: () => upload,
      promote: async () => {},
      discard: async () => {},
    };
    const sink = new BlobSink('images', 0, {
      target,
      stagingKey: 'staging/0',
      smallLimit: PART,
      signal: new AbortController().signal,
      pool,
    });

    // Act
    const text = Buffer.from(blob.toString('base64'));
    for (let at = 0, n = 0; at < text.length; n++) {
      const size = sizes[n % sizes.length]!;
      sink.push(text.subarray(at, at + size));
      at += size;
    }
    const completed = await sink.end();

    // Assess
    expect(Buffer.concat(parts).equals(blob)).toBe(true);
    expect(completed?.bytes).toBe(blob.length);
    // The first write is the arena itself (the bytes decoded before the blob went large), not a copy.
    expect(taken).toHaveLength(1);
    expect(writes[0]!.buffer === taken[0]!.buffer).toBe(true);
    expect(pool.taken).toBe(0);
    // Every later piece went into the part, except one per part boundary that did not fit.
    const copied = writes.slice(1).filter((w) => !w.inPart);
    expect(copied.length).toBeLessThanOrEqual(parts.length);
    expect(writes.slice(1).filter((w) => w.inPart).length).toBeGreaterThan(copied.length);
  });
});
