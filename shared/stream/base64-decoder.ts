/**
 * Incremental decoding of a base64 `data` value that arrives in pieces split anywhere. Accepts every
 * form `bin/cli/base64.ts` accepts (a `data:…;base64,` prefix, whitespace and line breaks, the
 * URL-safe alphabet, missing padding) and gives the same bytes; anything else is a `Base64DataError`
 * naming the problem and its position, never the value. Long runs of one alphabet go to Node's native
 * decoder once they pass a check that costs two or four memchr scans (`#native`); the byte-table loops
 * decode, and check, everything else.
 */
import { PipelineError } from '../errors';

/** Why a `data` value is not base64. Carries no part of the value. */
export class Base64DataError extends PipelineError {
  override readonly name = 'Base64DataError';
}

/** Sextet per byte; -1 not base64, -2 whitespace, -3 padding. */
const TABLE = new Int8Array(256).fill(-1);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
for (let i = 0; i < ALPHABET.length; i++) TABLE[ALPHABET.charCodeAt(i)] = i;
TABLE[0x2b] = 62; // +
TABLE[0x2f] = 63; // /
TABLE[0x2d] = 62; // - (URL-safe)
TABLE[0x5f] = 63; // _ (URL-safe)
for (const ws of [0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c]) TABLE[ws] = -2;
TABLE[0x3d] = -3; // =
/**
 * The fast loop's alphabets: letters and digits while the value has used neither `+/` nor `-_`, then the
 * alphabet it chose. The first character of the other one leaves the fast loop, and the byte table finds
 * the mix.
 */
type Alphabet = 'common' | 'standard' | 'urlSafe';
const ALPHABETS: Record<Alphabet, Int8Array> = {
  common: TABLE.map((v) => (v >= 0 && v < 62 ? v : -1)),
  standard: TABLE.map((v, byte) => (v >= 0 && byte !== 0x2d && byte !== 0x5f ? v : -1)),
  urlSafe: TABLE.map((v, byte) => (v >= 0 && byte !== 0x2b && byte !== 0x2f ? v : -1)),
};

/**
 * Two characters at once: entry `first | second << 8` holds their 12 bits, or -1 unless both are of the
 * alphabet. Half the lookups of a per-character table (the fast loop runs about a third faster); 128 KiB
 * each, built when first needed.
 */
const PAIRS: Partial<Record<Alphabet, Int16Array>> = {};
function pairsOf(alphabet: Alphabet): Int16Array {
  let pairs = PAIRS[alphabet];
  if (!pairs) {
    const table = ALPHABETS[alphabet];
    pairs = new Int16Array(65536).fill(-1);
    for (let first = 0; first < 256; first++) {
      const high = table[first]!;
      if (high < 0) continue;
      for (let second = 0; second < 256; second++) {
        const low = table[second]!;
        if (low >= 0) pairs[first | (second << 8)] = (high << 6) | low;
      }
    }
    PAIRS[alphabet] = pairs;
  }
  return pairs;
}

/**
 * Shortest run handed to Node's native decoder: below it the string, the checks and the calls cost more
 * than the loop they replace.
 */
const NATIVE_MIN = 1024;
/** Runs of one value the native decoder may refuse before the value is left to the loops. */
const MAX_NATIVE_MISSES = 4;

const DATA_PREFIX = 'data:';
/** Longest `data:<media type>;params;base64,` header read before giving up. */
const MAX_HEADER = 1024;

/**
 * Gives the decoder a buffer of at least `bytes` bytes to decode into (it starts writing at index 0). The
 * default allocates one per piece; a caller that holds the value whole hands out its own space instead,
 * and `onBytes` then receives views of it.
 */
export type DecodeSpace = (bytes: number) => Buffer;

/** Decoder of one value: `push` pieces, then `end`. Output goes to `onBytes` as it is decoded. */
export class Base64StreamDecoder {
  readonly #onBytes: (bytes: Buffer) => void;
  readonly #space: DecodeSpace;
  /** Pair table of the fast loop: letters and digits until the value shows its alphabet. */
  #pairs = pairsOf('common');
  /** Leading characters held back while they could still be a `data:` prefix. */
  #head = '';
  #headDone = false;
  #inHeader = false;
  #quad = 0;
  #count = 0;
  #padding = 0;
  #standard = false;
  #urlSafe = false;
  #position = 0;
  #sawAny = false;
  /** Runs the native decoder refused (see {@link MAX_NATIVE_MISSES}). */
  #nativeMisses = 0;

  constructor(onBytes: (bytes: Buffer) => void, space: DecodeSpace = Buffer.allocUnsafe) {
    this.#onBytes = onBytes;
    this.#space = space;
  }

  /** True once any non-whitespace character was seen. */
  get empty(): boolean {
    return !this.#sawAny;
  }

  push(piece: Uint8Array): void {
    let start = 0;
    if (!this.#headDone) {
      start = this.#header(piece);
      if (!this.#headDone) return;
    }
    if (start < piece.length) this.#body(piece, start);
  }

  /** Reads the optional `data:` header; returns where the body starts in `piece`. */
  #header(piece: Uint8Array): number {
    let i = 0;
    while (i < piece.length) {
      const b = piece[i]!;
      if (this.#inHeader) {
        i++;
        this.#position++;
        if (b === 0x2c) {
          // `data:[<media type>][;params];base64,` only: any other data URL is not base64.
          if (!/;base64$/i.test(this.#head)) {
            throw new Base64DataError('a data: URL that is not base64');
          }
          this.#head = '';
          this.#headDone = true;
          return i;
        }
        this.#head += String.fromCharCode(b);
        if (this.#head.length > MAX_HEADER) throw new Base64DataError('a data: URL header that never ends');
        continue;
      }
      if (this.#head.length === 0 && TABLE[b] === -2) {
        i++;
        this.#position++;
        continue;
      }
      const next = this.#head + String.fromCharCode(b);
      if (DATA_PREFIX.startsWith(next.toLowerCase())) {
        this.#head = next;
        this.#sawAny = true;
        i++;
        this.#position++;
        if (next.length === DATA_PREFIX.length) this.#inHeader = true;
        continue;
      }
      // Not a data URL: what was held back is ordinary base64 (e.g. a value starting "dat").
      const held = this.#head;
      this.#head = '';
      this.#headDone = true;
      this.#position -= held.length;
      if (held) this.#body(Buffer.from(held, 'latin1'), 0);
      return i;
    }
    return i;
  }

  /**
   * Decodes `piece` from `start`. At a quartet boundary, a run of at least {@link NATIVE_MIN} characters
   * goes to Node's native decoder when it passes the checks of {@link #native}; otherwise (or when the
   * run holds anything else) four characters of the alphabet in use at a time go through a tight loop,
   * and everything left — whitespace, padding, the first `+/` or `-_`, a stray character — goes through
   * the byte table one character at a time, which is also what checks it. Every path gives the same bytes.
   */
  #body(piece: Uint8Array, start: number): void {
    const out = this.#space(Math.ceil(((piece.length - start) * 3) / 4) + 3);
    let o = 0;
    let quad = this.#quad;
    let count = this.#count;
    let i = start;
    const end = piece.length;
    // One try per piece: after a miss the rest of the piece goes through the loops (a line-wrapped value
    // would otherwise be tried again after every line break).
    let tryNative = this.#nativeMisses < MAX_NATIVE_MISSES;
    while (i < end) {
      if (count === 0 && this.#padding === 0) {
        if (tryNative && end - i >= NATIVE_MIN) {
          tryNative = false;
          let run = (end - i) & ~3;
          // A final quartet with padding goes through the byte table (the native decoder stops at `=`).
          if (piece[i + run - 1] === 0x3d) run -= 4;
          const decoded = this.#native(piece, i, run, out, o);
          if (decoded > 0) {
            o += decoded;
            i += run;
            if (i >= end) break;
            continue;
          }
          this.#nativeMisses++;
        }
        const pairs = this.#pairs;
        while (i + 4 <= end) {
          // ab and cd, 12 bits each: the three bytes are ab's top 8, ab's low 4 and cd's top 4, cd's low 8.
          const ab = pairs[piece[i]! | (piece[i + 1]! << 8)]!;
          const cd = pairs[piece[i + 2]! | (piece[i + 3]! << 8)]!;
          if ((ab | cd) < 0) break;
          out[o] = ab >> 4;
          out[o + 1] = ((ab & 0x0f) << 4) | (cd >> 8);
          out[o + 2] = cd;
          o += 3;
          i += 4;
        }
        if (i >= end) break;
      }
      const b = piece[i]!;
      const v = TABLE[b]!;
      i++;
      if (v >= 0) {
        if (this.#padding > 0) this.#bad('a base64 character after the padding', i - 1 - start);
        if (v >= 62) this.#alphabet(b);
        quad = (quad << 6) | v;
        if (++count === 4) {
          out[o++] = (quad >> 16) & 0xff;
          out[o++] = (quad >> 8) & 0xff;
          out[o++] = quad & 0xff;
          quad = 0;
          count = 0;
        }
        continue;
      }
      if (v === -2) continue;
      if (v === -3) {
        if (++this.#padding > 2) this.#bad('more than two padding characters', i - 1 - start);
        continue;
      }
      this.#bad(`a character outside base64 (byte 0x${b.toString(16).padStart(2, '0')})`, i - 1 - start);
    }
    this.#sawAny ||= o > 0 || count > 0;
    this.#position += piece.length - start;
    this.#quad = quad;
    this.#count = count;
    if (o > 0) this.#onBytes(out.subarray(0, o));
  }

  /**
   * Decodes the `run` characters (a multiple of 4) of `piece` at `at` with Node's native decoder into
   * `out` at `o`; returns the bytes decoded, or 0 when the run is not plain base64 of the value's
   * alphabet (the caller's loops then decode and check it). The native decoder skips what it cannot
   * read — a stray byte, whitespace — and stops at `=`, so it gives exactly `run / 4 * 3` bytes only when
   * every character is of one of the two alphabets (test/unit/stream-parsing.test.ts tries every byte
   * value); it takes both alphabets at once, so `Buffer.indexOf` (memchr) looks for the two characters of
   * the alphabet the value must not use, and picks the alphabet of a value that has not shown one yet.
   * The latin1 string it needs is a copy of the run in V8's young generation, dead at once.
   */
  #native(piece: Uint8Array, at: number, run: number, out: Buffer, o: number): number {
    const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.length);
    const view = bytes.subarray(at, at + run);
    const has = (a: number, b: number) => view.indexOf(a) !== -1 || view.indexOf(b) !== -1;
    let picked = 0;
    if (this.#standard) {
      if (has(0x2d, 0x5f)) return 0;
    } else if (this.#urlSafe) {
      if (has(0x2b, 0x2f)) return 0;
    } else {
      const standard = has(0x2b, 0x2f);
      const urlSafe = has(0x2d, 0x5f);
      if (standard && urlSafe) return 0;
      if (standard) picked = 0x2b;
      else if (urlSafe) picked = 0x2d;
    }
    const expected = (run >> 2) * 3;
    const written = out.write(bytes.toString('latin1', at, at + run), o, expected, 'base64');
    if (written !== expected) return 0;
    if (picked) this.#alphabet(picked);
    return written;
  }

  /** Notes the alphabet of `+`, `/`, `-` or `_`; both alphabets at once mean a mangled value, not a dialect. */
  #alphabet(byte: number): void {
    if (byte === 0x2b || byte === 0x2f) this.#standard = true;
    else this.#urlSafe = true;
    if (this.#standard && this.#urlSafe) throw new Base64DataError('a value mixing both base64 alphabets');
    this.#pairs = pairsOf(this.#standard ? 'standard' : 'urlSafe');
  }

  #bad(problem: string, indexInPiece: number): never {
    throw new Base64DataError(`${problem} at character ${this.#position + indexInPiece}`);
  }

  /** The value is complete: flushes the last bytes, throws if it cannot be base64. */
  end(): void {
    if (!this.#headDone) {
      if (this.#inHeader) throw new Base64DataError('a data: URL without a comma');
      const held = this.#head;
      this.#head = '';
      this.#headDone = true;
      if (held) this.#body(Buffer.from(held, 'latin1'), 0);
    }
    const quad = this.#quad;
    if (this.#count === 1) throw new Base64DataError('a base64 value whose length is not possible (4n+1)');
    if (this.#count >= 2) {
      const out = this.#space(2);
      out[0] = this.#count === 2 ? (quad >> 4) & 0xff : (quad >> 10) & 0xff;
      out[1] = (quad >> 2) & 0xff;
      this.#onBytes(out.subarray(0, this.#count - 1));
    }
    this.#quad = 0;
    this.#count = 0;
  }
}
