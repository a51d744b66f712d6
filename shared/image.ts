/**
 * Content sniffing from magic numbers, shared by the client (upload size checks), the result store
 * (content type and file extension of decoded images and reports), the CLI and the simulator.
 * Nothing here trusts a declared type: only the bytes decide.
 */

/** What the bytes are, as far as this pipeline cares. */
export interface SniffedType {
  readonly contentType: string;
  readonly extension: string;
}

const OCTET_STREAM: SniffedType = { contentType: 'application/octet-stream', extension: 'bin' };

/** Content type and file extension from the first bytes; `application/octet-stream`/`bin` when unknown. */
export function sniffContentType(bytes: Uint8Array): SniffedType {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { contentType: 'image/jpeg', extension: 'jpg' };
  }
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { contentType: 'image/png', extension: 'png' };
  }
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d]))
    return { contentType: 'application/pdf', extension: 'pdf' };
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return { contentType: 'image/gif', extension: 'gif' };
  if (
    startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) &&
    startsWith(bytes.subarray(8), [0x57, 0x45, 0x42, 0x50])
  ) {
    return { contentType: 'image/webp', extension: 'webp' };
  }
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { contentType: 'image/tiff', extension: 'tif' };
  }
  return OCTET_STREAM;
}

/**
 * Pixel size of a JPEG, PNG, WebP, GIF or TIFF image read from its header, or `undefined` if it cannot
 * be read (another format, or a header cut short).
 */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  const type = sniffContentType(bytes).contentType;
  if (type === 'image/png') return pngDimensions(bytes);
  if (type === 'image/jpeg') return jpegDimensions(bytes);
  if (type === 'image/webp') return webpDimensions(bytes);
  if (type === 'image/gif') return gifDimensions(bytes);
  if (type === 'image/tiff') return tiffDimensions(bytes);
  return undefined;
}

function gifDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  // "GIF89a" (6), then the logical screen width and height, little-endian.
  if (bytes.length < 10) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint16(6, true), height: view.getUint16(8, true) };
}

function webpDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  // RIFF header (12), then the first chunk: VP8 (lossy), VP8L (lossless) or VP8X (extended).
  if (bytes.length < 30) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunk = String.fromCharCode(bytes[12]!, bytes[13]!, bytes[14]!, bytes[15]!);
  if (chunk === 'VP8 ') {
    // Frame tag (3) and start code (3) after the chunk header, then 14-bit width and height.
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    const w = bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16);
    const h = bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16);
    return { width: w + 1, height: h + 1 };
  }
  return undefined;
}

function tiffDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 8) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = bytes[0] === 0x49;
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > bytes.length) return undefined;
  const entries = view.getUint16(ifd, little);
  let width: number | undefined;
  let height: number | undefined;
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > bytes.length) return undefined;
    const tag = view.getUint16(entry, little);
    const type = view.getUint16(entry + 2, little);
    // ImageWidth (256) and ImageLength (257) are SHORT (3) or LONG (4) values stored in place.
    const value = type === 3 ? view.getUint16(entry + 8, little) : view.getUint32(entry + 8, little);
    if (tag === 256) width = value;
    if (tag === 257) height = value;
  }
  return width !== undefined && height !== undefined ? { width, height } : undefined;
}

function pngDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  // Signature (8) + IHDR length (4) + "IHDR" (4) + width (4) + height (4).
  if (bytes.length < 24) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** Start-of-frame markers that carry the frame size (SOF0–SOF15 without DHT, JPG and DAC). */
const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1]!;
    // Fill bytes and standalone markers have no length field.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    const length = view.getUint16(offset + 2);
    if (SOF_MARKERS.has(marker)) {
      if (offset + 9 > bytes.length) return undefined;
      return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
    }
    if (marker === 0xda || length < 2) return undefined;
    offset += 2 + length;
  }
  return undefined;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  if (bytes.length < prefix.length) return false;
  return prefix.every((b, i) => bytes[i] === b);
}
