import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  parseRetryAfter,
  RateLimitError,
  RequestValidationError,
  ServerError,
  ServiceError,
  serviceErrorFields,
  serviceErrorFromResponse,
  UnauthorizedError,
} from '../../shared/client/errors';

describe('serviceErrorFromResponse', () => {
  it("says status, code and a reason of ours, never the service's words", () => {
    // Prepare
    const echoed = `invalid value for name: ${'Jane Specimen '.repeat(40)}\nsecond line`;

    // Act
    const short = serviceErrorFromResponse(400, { code: 3, message: 'NotEnoughBalance' }, new Headers());
    const long = serviceErrorFromResponse(400, { code: 3, message: echoed }, new Headers());

    // Assess
    expect(short.message).toBe('service answered 400 (bad request, code 3)');
    expect(long.message).toBe('service answered 400 (bad request, code 3)');
  });

  it.each([
    [400, BadRequestError],
    [401, UnauthorizedError],
    [403, ForbiddenError],
    [404, NotFoundError],
    [429, RateLimitError],
    [500, ServerError],
    [503, ServerError],
    [409, ServiceError],
  ])('maps %i to %s', (status, type) => {
    // Act
    const error = serviceErrorFromResponse(status, undefined, new Headers());

    // Assess
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.status).toBe(status);
    expect(error.name).toBe(type.name);
  });

  it('takes code from the default error body (not its message or details) and the request id from a header', () => {
    // Prepare
    const body = { code: 16, message: 'Unauthorized', details: [{ field: 'x' }] };
    const headers = new Headers({ 'x-request-id': 'req-1' });

    // Act
    const error = serviceErrorFromResponse(401, body, headers);

    // Assess
    expect(error.message).toBe('service answered 401 (unauthorized, code 16)');
    expect(error.code).toBe(16);
    expect(error).not.toHaveProperty('details');
    expect(error.requestId).toBe('req-1');
  });

  it('ignores a body that is not the error shape', () => {
    // Act
    const error = serviceErrorFromResponse(500, { code: 'not a number' }, new Headers());

    // Assess
    expect(error.message).toBe('service answered 500 (internal server error)');
    expect(error.code).toBeUndefined();
  });

  it('reads Retry-After in seconds and as an HTTP date', () => {
    // Prepare
    const now = Date.parse('2026-08-10T12:00:00Z');

    // Act
    const seconds = serviceErrorFromResponse(429, undefined, new Headers({ 'retry-after': '3' }), () => now);
    const date = serviceErrorFromResponse(
      503,
      undefined,
      new Headers({ 'retry-after': 'Mon, 10 Aug 2026 12:00:07 GMT' }),
      () => now,
    );

    // Assess
    expect(seconds.retryAfterMs).toBe(3000);
    expect(date.retryAfterMs).toBe(7000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('Mon, 10 Aug 2026 11:00:00 GMT', now)).toBe(0);
  });
});

describe('RequestValidationError', () => {
  it('lists every issue as path: message', () => {
    // Act
    const error = new RequestValidationError(
      [
        { path: 'images[0].data', message: 'must be base64' },
        { path: 'product', message: 'is required' },
      ],
      'invalid identity upload request',
    );

    // Assess
    expect(error.message).toBe(
      'invalid identity upload request: images[0].data: must be base64; product: is required',
    );
    expect(error.issues).toHaveLength(2);
  });
});

describe('serviceErrorFields', () => {
  it('carries status, code and request id over to a restated error, and nothing else', () => {
    // Prepare
    const original = serviceErrorFromResponse(
      401,
      { code: 16, message: 'Unauthorized', details: ['x'] },
      new Headers({ 'x-request-id': 'req-9', 'retry-after': '5' }),
    );

    // Act
    const restated = new UnauthorizedError('restated', serviceErrorFields(original), { cause: original });

    // Assess
    expect(serviceErrorFields(original)).toEqual({ status: 401, code: 16, requestId: 'req-9' });
    expect(restated).toMatchObject({ status: 401, code: 16, requestId: 'req-9', cause: original });
  });
});
