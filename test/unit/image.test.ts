import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { imageDimensions, sniffContentType } from '../../shared/image';
import { gifHeader, tiffHeader, webpHeader } from '../support/image-headers';
import { pngHeaderOnly as png } from '../support/png';

describe('image sniffing', () => {
  it('reads PNG dimensions', () => {
    const bytes = png(800, 600);
    expect(sniffContentType(bytes)).toEqual({ contentType: 'image/png', extension: 'png' });
    expect(imageDimensions(bytes)).toEqual({ width: 800, height: 600 });
  });

  it('reads JPEG dimensions from the frame header', () => {
    // Prepare
    const { data } = jpeg.encode({ data: Buffer.alloc(64 * 48 * 4, 128), width: 64, height: 48 }, 50);

    // Act
    const dims = imageDimensions(data);

    // Assess
    expect(sniffContentType(data).contentType).toBe('image/jpeg');
    expect(dims).toEqual({ width: 64, height: 48 });
  });

  it('recognises a PDF and falls back to octet-stream', () => {
    expect(sniffContentType(Buffer.from('%PDF-1.4\n')).extension).toBe('pdf');
    expect(sniffContentType(Buffer.from('hello'))).toEqual({
      contentType: 'application/octet-stream',
      extension: 'bin',
    });
    expect(imageDimensions(Buffer.from('hello'))).toBeUndefined();
  });

  it.each([
    ['WebP (VP8)', webpHeader(800, 600, 'VP8 '), 'image/webp', { width: 800, height: 600 }],
    ['WebP (VP8L)', webpHeader(1024, 768, 'VP8L'), 'image/webp', { width: 1024, height: 768 }],
    ['WebP (VP8X)', webpHeader(4000, 3000, 'VP8X'), 'image/webp', { width: 4000, height: 3000 }],
    ['GIF', gifHeader(640, 480), 'image/gif', { width: 640, height: 480 }],
    ['TIFF', tiffHeader(2480, 3508), 'image/tiff', { width: 2480, height: 3508 }],
  ])('reads %s dimensions from the header', (_name, bytes, contentType, size) => {
    // Act
    const dims = imageDimensions(bytes);

    // Assess
    expect(sniffContentType(bytes).contentType).toBe(contentType);
    expect(dims).toEqual(size);
  });

  it('gives nothing for a cut-short TIFF header', () => {
    expect(imageDimensions(tiffHeader(2480, 3508).subarray(0, 20))).toBeUndefined();
  });
});
