/**
 * Headers of WebP, GIF and TIFF images, built by hand from each format's layout: enough for code that
 * reads the pixel size from the header (`imageDimensions`), never for a decoder.
 */

/** A GIF89a header (logical screen descriptor) for `width`×`height`. */
export function gifHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b;
}

/** A RIFF/WEBP file whose first chunk is `VP8 ` (lossy), `VP8L` (lossless) or `VP8X` (extended). */
export function webpHeader(width: number, height: number, chunk: 'VP8 ' | 'VP8L' | 'VP8X'): Buffer {
  const b = Buffer.alloc(40);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(32, 4);
  b.write('WEBP', 8, 'latin1');
  b.write(chunk, 12, 'latin1');
  b.writeUInt32LE(20, 16);
  if (chunk === 'VP8 ') {
    b.set([0x9d, 0x01, 0x2a], 23);
    b.writeUInt16LE(width, 26);
    b.writeUInt16LE(height, 28);
  } else if (chunk === 'VP8L') {
    b[20] = 0x2f;
    b.writeUInt32LE(((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14), 21);
  } else {
    b.writeUIntLE(width - 1, 24, 3);
    b.writeUIntLE(height - 1, 27, 3);
  }
  return b;
}

/** A little-endian TIFF with one IFD holding ImageWidth (SHORT) and ImageLength (LONG). */
export function tiffHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(8 + 2 + 2 * 12 + 4);
  b.write('II', 0, 'latin1');
  b.writeUInt16LE(42, 2);
  b.writeUInt32LE(8, 4);
  b.writeUInt16LE(2, 8);
  b.writeUInt16LE(256, 10);
  b.writeUInt16LE(3, 12);
  b.writeUInt32LE(1, 14);
  b.writeUInt16LE(width, 18);
  b.writeUInt16LE(257, 22);
  b.writeUInt16LE(4, 24);
  b.writeUInt32LE(1, 26);
  b.writeUInt32LE(height, 30);
  return b;
}
