/**
 * The token answer (shared/client/oauth.ts) as another, spec-conforming implementation of the service may
 * give it: expiresIn as a number or a string, any tokenType spelling, extra fields. What makes no sense is
 * refused without echoing the body; a token the service refuses after one refresh says so. And the
 * in-memory token provider (shared/client/in-memory-token-provider.ts): one request for concurrent callers,
 * a refresh before expiry.
 */
import { describe, expect, it } from 'vitest';
import { ResponseFormatError, UnauthorizedError } from '../../shared/client/errors';
import { InMemoryTokenProvider } from '../../shared/client/in-memory-token-provider';
import { fetchAccessToken } from '../../shared/client/oauth';
import { clientOn, serviceFetch } from '../support/service-fetch';

describe('the token answer', () => {
  const options = (fetchFn: typeof fetch) => ({
    baseUrl: 'http://127.0.0.1:9',
    clientId: 'c',
    clientSecret: 's',
    scopes: ['productapi.result.read'],
    fetch: fetchFn,
    now: () => 1_000_000,
  });

  it.each([
    [{ accessToken: 'a', expiresIn: 1800, tokenType: 'bearer', scope: 'x', refresh: null }, 1800],
    [{ accessToken: 'a', expiresIn: '1800' }, 1800],
    [{ accessToken: 'a', expiresIn: ' 90.5 ', tokenType: 'BEARER' }, 90.5],
  ])('accepts %j as a Bearer token of %s seconds', async (body, seconds) => {
    // Prepare
    const fake = serviceFetch(body);

    // Act
    const token = await fetchAccessToken(options(fake.fetch));

    // Assess
    expect(token).toEqual({
      accessToken: 'a',
      tokenType: 'Bearer',
      expiresAt: 1_000_000 + seconds * 1000,
      scopes: ['productapi.result.read'],
    });
    expect(JSON.parse(fake.calls[0]!.body!)).toEqual({ scopes: ['productapi.result.read'] });
    expect(fake.calls[0]!.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('c:s').toString('base64')}`,
    );
  });

  it.each([
    { accessToken: 'a', expiresIn: 'soon' },
    { accessToken: 'a', expiresIn: -5 },
    { accessToken: '', expiresIn: 60 },
    { expiresIn: 60 },
  ])('refuses %j without echoing it', async (body) => {
    // Act
    const error = (await fetchAccessToken(options(serviceFetch(body).fetch)).catch(
      (e: unknown) => e,
    )) as Error;

    // Assess
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect(error.message).not.toMatch(/soon|"a"/);
  });

  it('presents a lower-case tokenType as Bearer on the next request', async () => {
    // Prepare
    const fake = serviceFetch({ accessToken: 'tok', expiresIn: 600, tokenType: 'bearer' });

    // Act
    await clientOn(fake.fetch).poll();

    // Assess
    expect(fake.calls[1]!.headers.get('authorization')).toBe('Bearer tok');
  });

  it('says a freshly issued token was refused too when a 401 survives the refresh', async () => {
    // Prepare
    const fake = serviceFetch({ accessToken: 'secret-tok-value', expiresIn: 60 }, () =>
      Response.json({ code: 16, message: 'Unauthorized' }, { status: 401 }),
    );

    // Act
    const error = await clientOn(fake.fetch)
      .getResult('r-1')
      .catch((e: unknown) => e as Error);

    // Assess
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error.message).toContain('401, code 16 after one refresh');
    expect(error.message).not.toContain('secret-tok-value');
  });
});

/** A token endpoint issuing token-1, token-2, … (one hour each), recording every request. */
function tokenEndpoint(): { fetch: typeof fetch; requests: URL[] } {
  const requests: URL[] = [];
  const fetchFn = (async (input: string | URL | Request) => {
    requests.push(new URL(String(input)));
    return Response.json({ accessToken: `token-${requests.length}`, expiresIn: '3600', tokenType: 'Bearer' });
  }) as typeof fetch;
  return { fetch: fetchFn, requests };
}

describe('InMemoryTokenProvider', () => {
  it('shares one token request between concurrent callers and refreshes before expiry', async () => {
    // Prepare
    let now = 1_000_000;
    const fake = tokenEndpoint();
    const provider = new InMemoryTokenProvider({
      baseUrl: 'http://127.0.0.1:9',
      clientId: 'demo',
      clientSecret: 'demo-secret',
      scopes: ['productapi.poll.read'],
      fetch: fake.fetch,
      now: () => now,
    });

    // Act
    const [a, b] = await Promise.all([provider.getToken(), provider.getToken()]);
    now += 3_600_000 - 59_000;
    const c = await provider.getToken();
    const [d, e] = await Promise.all([provider.refresh(c), provider.refresh(c)]);

    // Assess
    expect(a).toBe(b);
    expect(a.expiresAt).toBe(1_000_000 + 3_600_000);
    expect(c.accessToken).toBe('token-2');
    expect(d).toBe(e);
    expect(d.accessToken).toBe('token-3');
    expect(fake.requests).toHaveLength(3);
  });

  it('uses a token shorter-lived than twice the margin for half its life instead of refreshing on every call', async () => {
    // Prepare
    let now = 0;
    let issued = 0;
    const shortLived = (async () => {
      issued += 1;
      return Response.json({ accessToken: `short-${issued}`, expiresIn: '60', tokenType: 'Bearer' });
    }) as typeof fetch;
    const provider = new InMemoryTokenProvider({
      baseUrl: 'http://127.0.0.1:9',
      clientId: 'demo',
      clientSecret: 'demo-secret',
      scopes: ['productapi.poll.read'],
      refreshMarginMs: 60_000,
      fetch: shortLived,
      now: () => now,
    });

    // Act
    const first = await provider.getToken();
    now = 29_999;
    const stillFirst = await provider.getToken();
    now = 30_000;
    const second = await provider.getToken();

    // Assess
    expect(stillFirst).toBe(first);
    expect(second.accessToken).toBe('short-2');
    expect(issued).toBe(2);
  });

  it('says the client credentials were rejected on a 401', async () => {
    // Prepare
    const rejecting = (async () =>
      Response.json({ code: 16, message: 'Unauthorized' }, { status: 401 })) as typeof fetch;
    const provider = new InMemoryTokenProvider({
      baseUrl: 'http://127.0.0.1:9',
      clientId: 'demo',
      clientSecret: 'wrong-secret',
      scopes: ['productapi.poll.read'],
      fetch: rejecting,
    });

    // Act
    const error = (await provider.getToken().catch((e: unknown) => e)) as Error;

    // Assess
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error.message).toContain('client credentials');
    expect(error.message).not.toContain('wrong-secret');
  });
});
