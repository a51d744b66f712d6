import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AccessToken } from '../../shared/client/token-provider';
import { SecretsTokenProvider } from '../../shared/token-cache/secrets-token-provider';

const sm = mockClient(SecretsManagerClient);
const NOW = 1_800_000_000_000;
const SCOPES = ['productapi.poll.read', 'productapi.result.read'];

function token(name: string, expiresInMs: number): AccessToken {
  return { accessToken: name, tokenType: 'Bearer', expiresAt: NOW + expiresInMs, scopes: SCOPES };
}

function provider(fetchToken = vi.fn(async () => token('fresh', 3_600_000))) {
  const p = new SecretsTokenProvider({
    secrets: new SecretsManagerClient({ region: 'eu-west-1' }),
    credentialsSecretId: 'creds',
    tokenCacheSecretId: 'cache',
    scopes: SCOPES,
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
    });
  });

  it('treats an empty cache secret ({}) as no token', async () => {
    // Prepare
    secrets({});
    const { p } = provider();

    // Act / Assess
    expect((await p.getToken()).accessToken).toBe('fresh');
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
