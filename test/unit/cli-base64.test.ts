/**
 * The base64 dialects of result data (bin/cli/base64.ts) another implementation of the service may
 * send: each decodes byte-identically; anything that is not base64 in any form is refused.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase64Data } from '../../bin/cli/base64';

const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xfb, 0xff, 0xfe, 0xd9,
]);
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('decodeBase64Data', () => {
  it.each([
    ['plain', JPEG.toString('base64')],
    ['data URL', `data:image/jpeg;base64,${JPEG.toString('base64')}`],
    ['data URL, upper case', `DATA:image/jpeg;name=x.jpg;BASE64,${JPEG.toString('base64')}`],
    ['line breaks', JPEG.toString('base64').replace(/(.{4})/g, '$1\r\n')],
    ['spaces and tabs', ` ${JPEG.toString('base64').replace(/(.{8})/g, '$1 \t')} `],
    ['URL-safe alphabet', JPEG.toString('base64url')],
    ['no padding', JPEG.toString('base64').replace(/=+$/, '')],
  ])('decodes %s byte-identically', (_name, value) => {
    // Act
    const bytes = decodeBase64Data(value);

    // Assess
    expect(bytes && sha(bytes)).toBe(sha(JPEG));
  });

  it.each(['not base64 at all!', 'data:text/plain,hello', 'abcde', 'ab+c-d=='])('refuses %j', (value) => {
    // Assess
    expect(decodeBase64Data(value)).toBeUndefined();
  });
});
