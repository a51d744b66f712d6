import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { IdvClient } from '../../shared/client/client';
import {
  ConnectionError,
  GoneError,
  MockTestNotAllowedError,
  NotFoundError,
  RateLimitError,
  RequestValidationError,
  ResponseFormatError,
  ServerError,
  UnauthorizedError,
} from '../../shared/client/errors';
import { clientOn, serviceFetch } from '../support/service-fetch';

interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
}

type Responder = (req: Recorded, index: number) => Response | Promise<Response>;

/** A fetch that records every request and answers the token endpoint itself. */
function fakeFetch(respond: Responder) {
  const requests: Recorded[] = [];
  let tokens = 0;
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const req: Recorded = {
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init?.headers),
      body: init?.body as string | undefined,
    };
    requests.push(req);
    if (req.url.pathname.endsWith('/api/v2/oauth/token')) {
      tokens++;
      return Response.json({ accessToken: `token-${tokens}`, expiresIn: '3600', tokenType: 'Bearer' });
    }
    return respond(req, requests.filter((r) => !r.url.pathname.endsWith('/api/v2/oauth/token')).length - 1);
  }) as typeof fetch;
  return {
    fetch: fetchFn,
    requests,
    apiRequests: () => requests.filter((r) => !r.url.pathname.includes('oauth')),
  };
}

function client(fetchFn: typeof fetch, environment: 'staging' | 'production' = 'staging') {
  return new IdvClient({
    baseUrl: 'http://127.0.0.1:9/base',
    environment,
    credentials: { clientId: 'demo', clientSecret: 'demo-secret' },
    fetch: fetchFn,
    sleep: async () => {},
  });
}

describe('IdvClient on the wire (recorded fetch)', () => {
  it('gets a token with Basic credentials and scopes in the body, then sends Bearer', async () => {
    // Prepare
    const fake = fakeFetch(() => Response.json({ results: [] }));

    // Act
    await client(fake.fetch).poll();

    // Assess
    const [tokenReq, pollReq] = fake.requests;
    expect(tokenReq?.method).toBe('POST');
    expect(tokenReq?.url.pathname).toBe('/base/api/v2/oauth/token');
    expect(tokenReq?.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('demo:demo-secret').toString('base64')}`,
    );
    expect(JSON.parse(tokenReq?.body ?? '')).toEqual({
      scopes: expect.arrayContaining(['productapi.poll.read']),
    });
    expect(pollReq?.url.pathname).toBe('/base/api/v2/poll');
    expect(pollReq?.headers.get('authorization')).toBe('Bearer token-1');
  });

  it('sends mock-test only when asked, and refuses it on production before any request', async () => {
    // Prepare
    const fake = fakeFetch(() => Response.json({ transactionId: 't-1' }));
    const prod = fakeFetch(() => Response.json({ transactionId: 't-1' }));

    // Act
    await client(fake.fetch).createSecureLink({ product: 'IDV_STANDARD' });
    await client(fake.fetch).createSecureLink({ product: 'IDV_STANDARD' }, { mockTest: 'APPROVED' });
    const refused = client(prod.fetch, 'production').createSecureLink(
      { product: 'IDV_STANDARD' },
      { mockTest: 'APPROVED' },
    );

    // Assess
    const [plain, mocked] = fake.apiRequests();
    expect(plain?.headers.has('mock-test')).toBe(false);
    expect(mocked?.headers.get('mock-test')).toBe('APPROVED');
    await expect(refused).rejects.toBeInstanceOf(MockTestNotAllowedError);
    expect(prod.requests).toHaveLength(0);
  });

  it('sends the SDK token query with the spec names, services repeated', async () => {
    // Prepare
    const fake = fakeFetch(() => Response.json({ token: 'sdk', transactionId: 't-1' }));

    // Act
    await client(fake.fetch).getSdkToken({
      services: ['FACE_VERIFY', 'NFC'],
      numberOfChallenges: 3,
      customerReference: 'ref',
      validateWatermark: true,
    });

    // Assess
    expect(fake.apiRequests()[0]?.url.search).toBe(
      '?services=FACE_VERIFY&services=NFC&numberOfChallenges=3&customerReference=ref&validateWatermark=true',
    );
  });

  it('refreshes the token once on a 401 and retries once', async () => {
    // Prepare
    const fake = fakeFetch((req) =>
      req.headers.get('authorization') === 'Bearer token-1'
        ? Response.json({ code: 16, message: 'Unauthorized' }, { status: 401 })
        : Response.json({ results: [] }),
    );

    // Act
    const response = await client(fake.fetch).poll();

    // Assess
    expect(response.results).toEqual([]);
    expect(
      fake.requests.map((r) => `${r.url.pathname} ${r.headers.get('authorization')?.slice(0, 12)}`),
    ).toEqual([
      '/base/api/v2/oauth/token Basic ZGVtbz',
      '/base/api/v2/poll Bearer token',
      '/base/api/v2/oauth/token Basic ZGVtbz',
      '/base/api/v2/poll Bearer token',
    ]);
  });

  it('gives up after the second 401 and never puts the token in the error', async () => {
    // Prepare
    const fake = fakeFetch(() => Response.json({ code: 16, message: 'Unauthorized' }, { status: 401 }));

    // Act
    const error = await client(fake.fetch)
      .poll()
      .catch((e: unknown) => e as UnauthorizedError);

    // Assess
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(fake.apiRequests()).toHaveLength(2);
    expect(JSON.stringify({ ...error, message: error.message })).not.toMatch(
      /token-|demo-secret|Bearer|Basic/,
    );
  });

  it('retries a GET on 5xx but never re-sends a creating POST', async () => {
    // Prepare
    const getFake = fakeFetch((_req, i) =>
      i < 2 ? new Response('', { status: 502 }) : Response.json({ reasons: [] }),
    );
    const postFake = fakeFetch(() => new Response('', { status: 500 }));

    // Act
    const reasons = await client(getFake.fetch).getReasons();
    const created = client(postFake.fetch).createVog({
      givenNames: 'A',
      surname: 'B',
      emailAddress: 'a@example.com',
      language: 'nl',
      vogRequest: { companyName: 'C', jobTitle: 'D', profiles: ['1'], profileType: 'GENERIC' },
    });

    // Assess
    expect(reasons.reasons).toEqual([]);
    expect(getFake.apiRequests()).toHaveLength(3);
    await expect(created).rejects.toBeInstanceOf(ServerError);
    expect(postFake.apiRequests()).toHaveLength(1);
  });

  it('maps a refused connection to ConnectionError(notSent) and retries even a POST', async () => {
    // Prepare
    const fake = fakeFetch((_req, i) => {
      if (i === 0)
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
        });
      return Response.json({ transactionId: 't-1' });
    });
    const down = fakeFetch(() => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) });
    });

    // Act
    const link = await client(fake.fetch).createSecureLink({ product: 'IDV_LITE' });
    const error = await client(down.fetch)
      .createSecureLink({ product: 'IDV_LITE' })
      .catch((e: unknown) => e as ConnectionError);

    // Assess
    expect(link.transactionId).toBe('t-1');
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.notSent).toBe(false);
    expect(down.apiRequests()).toHaveLength(1);
  });

  it('keeps unknown fields and unknown enum values of a result, and rejects a non-JSON body', async () => {
    // Prepare
    const fake = fakeFetch((_req, i) =>
      i === 0
        ? Response.json({
            result: 'SOMETHING_NEW',
            newSection: { a: 1 },
            images: [{ data: 'AA==', documentType: 'HOLOGRAM' }],
          })
        : new Response('<html>', { status: 200 }),
    );
    const c = client(fake.fetch);

    // Act
    const result = await c.getResult('r-1');
    const broken = c.getResult('r-2');

    // Assess
    expect(result.result).toBe('SOMETHING_NEW');
    expect(result['newSection']).toEqual({ a: 1 });
    expect(result.images?.[0]?.documentType).toBe('HOLOGRAM');
    await expect(broken).rejects.toBeInstanceOf(ResponseFormatError);
  });

  it('maps 404 on a result to NotFoundError and validates the id before sending', async () => {
    // Prepare
    const fake = fakeFetch(() => Response.json({ code: 5, message: 'not found' }, { status: 404 }));
    const c = client(fake.fetch);

    // Act
    const missing = c.getResult('r-1');
    const bad = c.getResult('../poll');

    // Assess
    await expect(missing).rejects.toBeInstanceOf(NotFoundError);
    await expect(bad).rejects.toBeInstanceOf(RequestValidationError);
    expect(fake.apiRequests().map((r) => r.url.pathname)).toEqual(['/base/api/v2/result/r-1']);
  });

  it('times out a stalled call as ConnectionError(timedOut)', async () => {
    // Prepare
    const stalled = ((_: unknown, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      })) as typeof fetch;
    const c = new IdvClient({
      baseUrl: 'http://127.0.0.1:9',
      environment: 'staging',
      tokenProvider: {
        getToken: async () => ({
          accessToken: 'a',
          tokenType: 'Bearer',
          expiresAt: Date.now() + 1e6,
          scopes: [],
        }),
        refresh: async () => ({
          accessToken: 'b',
          tokenType: 'Bearer',
          expiresAt: Date.now() + 1e6,
          scopes: [],
        }),
      },
      fetch: stalled,
      timeoutMs: 20,
      retry: { maxAttempts: 1 },
    });

    // Act
    const error = await c.poll().catch((e: unknown) => e as ConnectionError);

    // Assess
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.timedOut).toBe(true);
  });
});

describe('IdvClient failures: retries, waits, base URL and connection errors', () => {
  it('never re-sends the SDK token GET after a 500: it starts a transaction', async () => {
    // Prepare
    const fake = fakeFetch(() => new Response('', { status: 500 }));

    // Act
    const error = await client(fake.fetch)
      .getSdkToken({ services: ['FACE_VERIFY'] })
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ServerError);
    expect(fake.apiRequests()).toHaveLength(1);
  });

  it('waits as long as Retry-After asks, and gives up when that is longer than the cap', async () => {
    // Prepare
    const waits: number[] = [];
    const limited = (seconds: string) =>
      fakeFetch((_req, i) =>
        i === 0
          ? Response.json(
              { code: 8, message: 'TooManyRequests' },
              { status: 429, headers: { 'retry-after': seconds } },
            )
          : Response.json({ reasons: [] }),
      );
    const short = limited('2');
    const long = limited('3600');
    const make = (fetchFn: typeof fetch) =>
      new IdvClient({
        baseUrl: 'http://127.0.0.1:9',
        environment: 'staging',
        credentials: { clientId: 'demo', clientSecret: 'demo-secret' },
        fetch: fetchFn,
        sleep: async (ms) => {
          waits.push(ms);
        },
      });

    // Act
    await make(short.fetch).getReasons();
    const error = (await make(long.fetch)
      .getReasons()
      .catch((e: unknown) => e)) as RateLimitError;

    // Assess
    expect(waits).toEqual([2000]);
    expect(short.apiRequests()).toHaveLength(2);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(long.apiRequests()).toHaveLength(1);
  });

  it.each([
    ['the API call (Bearer)', '/api/v2/poll'],
    ['the token request (Basic)', '/api/v2/oauth/token'],
  ])(
    'keeps the Authorization header out of a failure of %s, even when fetch attaches its Request',
    async (_label, failing) => {
      // Prepare
      const wrapper = (async (input: string | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (new URL(String(input)).pathname.endsWith(failing)) {
          // Some fetch wrappers (tracing, mocking) attach the request to the error they throw.
          throw new TypeError(`fetch failed for ${request.headers.get('authorization')}`, { cause: request });
        }
        return Response.json({ accessToken: 'tok-SECRET-1', expiresIn: '3600', tokenType: 'Bearer' });
      }) as typeof fetch;

      // Act
      const error = (await client(wrapper)
        .poll()
        .catch((e: unknown) => e)) as ConnectionError;

      // Assess
      expect(error).toBeInstanceOf(ConnectionError);
      const everything = `${inspect(error, { depth: 10 })}${JSON.stringify(error)}${error.stack}`;
      expect(everything).not.toMatch(/tok-SECRET|demo-secret|ZGVtbzpkZW1vLXNlY3JldA|authorization:/i);
      expect(everything).toContain('TypeError');
    },
  );

  it('names the address and the reason when nothing listens there', async () => {
    // Prepare
    const refused = (async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
      });
    }) as typeof fetch;

    // Act
    const error = (await client(refused)
      .poll()
      .catch((e: unknown) => e)) as ConnectionError;

    // Assess
    expect(error.message).toBe(
      'no answer from the service for POST http://127.0.0.1:9/base/api/v2/oauth/token ' +
        '(ECONNREFUSED: connection refused, is the service running at that address?)',
    );
  });

  it('falls back to the deepest cause when there is no system code (e.g. a redirect)', async () => {
    // Prepare: what fetch throws for a 3xx with redirect: 'error'.
    const redirected = (async () => {
      throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
    }) as typeof fetch;

    // Act
    const error = (await client(redirected)
      .poll()
      .catch((e: unknown) => e)) as ConnectionError;

    // Assess
    expect(error.message).toBe(
      'no answer from the service for POST http://127.0.0.1:9/base/api/v2/oauth/token (unexpected redirect)',
    );
  });

  it.each([
    ['localhost:4010', 'must start with http:// or https://'],
    ['ftp://127.0.0.1', 'must start with http:// or https://'],
    ['http://demo:demo-secret@127.0.0.1:4010', 'must not contain user info'],
    ['http://127.0.0.1:4010?x=1', 'must not have a query or fragment'],
    ['not a url', 'is not a URL'],
  ])('rejects the base URL %s before any request', (baseUrl, message) => {
    // Act
    const make = () =>
      new IdvClient({ baseUrl, environment: 'staging', credentials: { clientId: 'a', clientSecret: 'b' } });

    // Assess
    expect(make).toThrow(RequestValidationError);
    expect(make).toThrow(`baseUrl: ${message}`);
  });

  it('says a 404 from the token endpoint points at a wrong base URL', async () => {
    // Prepare
    const missing = (async () =>
      Response.json({ code: 5, message: 'NotFound' }, { status: 404 })) as typeof fetch;

    // Act
    const error = (await client(missing)
      .poll()
      .catch((e: unknown) => e)) as NotFoundError;

    // Assess
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain(
      'no token endpoint at http://127.0.0.1:9/base/api/v2/oauth/token (404, code 5)',
    );
  });
});

describe('IdvClient with answers another implementation of the service may give', () => {
  it('percent-encodes a resultId with other characters in the result URL', async () => {
    // Prepare
    const fake = serviceFetch({ accessToken: 't', expiresIn: '3600', tokenType: 'Bearer' }, () =>
      Response.json({ result: 'APPROVED' }),
    );
    const idv = clientOn(fake.fetch);

    // Act
    await idv.getResult('res.2026:0001');
    await idv.getResult('acct@eu+7=');

    // Assess
    const paths = fake.calls.filter((c) => c.url.pathname.includes('/result/')).map((c) => c.url.pathname);
    expect(paths).toEqual(['/api/v2/result/res.2026%3A0001', '/api/v2/result/acct%40eu%2B7%3D']);
  });

  it('reads an empty or 204 poll answer as no records', async () => {
    // Prepare
    const fake = serviceFetch({ accessToken: 't', expiresIn: 60 }, () => new Response(null, { status: 204 }));

    // Act
    const response = await clientOn(fake.fetch).poll();

    // Assess
    expect(response).toEqual({ results: [] });
  });

  it('maps 410 to a GoneError, which is a NotFoundError', async () => {
    // Prepare
    const fake = serviceFetch({ accessToken: 't', expiresIn: 60 }, () =>
      Response.json({ code: 5, message: 'Expired' }, { status: 410 }),
    );

    // Act
    const error = await clientOn(fake.fetch)
      .getResult('expired.0001')
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(GoneError);
    expect(error).toBeInstanceOf(NotFoundError);
  });
});
