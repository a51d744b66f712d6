/**
 * Validation of the identifiers a request carries in its path or headers (resultId, `mock-test`): what the
 * pipeline functions need of `./validate`, without its request schemas (the functions bundle no zod).
 */
import { MOCK_TEST_VALUES } from '../api/enums';
import { RESULT_ID_PATTERN, RESULT_ID_RULE } from '../api/result-id';
import { RequestValidationError } from './errors';

/** Throws `RequestValidationError` naming `resultId` unless it matches `RESULT_ID_PATTERN`. */
export function validateResultId(resultId: unknown): string {
  if (typeof resultId !== 'string' || !RESULT_ID_PATTERN.test(resultId)) {
    throw new RequestValidationError(
      [{ path: 'resultId', message: RESULT_ID_RULE }],
      'invalid result request',
    );
  }
  return resultId;
}

/** Throws `RequestValidationError` unless `value` is a `mock-test` value of the spec (§1). */
export function validateMockTest(value: unknown): (typeof MOCK_TEST_VALUES)[number] {
  if (!(MOCK_TEST_VALUES as readonly unknown[]).includes(value)) {
    throw new RequestValidationError(
      [{ path: 'mockTest', message: `must be one of ${MOCK_TEST_VALUES.join(', ')}` }],
      'invalid mock-test value',
    );
  }
  return value as (typeof MOCK_TEST_VALUES)[number];
}
