import { describe, expect, it } from 'vitest';
import { idVerifyRequestSchema, resultSchema } from '../../shared/api/schemas';
import { pollOf } from '../support/pipeline-fakes';

describe('api schemas', () => {
  it('keeps unknown response fields and unknown enum values', () => {
    // Prepare
    const body = {
      result: 'SOMETHING_NEW',
      newField: { a: 1 },
      images: [{ data: 'AA==', documentType: 'X' }],
    };

    // Act
    const parsed = resultSchema.parse(body);

    // Assess
    expect(parsed.result).toBe('SOMETHING_NEW');
    expect(parsed['newField']).toEqual({ a: 1 });
    expect(parsed.images?.[0]?.documentType).toBe('X');
  });

  it('keeps the other poll records when one has no usable resultId', () => {
    // Prepare
    const body = {
      results: [
        { resultId: 'r-1', product: 'IDV_LITE' },
        { transactionId: 't-2' },
        { resultId: 42 },
        { resultId: true },
      ],
    };

    // Act
    const parsed = pollOf(body);

    // Assess
    // A JSON number is another implementation's numeric id, taken as its decimal string.
    expect(parsed.results.map((r) => r.resultId)).toEqual(['r-1', '', '42', '']);
    expect(parsed.results[1]?.transactionId).toBe('t-2');
  });

  it('defaults a missing poll results array to empty', () => {
    expect(pollOf({}).results).toEqual([]);
  });

  it.each([{}, { results: null }])('reads the poll answer %j as no records', (body) => {
    // Assess
    expect(pollOf(body).results).toEqual([]);
  });

  it('parses a result for the CLI when an image or file has no data', () => {
    // Act
    const parsed = resultSchema.safeParse({
      images: [{ documentType: 'PASSPORT' }],
      files: [{ data: null }],
    });

    // Assess
    expect(parsed.success).toBe(true);
    expect(parsed.data?.images?.[0]?.data).toBe('');
  });

  it('rejects a request with a wrong enum, naming the field', () => {
    const outcome = idVerifyRequestSchema.safeParse({ product: 'IDV_PREMIUM', images: [{ data: 'AA==' }] });
    expect(outcome.success).toBe(false);
    expect(outcome.error?.issues[0]?.path).toEqual(['product']);
  });

  it('rejects unknown request fields', () => {
    const outcome = idVerifyRequestSchema.safeParse({
      product: 'IDV_LITE',
      images: [{ data: 'AA==' }],
      prodcut: 1,
    });
    expect(outcome.success).toBe(false);
  });
});
