/**
 * Each validation error names the flag that caused it (`bin/cli/field-flags.ts`): a field of one value
 * names the value typed, a field about the whole list names the bare flag, and the service's dotted paths
 * (`images.2.data`) name the same value as the client's bracketed ones (`images[2].data`).
 */
import { describe, expect, it } from 'vitest';
import { typedFlagOfField } from '../../bin/cli/field-flags';

const values = {
  image: ['COMPARE=c.jpg', 'LIVE=a.jpg', 'LIVE=b.jpg'],
  mode: ['MODE_EMAIL'],
  language: 'dutch',
};

describe('the flag behind a field', () => {
  it.each([
    ['images[2].data', '--image LIVE=b.jpg'],
    ['images.2.data', '--image LIVE=b.jpg'],
    ['images.0', '--image COMPARE=c.jpg'],
    ['images', '--image'],
    ['communicationModes[0]', '--mode MODE_EMAIL'],
    ['communicationModes', '--mode'],
    ['languagePrefix', '--language'],
    ['validateWatermark', '--validate-watermark'],
    ['hasExistingVog', '--existing-vog'],
    ['unknownField', undefined],
  ])('%s → %s', (path, flag) => {
    expect(typedFlagOfField(path, values)).toBe(flag);
  });
});
