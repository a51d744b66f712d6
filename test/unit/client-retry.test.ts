import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConnectionError,
  RateLimitError,
  ResponseFormatError,
  ServerError,
} from '../../shared/client/errors';
import { shouldRetry } from '../../shared/client/retry';

const half = () => 0.5;
const refused = () => new ConnectionError('x', { timedOut: false, notSent: true });
const reset = () => new ConnectionError('x', { timedOut: false, notSent: false });
const timeout = () => new ConnectionError('x', { timedOut: true, notSent: false });
const server = (status: number, retryAfterMs?: number) =>
  new ServerError('x', { status, ...(retryAfterMs !== undefined && { retryAfterMs }) });
const limited = (retryAfterMs?: number) =>
  new RateLimitError('x', { status: 429, ...(retryAfterMs !== undefined && { retryAfterMs }) });

describe('shouldRetry', () => {
  it.each([
    ['a refused connection', refused()],
    ['a reset connection', reset()],
    ['a timeout', timeout()],
    ['a 500', server(500)],
    ['a 502', server(502)],
    ['a 429 without Retry-After', limited()],
  ])('retries a GET after %s', (_label, error) => {
    // Act
    const decision = shouldRetry(
      { attempt: 1, method: 'GET', mayHaveCreated: false, error },
      { random: half },
    );

    // Assess
    expect(decision.retry).toBe(true);
  });

  it.each([
    ['a reset connection', reset()],
    ['a timeout', timeout()],
    ['a 500', server(500)],
    ['a 503 without Retry-After', server(503)],
    ['a 429 without Retry-After', limited()],
  ])('never repeats a creating POST after %s', (_label, error) => {
    // Act
    const decision = shouldRetry({ attempt: 1, method: 'POST', mayHaveCreated: true, error });

    // Assess
    expect(decision).toEqual({ retry: false, delayMs: 0 });
  });

  it.each([
    ['a reset connection', reset()],
    ['a timeout', timeout()],
    ['a 500', server(500)],
  ])('never repeats a creating GET (SDK token) after %s', (_label, error) => {
    // Act
    const decision = shouldRetry({ attempt: 1, method: 'GET', mayHaveCreated: true, error });

    // Assess
    expect(decision).toEqual({ retry: false, delayMs: 0 });
  });

  it('repeats a creating POST whose connection was refused before sending', () => {
    // Act
    const decision = shouldRetry(
      { attempt: 1, method: 'POST', mayHaveCreated: true, error: refused() },
      { random: half },
    );

    // Assess
    expect(decision).toEqual({ retry: true, delayMs: 100 });
  });

  it.each([
    ['429', limited(1500)],
    ['503', server(503, 1500)],
  ])('repeats a creating POST refused with %s and Retry-After, waiting as asked', (_label, error) => {
    // Act
    const decision = shouldRetry({ attempt: 1, method: 'POST', mayHaveCreated: true, error });

    // Assess
    expect(decision).toEqual({ retry: true, delayMs: 1500 });
  });

  it('gives up on a Retry-After longer than the cap instead of sending earlier than asked', () => {
    // Act
    const tooLong = shouldRetry(
      { attempt: 1, method: 'GET', mayHaveCreated: false, error: limited(3_600_000) },
      { maxRetryAfterMs: 10_000 },
    );
    const atCap = shouldRetry(
      { attempt: 1, method: 'GET', mayHaveCreated: false, error: server(503, 10_000) },
      { maxRetryAfterMs: 10_000 },
    );

    // Assess
    expect(tooLong).toEqual({ retry: false, delayMs: 0 });
    expect(atCap).toEqual({ retry: true, delayMs: 10_000 });
  });

  it('retries a POST that only checks something (quality) after a 5xx', () => {
    // Act
    const decision = shouldRetry({ attempt: 1, method: 'POST', mayHaveCreated: false, error: server(500) });

    // Assess
    expect(decision.retry).toBe(true);
  });

  it.each([
    ['a 400', new BadRequestError('x', { status: 400 })],
    ['a malformed response', new ResponseFormatError('x', 200)],
    ['an unknown error', new Error('boom')],
  ])('does not retry %s', (_label, error) => {
    // Act
    const decision = shouldRetry({ attempt: 1, method: 'GET', mayHaveCreated: false, error });

    // Assess
    expect(decision.retry).toBe(false);
  });

  it('gives up after the last attempt (default 3)', () => {
    // Act
    const second = shouldRetry({ attempt: 2, method: 'GET', mayHaveCreated: false, error: server(500) });
    const third = shouldRetry({ attempt: 3, method: 'GET', mayHaveCreated: false, error: server(500) });

    // Assess
    expect(second.retry).toBe(true);
    expect(third.retry).toBe(false);
  });

  it('backs off exponentially with full jitter, capped', () => {
    // Prepare
    const almostOne = () => 0.999_999;
    const delay = (attempt: number) =>
      shouldRetry(
        { attempt, method: 'GET', mayHaveCreated: false, error: server(500) },
        { random: almostOne, maxAttempts: 20 },
      ).delayMs;

    // Act
    const delays = [1, 2, 3, 4, 5, 6, 10].map(delay);

    // Assess
    expect(delays).toEqual([199, 399, 799, 1599, 3199, 4999, 4999]);
    expect(
      shouldRetry(
        { attempt: 1, method: 'GET', mayHaveCreated: false, error: server(500) },
        { random: () => 0 },
      ).delayMs,
    ).toBe(0);
  });
});
