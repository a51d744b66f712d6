import { describe, expect, it } from 'vitest';
import { BadRequestError, RateLimitError, ServerError } from '../../shared/client/errors';
import { type HttpRequest, type TransportOptions, withRetry } from '../../shared/client/http';
import { RequestPacer } from '../../shared/client/pacer';
import { holdOffMs } from '../../shared/client/retry';

/** A fake clock whose sleeps wake in time order when `run` advances it: no real timer anywhere. */
function fakeTime(start = 0) {
  let now = start;
  const timers: { at: number; seq: number; resolve: () => void }[] = [];
  let seq = 0;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        timers.push({ at: now + Math.max(0, ms), seq: seq++, resolve });
      }),
    /** Lets pending work run, then wakes timers one by one in time order until none is left or `until`. */
    async run(until = Number.POSITIVE_INFINITY) {
      await turn();
      for (;;) {
        timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
        const next = timers[0];
        if (!next || next.at > until) break;
        timers.shift();
        now = Math.max(now, next.at);
        next.resolve();
        await turn();
      }
      if (until !== Number.POSITIVE_INFINITY) now = Math.max(now, until);
    },
  };
}

describe('RequestPacer', () => {
  it('lets requests through at once when it has no rate and no hold', async () => {
    // Arrange
    const time = fakeTime(1000);
    const pacer = new RequestPacer({ now: time.now, sleep: time.sleep });

    // Act
    const results = await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]);

    // Assess
    expect(results).toEqual([true, true, true]);
    expect(pacer.stats()).toEqual({ sent: 3, holds: 0, waitedMs: 0 });
  });

  it('spaces requests 1000 / rate ms apart', async () => {
    // Arrange
    const time = fakeTime(0);
    const pacer = new RequestPacer({ ratePerSecond: 10, now: time.now, sleep: time.sleep });
    const sentAt: number[] = [];

    // Act
    const all = Promise.all(
      Array.from({ length: 5 }, async () => {
        await pacer.acquire();
        sentAt.push(time.now());
      }),
    );
    await time.run();
    await all;

    // Assess
    expect(sentAt).toEqual([0, 100, 200, 300, 400]);
  });

  it('holds every waiting request after a Retry-After, then resumes at its pace', async () => {
    // Arrange
    const time = fakeTime(0);
    const pacer = new RequestPacer({ ratePerSecond: 10, now: time.now, sleep: time.sleep });
    await pacer.acquire();
    const sentAt: number[] = [];
    const later = Promise.all(
      [0, 1].map(async () => {
        await pacer.acquire();
        sentAt.push(time.now());
      }),
    );

    // Act: the service answers the first request 429 "retry after 1 s" at t = 50, while the others wait.
    await time.run(50);
    pacer.holdOff(1000);
    await time.run();
    await later;

    // Assess
    expect(sentAt).toEqual([1050, 1150]);
    expect(pacer.stats().holds).toBe(1);
  });

  it('keeps the later of two holds', async () => {
    // Arrange
    const time = fakeTime(0);
    const pacer = new RequestPacer({ now: time.now, sleep: time.sleep });

    // Act
    pacer.holdOff(2000);
    pacer.holdOff(500);

    // Assess
    expect(pacer.openAt()).toBe(2000);
    expect(pacer.stats().holds).toBe(1);
  });

  it('refuses, without waiting or taking a slot, when the gate opens after the deadline', async () => {
    // Arrange
    const time = fakeTime(0);
    const pacer = new RequestPacer({ ratePerSecond: 1, now: time.now, sleep: time.sleep });
    pacer.holdOff(5000);

    // Act
    const refused = await pacer.acquire(4000);
    const allowed = pacer.acquire(6000);
    await time.run();

    // Assess
    expect(refused).toBe(false);
    expect(await allowed).toBe(true);
    expect(time.now()).toBe(5000);
    expect(pacer.stats().sent).toBe(1);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a rate of %s', (rate) => {
    // Act / Assess
    expect(() => new RequestPacer({ ratePerSecond: rate })).toThrow(RangeError);
  });
});

describe('holdOffMs', () => {
  it.each([
    ['a 429 with Retry-After', new RateLimitError('x', { status: 429, retryAfterMs: 2000 }), 2000],
    ['a 503 with Retry-After', new ServerError('x', { status: 503, retryAfterMs: 3000 }), 3000],
    ['a 429 asking for a day', new RateLimitError('x', { status: 429, retryAfterMs: 86_400_000 }), 60_000],
    ['a 429 without Retry-After', new RateLimitError('x', { status: 429 }), undefined],
    ['a 500 with Retry-After', new ServerError('x', { status: 500, retryAfterMs: 1000 }), undefined],
    ['a 400', new BadRequestError('x', { status: 400 }), undefined],
    ['a plain error', new Error('x'), undefined],
  ])('after %s holds the client for %s ms', (_label, error, expected) => {
    // Act / Assess
    expect(holdOffMs(error)).toBe(expected);
  });
});

describe('withRetry with a shared pacer', () => {
  const request = (path: string): HttpRequest => ({
    method: 'GET',
    url: new URL(`http://service.invalid${path}`),
    headers: {},
    mayHaveCreated: false,
  });

  it("one request's 429 holds the other record in flight instead of letting it draw its own", async () => {
    // Arrange: two records share the client; the service refuses the first request with "retry after 1 s".
    const time = fakeTime(0);
    const pacer = new RequestPacer({ now: time.now, sleep: time.sleep });
    const options: TransportOptions = {
      fetch: globalThis.fetch,
      timeoutMs: 15_000,
      retry: { maxAttempts: 3, maxRetryAfterMs: 10_000 },
      sleep: time.sleep,
      now: time.now,
      pacer,
    };
    const sent: { path: string; at: number }[] = [];
    let refusals = 1;
    const send = async (r: HttpRequest) => {
      sent.push({ path: r.url.pathname, at: time.now() });
      if (refusals-- > 0) throw new RateLimitError('x', { status: 429, retryAfterMs: 1000 });
      return r.url.pathname;
    };

    // Act: record a goes first and is refused; record b starts 10 ms later.
    const a = withRetry(request('/a'), options, send);
    await time.run(10);
    const b = withRetry(request('/b'), options, send);
    await time.run();

    // Assess: b waited for the hold instead of being refused too; a retried once after it.
    expect(await Promise.all([a, b])).toEqual(['/a', '/b']);
    const byPath = (x: { path: string; at: number }, y: { path: string; at: number }) =>
      x.at - y.at || x.path.localeCompare(y.path);
    expect(sent.sort(byPath)).toEqual([
      { path: '/a', at: 0 },
      { path: '/a', at: 1000 },
      { path: '/b', at: 1000 },
    ]);
  });

  it('fails at once, unsent, when the hold ends after the call budget', async () => {
    // Arrange
    const time = fakeTime(0);
    const pacer = new RequestPacer({ now: time.now, sleep: time.sleep });
    pacer.holdOff(10_000);
    let sends = 0;

    // Act
    const call = withRetry(
      request('/a'),
      {
        fetch: globalThis.fetch,
        timeoutMs: 1000,
        retry: {},
        sleep: time.sleep,
        now: time.now,
        pacer,
        deadlineMs: 5000,
      },
      async () => {
        sends++;
        return 'sent';
      },
    );

    // Assess
    await expect(call).rejects.toMatchObject({ name: 'ConnectionError', notSent: true });
    expect(sends).toBe(0);
  });
});
