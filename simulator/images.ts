/**
 * Real image bytes for simulated results and for tests: JPEG through `jpeg-js`, PNG written by hand
 * (zlib-deflated scanlines, CRC-32 per chunk). Pixels are synthetic (a document-like card, a
 * portrait-like oval) with a seeded texture, so sizes are realistic (100–400 KB) and output is
 * deterministic. Generation costs tens of milliseconds, so results draw from a cached pool.
 */
import { deflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { createPrng, deriveSeed } from './prng';

/** RGBA pixels plus their size. */
interface Raster {
  width: number;
  height: number;
  data: Buffer;
}

type Painter = (x: number, y: number) => [number, number, number];

function paint(width: number, height: number, seed: number, noise: number, painter: Painter): Raster {
  const prng = createPrng(seed);
  const data = Buffer.alloc(width * height * 4);
  let i = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = painter(x, y);
      // Sensor-like grain: without it the images compress to a few KB, unlike real captures.
      const n = (prng.next() - 0.5) * noise;
      data[i++] = clamp(r + n);
      data[i++] = clamp(g + n);
      data[i++] = clamp(b + n);
      data[i++] = 255;
    }
  }
  return { width, height, data };
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

/** A card-like document page: tinted guilloche background, a photo box, text bars, an MRZ band. */
function documentPainter(width: number, height: number, seed: number): Painter {
  const prng = createPrng(deriveSeed(seed, 'document'));
  const hue = [150 + prng.int(80), 160 + prng.int(70), 170 + prng.int(60)] as const;
  const freq = 0.02 + prng.next() * 0.03;
  const photo = { x0: width * 0.06, y0: height * 0.2, x1: width * 0.32, y1: height * 0.78 };
  return (x, y) => {
    if (x >= photo.x0 && x < photo.x1 && y >= photo.y0 && y < photo.y1) {
      const cx = (photo.x0 + photo.x1) / 2;
      const cy = (photo.y0 + photo.y1) / 2;
      const d = ((x - cx) / (photo.x1 - photo.x0)) ** 2 + ((y - cy) / (photo.y1 - photo.y0)) ** 2;
      return d < 0.09 ? [205, 170, 150] : [120, 130, 150];
    }
    const textRow = y > height * 0.22 && y < height * 0.7 && x > width * 0.38 && x < width * 0.9;
    if (textRow && Math.floor(y / 18) % 3 === 0 && Math.sin(x * 0.7) > -0.2) return [40, 40, 55];
    if (y > height * 0.82 && y < height * 0.95 && x > width * 0.05 && x < width * 0.95) {
      return Math.sin(x * 0.9) > 0.3 && Math.floor(y / 14) % 2 === 0 ? [30, 30, 30] : [235, 235, 230];
    }
    const wave = Math.sin(x * freq + Math.sin(y * freq * 1.7) * 3) * 25;
    return [hue[0] + wave, hue[1] + wave * 0.6, hue[2] - wave * 0.4];
  };
}

/** A portrait-like picture: a skin-toned oval on a plain background. */
function portraitPainter(width: number, height: number, seed: number): Painter {
  const prng = createPrng(deriveSeed(seed, 'portrait'));
  const bg = [170 + prng.int(60), 180 + prng.int(50), 190 + prng.int(50)] as const;
  const skin = [150 + prng.int(90), 110 + prng.int(70), 90 + prng.int(60)] as const;
  return (x, y) => {
    const dx = (x - width / 2) / (width * 0.3);
    const dy = (y - height * 0.45) / (height * 0.32);
    const d = dx * dx + dy * dy;
    if (d < 1) {
      const shade = (1 - d) * 30;
      return [skin[0] + shade, skin[1] + shade, skin[2] + shade];
    }
    if (y > height * 0.78) return [60, 70, 90];
    return [bg[0] - y * 0.05, bg[1] - y * 0.05, bg[2] - y * 0.03];
  };
}

/** Kinds of picture the simulator generates. */
export type PictureKind = 'document' | 'portrait';

/** A JPEG of `width`×`height` showing a `kind` picture, deterministic for `seed`. */
export function generateJpeg(
  width: number,
  height: number,
  seed = 1,
  kind: PictureKind = 'document',
): Buffer {
  const painter =
    kind === 'document' ? documentPainter(width, height, seed) : portraitPainter(width, height, seed);
  const raster = paint(width, height, seed, 28, painter);
  return jpeg.encode(raster, 88).data;
}

/** A PNG (8-bit RGB) of `width`×`height` showing a `kind` picture, deterministic for `seed`. */
export function generatePng(width: number, height: number, seed = 1, kind: PictureKind = 'portrait'): Buffer {
  const painter =
    kind === 'document' ? documentPainter(width, height, seed) : portraitPainter(width, height, seed);
  const raster = paint(width, height, seed, 6, painter);
  return encodePng(raster);
}

function encodePng(raster: Raster): Buffer {
  const { width, height, data } = raster;
  const stride = width * 3 + 1;
  const scanlines = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    // Filter type 1 (Sub): what real encoders pick for photos, and it keeps files realistic in size.
    const row = y * stride;
    scanlines[row] = 1;
    for (let x = 0; x < width; x++) {
      const src = (y * width + x) * 4;
      for (let c = 0; c < 3; c++) {
        const left = x > 0 ? data[src - 4 + c]! : 0;
        scanlines[row + 1 + x * 3 + c] = (data[src + c]! - left) & 0xff;
      }
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(scanlines, { level: 6 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as used by PNG chunks (ISO 3309). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** One pooled picture: its bytes already base64-encoded, since results carry base64. */
export interface PooledImage {
  readonly base64: string;
  readonly contentType: 'image/jpeg' | 'image/png';
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
}

/** Pool slots: what a result needs, at the sizes real captures have. */
export const IMAGE_SLOTS = {
  documentFront: { format: 'jpeg', kind: 'document', width: 1024, height: 640 },
  documentBack: { format: 'jpeg', kind: 'document', width: 1024, height: 640 },
  // At least 640 × 480 (§8), like every upload: a result's portrait passes POST /facequality.
  portrait: { format: 'png', kind: 'portrait', width: 640, height: 820 },
  live: { format: 'jpeg', kind: 'portrait', width: 720, height: 960 },
  signature: { format: 'png', kind: 'document', width: 600, height: 200 },
} as const;
export type ImageSlot = keyof typeof IMAGE_SLOTS;

/** Variants generated per slot; results pick one per transaction. */
export const POOL_VARIANTS = 3;

const pool = new Map<string, PooledImage>();

/**
 * A pooled image of `slot`, variant `variant % POOL_VARIANTS`. Generated on first use and cached for
 * the process, so a busy simulator does no image work per request.
 */
export function pooledImage(slot: ImageSlot, variant: number): PooledImage {
  const v = ((variant % POOL_VARIANTS) + POOL_VARIANTS) % POOL_VARIANTS;
  const key = `${slot}:${v}`;
  let image = pool.get(key);
  if (!image) {
    const spec = IMAGE_SLOTS[slot];
    const seed = deriveSeed(v + 1, slot);
    const bytes =
      spec.format === 'jpeg'
        ? generateJpeg(spec.width, spec.height, seed, spec.kind)
        : generatePng(spec.width, spec.height, seed, spec.kind);
    image = {
      base64: bytes.toString('base64'),
      contentType: spec.format === 'jpeg' ? 'image/jpeg' : 'image/png',
      width: spec.width,
      height: spec.height,
      bytes: bytes.length,
    };
    pool.set(key, image);
    shareBase64(image.base64);
  }
  return image;
}

/** Base64 strings many results share (pooled images, hosted-flow samples): their JSON bytes are cached. */
const shared = new Set<string>();

/** Marks `base64` as shared by many results, so `jsonStringBytes` keeps its JSON bytes. */
export function shareBase64(base64: string): void {
  shared.add(base64);
}

const jsonStrings = new Map<string, Buffer>();

/**
 * `s` as a JSON string literal in UTF-8, cached for shared strings: pooled base64 strings are shared by
 * every result, so serialising a result can splice these bytes in instead of re-escaping megabytes per
 * request. An uploaded image's base64 belongs to one result and is not kept. Only for strings that need
 * no JSON escaping (base64).
 */
export function jsonStringBytes(s: string): Buffer {
  const cached = jsonStrings.get(s);
  if (cached) return cached;
  const b = Buffer.from(`"${s}"`, 'latin1');
  if (shared.has(s)) jsonStrings.set(s, b);
  return b;
}
