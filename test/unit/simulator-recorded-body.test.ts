import { describe, expect, it } from 'vitest';
import { RECORDED_BODY_BYTES, RECORDED_STRING_CHARS, recordedBody } from '../../simulator/recorded-body';

describe('what sim.requests keeps of a body', () => {
  it('keeps a small body whole, however long its strings', () => {
    // Prepare
    const body = { reference: 'r'.repeat(RECORDED_STRING_CHARS + 1) };

    // Act
    const kept = recordedBody(body, RECORDED_BODY_BYTES);

    // Assess
    expect(kept).toBe(body);
  });

  it('keeps a large body by its shape: long strings and values past the budget become markers', () => {
    // Prepare
    const data = 'A'.repeat(RECORDED_STRING_CHARS + 1);
    const body = {
      images: [{ type: 'PASSPORT', data, customerReference: 'front' }],
      many: Array.from({ length: 5000 }, (_, i) => i),
    };

    // Act
    const kept = recordedBody(body, RECORDED_BODY_BYTES + 1) as {
      images: unknown[];
      many: unknown[];
    };

    // Assess
    expect(kept.images).toEqual([
      { type: 'PASSPORT', data: `[${data.length} characters omitted]`, customerReference: 'front' },
    ]);
    expect(kept.many.length).toBeLessThan(600);
    expect(kept.many.at(-1)).toMatch(/^\[\d+ more omitted\]$/);
    expect(JSON.stringify(kept).length).toBeLessThan(8 * 1024);
  });
});
