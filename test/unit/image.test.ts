import { deflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { imageDimensions, sniffContentType } from '../../shared/image';

function png(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type), data, Buffer.alloc(4)]);
  };
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    sig,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

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
