/**
 * Bodies of the hostile service (`hostile-service.ts`), generated as they are written: a body is a list
 * of parts (text, or a byte repeated N times, or base64 of an image generated piece by piece), so a 1 GB
 * answer costs the serving process a few hundred KiB. The gzip bombs are the one exception: their
 * compressed bytes (about 1 MB for 1 GB inflated) are made once per process by streaming the inflated
 * parts through gzip, and kept.
 */
import { createGzip } from 'node:zlib';

/** One piece of a body. */
export type BodyPart =
  | string
  /** `count` copies of one ASCII character. */
  | { readonly fill: string; readonly count: number }
  /** Base64 of a JPEG-looking image of `bytes` bytes (start and end markers, filler between). */
  | { readonly image: number; readonly seed: number }
  /** `count` items `"<prefix><i>"` joined by commas (a long array of strings). */
  | { readonly strings: number; readonly prefix: string }
  /** `count` members `"<prefix><i>":0` joined by commas (an object with many keys). */
  | { readonly keys: number; readonly prefix: string };

/** Raw bytes per generated image piece: a multiple of 3, so the pieces' base64 concatenates without padding. */
const PIECE = 3 * 16 * 1024;
const FILL_CHUNK = 64 * 1024;
const LIST_BATCH = 4096;
const JPEG_START = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00];

/** Bytes of one image piece: JPEG start marker first, end marker last. */
function imagePiece(seed: number, offset: number, length: number, total: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = ((offset + i) * 31 + seed * 131 + ((offset + i) >> 11)) & 0xff;
  if (offset === 0) Buffer.from(JPEG_START).copy(bytes, 0, 0, Math.min(length, JPEG_START.length));
  if (offset + length === total && length >= 2) {
    bytes[length - 2] = 0xff;
    bytes[length - 1] = 0xd9;
  }
  return bytes;
}

/** The bytes of a generated image, whole (for small images and digests in tests). */
export function imageBytes(bytes: number, seed: number): Buffer {
  return imagePiece(seed, 0, bytes, bytes);
}

function padded(i: number): string {
  return String(i).padStart(8, '0');
}

/** The chunks of one part, in order. */
export function* partChunks(part: BodyPart): Generator<Buffer> {
  if (typeof part === 'string') {
    yield Buffer.from(part, 'utf8');
  } else if ('fill' in part) {
    const block = Buffer.alloc(Math.min(FILL_CHUNK, part.count), part.fill);
    for (let left = part.count; left > 0; left -= block.length) {
      yield left >= block.length ? block : block.subarray(0, left);
    }
  } else if ('image' in part) {
    // Each piece is generated anew: an image of 6 MiB is never held whole.
    for (let offset = 0; offset < part.image; offset += PIECE) {
      const length = Math.min(PIECE, part.image - offset);
      yield Buffer.from(imagePiece(part.seed, offset, length, part.image).toString('base64'), 'latin1');
    }
  } else {
    const count = 'strings' in part ? part.strings : part.keys;
    const item =
      'strings' in part
        ? (i: number) => `"${part.prefix}${padded(i)}"`
        : (i: number) => `"${part.prefix}${padded(i)}":0`;
    for (let start = 0; start < count; start += LIST_BATCH) {
      const items: string[] = [];
      for (let i = start; i < Math.min(count, start + LIST_BATCH); i++) items.push(item(i));
      yield Buffer.from((start > 0 ? ',' : '') + items.join(','), 'latin1');
    }
  }
}

/** Exact byte length of a part. */
export function partBytes(part: BodyPart): number {
  if (typeof part === 'string') return Buffer.byteLength(part, 'utf8');
  if ('fill' in part) return part.count;
  if ('image' in part) return 4 * Math.ceil(part.image / 3);
  const count = 'strings' in part ? part.strings : part.keys;
  if (count === 0) return 0;
  const each = part.prefix.length + 8 + 2 + ('keys' in part ? 2 : 0);
  return count * each + (count - 1);
}

/** Every chunk of a body. */
export function* bodyChunks(parts: readonly BodyPart[]): Generator<Buffer> {
  for (const part of parts) yield* partChunks(part);
}

/** Exact byte length of a body. */
export function bodyBytes(parts: readonly BodyPart[]): number {
  return parts.reduce((n, part) => n + partBytes(part), 0);
}

const bombs = new Map<string, Promise<Buffer>>();

/**
 * The gzip of `parts` (level 9), made once per process: `{fill:'A', count: 2**30}` compresses to about
 * 1 MB, which is the whole point of a bomb. The inflated bytes are streamed through gzip, never held.
 */
export function gzipOf(parts: readonly BodyPart[]): Promise<Buffer> {
  const key = JSON.stringify(parts);
  let bomb = bombs.get(key);
  if (!bomb) {
    bomb = (async () => {
      const gzip = createGzip({ level: 9 });
      const out: Buffer[] = [];
      gzip.on('data', (chunk: Buffer) => out.push(chunk));
      const ended = new Promise((resolve, reject) => {
        gzip.on('end', resolve);
        gzip.on('error', reject);
      });
      for (const chunk of bodyChunks(parts)) {
        if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve));
      }
      gzip.end();
      await ended;
      return Buffer.concat(out);
    })();
    bombs.set(key, bomb);
  }
  return bomb;
}
