/**
 * The S3 keys of a result (shared/store/keys.ts) for the resultIds another implementation of the service
 * may use: UUIDs and plain ids as they are, every other character escaped into a safe, collision-free segment.
 */
import { describe, expect, it } from 'vitest';
import { resultIdKeyPart, resultJsonKey } from '../../shared/store/keys';

describe('result S3 keys', () => {
  it('keeps UUIDs and plain ids as they are in S3 keys', () => {
    // Assess
    expect(resultJsonKey('0b7e3c52-7f0e-4f7e-9a51-3c2f8d9e6a10')).toBe(
      'results/0b7e3c52-7f0e-4f7e-9a51-3c2f8d9e6a10/result.json',
    );
    expect(resultIdKeyPart('res_1-A')).toBe('res_1-A');
  });

  it('escapes every other character into an S3-safe, collision-free key segment', () => {
    // Act
    const parts = ['res.2026:0001', 'R~42', 'acct@eu+7=', 'res.2E2026', 'a..b'].map(resultIdKeyPart);

    // Assess
    expect(parts).toEqual(['res.2E2026.3A0001', 'R.7E42', 'acct.40eu.2B7.3D', 'res.2E2E2026', 'a.2E.2Eb']);
    for (const part of parts) expect(part).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
    expect(new Set(parts).size).toBe(parts.length);
  });
});
