import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { imageDimensions, sniffContentType } from '../../shared/image';
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
});
