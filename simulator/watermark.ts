/**
 * The simulated FACE_VERIFY SDK watermark (§4.11 `validateWatermark`): the real SDK hides an invisible
 * watermark in the images it takes; the simulator's stand-in is a marker naming the transaction, in a
 * JPEG comment segment or a PNG `tEXt` chunk, so the pixels stay untouched. Tests and tools that play
 * the SDK add it with `addSdkWatermark`; face verify checks it when the SDK token asked for it.
 */
import { crc32 } from './images';

const MARKER = 'idv-sim-watermark:';

function marker(transactionId: string): Buffer {
  return Buffer.from(`${MARKER}${transactionId}`, 'latin1');
}

/** `image` (JPEG or PNG) with the SDK watermark of `transactionId`; other formats are returned as is. */
export function addSdkWatermark(image: Buffer, transactionId: string): Buffer {
  const text = marker(transactionId);
  if (image[0] === 0xff && image[1] === 0xd8) {
    // A COM segment right after SOI: marker, then a length that counts itself.
    const head = Buffer.from([0xff, 0xfe, 0, 0]);
    head.writeUInt16BE(text.length + 2, 2);
    return Buffer.concat([image.subarray(0, 2), head, text, image.subarray(2)]);
  }
  if (image[0] === 0x89 && image.subarray(1, 4).toString('latin1') === 'PNG') {
    // After the signature (8) and the IHDR chunk (25): a tEXt chunk `Comment\0<marker>`.
    const data = Buffer.concat([Buffer.from('Comment\0', 'latin1'), text]);
    const chunk = Buffer.alloc(12 + data.length);
    chunk.writeUInt32BE(data.length, 0);
    chunk.write('tEXt', 4, 'latin1');
    data.copy(chunk, 8);
    chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
    return Buffer.concat([image.subarray(0, 33), chunk, image.subarray(33)]);
  }
  return image;
}

/** Whether `image` carries the SDK watermark of `transactionId`. */
export function hasSdkWatermark(image: Buffer, transactionId: string): boolean {
  return image.includes(marker(transactionId));
}
