/**
 * The token answer (shared/client/oauth.ts) as another, spec-conforming implementation of the service may
 * give it: expiresIn as a number or a string, any tokenType spelling, extra fields. What makes no sense is
 * refused without echoing the body; a token the service refuses after one refresh says so.
 */
import { describe, expect, it } from 'vitest';
import { ResponseFormatError, UnauthorizedError } from '../../shared/client/errors';
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
    expect(error.message).toContain('401 after one refresh');
    expect(error.message).not.toContain('secret-tok-value');
  });
});
