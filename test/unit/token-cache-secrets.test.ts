import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AccessToken } from '../../shared/client/token-provider';
import { memoryLogger } from '../support/pipeline-fakes';
import { bearer, secretsProvider, TOKEN_SCOPES } from '../support/token-cache';

const sm = mockClient(SecretsManagerClient);
const NOW = 1_800_000_000_000;
const SCOPES = TOKEN_SCOPES;

function token(name: string, expiresInMs: number): AccessToken {
  return bearer(name, NOW + expiresInMs);
}

function provider(fetchToken = vi.fn(async () => token('fresh', 3_600_000))) {
  const p = secretsProvider({
    fetchToken,
    now: () => NOW,
  });
  return { p, fetchToken };
}

function secrets(cache: unknown, creds: unknown = { clientId: 'id', clientSecret: 'shh' }) {
  sm.on(GetSecretValueCommand, { SecretId: 'cache' }).resolves({ SecretString: JSON.stringify(cache) });
  sm.on(GetSecretValueCommand, { SecretId: 'creds' }).resolves({ SecretString: JSON.stringify(creds) });
  sm.on(PutSecretValueCommand).resolves({});
}

describe('SecretsTokenProvider', () => {
  beforeEach(() => sm.reset());

  it('uses a valid token from the cache secret without asking the service', async () => {
    // Prepare
    secrets(token('cached', 3_600_000));
    const { p, fetchToken } = provider();

    // Act
    const t = await p.getToken();
    await p.getToken();

    // Assess
    expect(t.accessToken).toBe('cached');
    expect(fetchToken).not.toHaveBeenCalled();
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('refreshes a token within the margin and writes it to the cache secret', async () => {
    // Prepare
    secrets(token('old', 60_000));
    const { p, fetchToken } = provider();

    // Act
    const t = await p.getToken();

    // Assess
    expect(t.accessToken).toBe('fresh');
    expect(fetchToken).toHaveBeenCalledWith({ clientId: 'id', clientSecret: 'shh' }, SCOPES);
    const written = JSON.parse(sm.commandCalls(PutSecretValueCommand)[0]!.args[0].input.SecretString!);
    expect(written).toEqual({
      accessToken: 'fresh',
      tokenType: 'Bearer',
      expiresAt: NOW + 3_600_000,
      scopes: SCOPES,
      issuedAt: NOW,
    });
  });

  it('keeps a token shorter-lived than twice the margin for half its life instead of refetching per call', async () => {
    // Prepare: the service issues 4-minute tokens, less than the 5-minute margin.
    secrets({});
    let now = NOW;
    let issued = 0;
    const p = secretsProvider({
      fetchToken: async () => {
        issued++;
        return {
          accessToken: `short-${issued}`,
          tokenType: 'Bearer',
          expiresAt: now + 240_000,
          scopes: SCOPES,
        };
      },
      now: () => now,
    });

    // Act
    const first = await p.getToken();
    const second = await p.getToken();
    now += 119_000;
    const beforeHalfLife = await p.getToken();
    now += 2_000;
    const afterHalfLife = await p.getToken();

    // Assess
    expect([first, second, beforeHalfLife].map((t) => t.accessToken)).toEqual([
      'short-1',
      'short-1',
      'short-1',
    ]);
    expect(afterHalfLife.accessToken).toBe('short-2');
    expect(issued).toBe(2);
  });

  it('treats an empty cache secret ({}) as no token', async () => {
    // Prepare
    secrets({});
    const { p } = provider();

    // Act / Assess
    expect((await p.getToken()).accessToken).toBe('fresh');
  });

  it.each([
    ['not JSON', 'garbage{'],
    ['null', 'null'],
    ['a token without a numeric expiry', '{"accessToken":"x","expiresAt":"soon","scopes":[]}'],
  ])('treats a corrupt cache secret (%s) as no token: a new one is fetched and written', async (_, value) => {
    // Prepare
    secrets({});
    sm.on(GetSecretValueCommand, { SecretId: 'cache' }).resolves({ SecretString: value });
    const { p, fetchToken } = provider();

    // Act
    const t = await p.getToken();

    // Assess
    expect(t.accessToken).toBe('fresh');
    expect(fetchToken).toHaveBeenCalledTimes(1);
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(1);
  });

  it('refreshes once for concurrent callers after a 401, ignoring the rejected token in the cache', async () => {
    // Prepare
    secrets(token('stale', 3_600_000));
    const { p, fetchToken } = provider();
    const stale = await p.getToken();

    // Act
    const [a, b] = await Promise.all([p.refresh(stale), p.refresh(stale)]);
    const c = await p.refresh(stale);

    // Assess
    expect([a.accessToken, b.accessToken, c.accessToken]).toEqual(['fresh', 'fresh', 'fresh']);
    expect(fetchToken).toHaveBeenCalledTimes(1);
  });

  it('logs refreshes and cache failures without the token or the credentials', async () => {
    // Prepare
    sm.on(GetSecretValueCommand, { SecretId: 'cache' }).rejects(new Error('AccessDeniedException'));
    sm.on(GetSecretValueCommand, { SecretId: 'creds' }).resolves({
      SecretString: JSON.stringify({ clientId: 'client-Q7', clientSecret: 'secret-Z9' }),
    });
    sm.on(PutSecretValueCommand).rejects(new Error('ThrottlingException'));
    const { logger, lines } = memoryLogger();
    const p = secretsProvider({
      fetchToken: async () => token('tok-V3ry-S3cret', 3_600_000),
      now: () => NOW,
      logger,
    });

    // Act
    const t = await p.getToken();

    // Assess: the token is usable although the cache could be neither read nor written.
    expect(t.accessToken).toBe('tok-V3ry-S3cret');
    const text = lines.join('\n');
    expect(text).toContain('token cache secret could not be written');
    for (const secret of ['tok-V3ry-S3cret', 'client-Q7', 'secret-Z9']) expect(text).not.toContain(secret);
  });

  it('names the problem of a bad credentials secret without echoing it', async () => {
    // Prepare
    secrets({}, { clientId: 'id-only-hunter2' });
    const { p } = provider();

    // Act
    const error = (await p.getToken().catch((e: unknown) => e)) as Error;

    // Assess
    expect(error.message).toContain('clientSecret is missing');
    expect(error.message).not.toContain('hunter2');
  });
});
