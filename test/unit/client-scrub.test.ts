import { describe, expect, it } from 'vitest';
import { describeError } from '../../shared/errors';
import { scrubSecrets } from '../../shared/scrub';

describe('scrubSecrets', () => {
  it.each([
    ['authorization: Bearer abc.def.ghi', 'authorization: Bearer [redacted]'],
    ['Authorization=Basic aWQ6c2VjcmV0', 'Authorization=Basic [redacted]'],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-nature_1 used', 'token [redacted] used'],
    [`echo ${Buffer.from('client-7f3a9:Zq8sKd02LmXv91tR').toString('base64')}!`, 'echo [redacted]!'],
  ])('redacts %s', (text, expected) => {
    // Act / Assess
    expect(scrubSecrets(text)).toBe(expected);
  });

  it.each([
    'GET http://127.0.0.1:4010/api/v2/result/123e4567-e89b-12d3-a456-426614174000',
    'service answered 503 (service unavailable, code 14)',
    'sha256 9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08',
  ])('keeps %s', (text) => {
    // Act / Assess
    expect(scrubSecrets(text)).toBe(text);
  });

  it('is applied by describeError to name, message and a string code', () => {
    // Prepare
    const error = Object.assign(new Error('upstream said Bearer abc.def.ghi'), {
      code: 'Basic aWQ6c2VjcmV0',
    });

    // Act
    const described = JSON.stringify(describeError(error));

    // Assess
    expect(described).not.toContain('abc.def.ghi');
    expect(described).not.toContain('aWQ6c2VjcmV0');
  });
});
