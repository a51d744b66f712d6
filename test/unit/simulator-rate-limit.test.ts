import { describe, expect, it } from 'vitest';
import { FaultInjector, RateLimiter, rateLimitProblem } from '../../simulator/faults';

describe('simulator rate limit', () => {
  it('lets a burst through, then one request per 1000 / rate ms, and says how many seconds to wait', () => {
    // Arrange
    let now = 0;
    const limiter = new RateLimiter(2, 2, () => now);

    // Act
    const burst = [limiter.take(), limiter.take(), limiter.take()];
    now = 500;
    const afterHalfASecond = [limiter.take(), limiter.take()];

    // Assess
    expect(burst).toEqual([undefined, undefined, 1]);
    expect(afterHalfASecond).toEqual([undefined, 1]);
  });

  it('asks for whole seconds: a slow rate says more than one', () => {
    // Arrange
    const limiter = new RateLimiter(0.25, 1, () => 0);
    limiter.take();

    // Act / Assess
    expect(limiter.take()).toBe(4);
  });

  it('refuses above the rate with a 429 decision on the limited paths only, counted with the 429s', () => {
    // Arrange
    const faults = new FaultInjector(1, () => 0);
    faults.set({ rateLimitPerSecond: 1, paths: ['/api/v2/result'] });

    // Act
    const first = faults.decide('/api/v2/result/a');
    const second = faults.decide('/api/v2/result/b');
    const poll = faults.decide('/api/v2/poll');

    // Assess
    expect(first.action).toBe('none');
    expect(second).toEqual({ delayMs: 0, action: 'rateLimit', retryAfterSeconds: 1 });
    expect(poll.action).toBe('none');
    expect(faults.counts.rateLimit).toBe(1);
  });

  it.each([
    [{ rateLimitPerSecond: 0 }, 'rateLimitPerSecond must be a positive number'],
    [{ rateLimitPerSecond: 5, rateLimitBurst: 0.5 }, 'rateLimitBurst must be a whole number of at least 1'],
    [{ rateLimitPerSecond: 5, rateLimitBurst: 10 }, undefined],
  ])('checks %o', (options, problem) => {
    // Act / Assess
    expect(rateLimitProblem(options)).toBe(problem);
  });
});
