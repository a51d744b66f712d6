/**
 * Token cache holes that would cost a loss or a storm of token requests: a refresh joining a lookup that
 * returns the rejected token, the scope check, the credentials re-read and a retry after a failed request.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FetchToken, SecretsTokenProvider } from '../../shared/token-cache/secrets-token-provider';
import { bearer, secretsProvider } from '../support/token-cache';

const sm = mockClient(SecretsManagerClient);
const START = 1_800_000_000_000;

describe('SecretsTokenProvider refresh paths', () => {
  let now: number;
  let fetchToken: ReturnType<typeof vi.fn<FetchToken>>;
  let provider: SecretsTokenProvider;

  beforeEach(() => {
    sm.reset();
    now = START;
    fetchToken = vi.fn<FetchToken>(async () => bearer('fresh', now + 3_600_000));
    provider = secretsProvider({ fetchToken, now: () => now });
    sm.on(GetSecretValueCommand, { SecretId: 'creds' }).resolves({
      SecretString: JSON.stringify({ clientId: 'id', clientSecret: 'shh' }),
    });
    sm.on(PutSecretValueCommand).resolves({});
  });

  it('refresh(stale) does not join a lookup in flight that hands back the rejected token', async () => {
    // Prepare: the cache still holds T1; a getToken() is reading it (slowly) when T1 is rejected.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    sm.on(GetSecretValueCommand, { SecretId: 'cache' }).callsFake(async () => {
      await gate;
      return { SecretString: JSON.stringify(bearer('T1', START + 3_600_000)), VersionId: 'v1' };
    });
    const inFlight = provider.getToken();

    // Act
    const refreshed = provider.refresh(bearer('T1', START + 3_600_000));
    release();

    // Assess
    expect((await inFlight).accessToken).toBe('T1');
    expect((await refreshed).accessToken).toBe('fresh');
    expect(fetchToken).toHaveBeenCalledTimes(1);
  });

  it('does not use a cached token issued for fewer scopes (it would fail with 403)', async () => {
    // Prepare
    sm.on(GetSecretValueCommand, { SecretId: 'cache' }).resolves({
      SecretString: JSON.stringify(bearer('narrow', START + 3_600_000, ['productapi.poll.read'])),
    });

    // Act
    const t = await provider.getToken();

    // Assess
    expect(t.accessToken).toBe('fresh');
    expect(fetchToken).toHaveBeenCalledTimes(1);
  });

  it('keeps the credentials for 5 minutes, then reads them again (a rotation is picked up)', async () => {
    // Prepare: every lookup finds an expired cache, so each one needs the credentials.
    sm.on(GetSecretValueCommand, { SecretId: 'cache' }).resolves({ SecretString: '{}' });
    const credentialReads = () =>
      sm.commandCalls(GetSecretValueCommand).filter((c) => c.args[0].input.SecretId === 'creds').length;

    // Act
    await provider.getToken();
    now += 3_600_000; // the token expired; 1 h > the 5-minute credentials TTL
    await provider.getToken();
    now += 3_300_000 - 1; // within the margin again, 55 min later: still > TTL
    const beforeThird = credentialReads();
    await provider.refresh(await provider.getToken());
    now += 1_000; // 1 s later: within the TTL
    await provider.refresh(await provider.getToken());

    // Assess
    expect(beforeThird).toBe(2);
    expect(credentialReads()).toBe(3);
  });

  it('after a failed token request the next call asks again and succeeds; nothing is cached from the failure', async () => {
    // Prepare
    sm.on(GetSecretValueCommand, { SecretId: 'cache' }).resolves({ SecretString: '{}' });
    fetchToken.mockRejectedValueOnce(new Error('service unavailable'));

    // Act
    const first = provider.getToken();
    await expect(first).rejects.toThrow('service unavailable');
    const writesAfterFailure = sm.commandCalls(PutSecretValueCommand).length;
    const second = await provider.getToken();

    // Assess
    expect(writesAfterFailure).toBe(0);
    expect(second.accessToken).toBe('fresh');
    expect(fetchToken).toHaveBeenCalledTimes(2);
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(1);
  });
});
