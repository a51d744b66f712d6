/**
 * A token answer that makes no sense costs one token request and no wait: 10 containers starting cold at
 * once (10 token providers with their own Secrets Manager clients on the local Secrets Manager, sharing the
 * lease) against a token endpoint answering a bad shape. The lease holder asks once and fails with a
 * ResponseFormatError naming the field; it reports the failure on the lease, so the 9 waiting containers
 * fail with it at once instead of waiting the lease out and asking again.
 */
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileService, jsonAnswer, startHostileService } from '../../bench/support/hostile-service';
import { ResponseFormatError } from '../../shared/client/errors';
import { fetchAccessToken, MIN_TOKEN_LIFETIME_SECONDS } from '../../shared/client/oauth';
import { SecretsTokenProvider } from '../../shared/token-cache/secrets-token-provider';
import { clientConfig, type LocalAws, type PipelineResources } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';

const CREDENTIALS = { clientId: 'bad-answer-client', clientSecret: 'bad-answer-secret-K2' };
const SCOPES = ['productapi.poll.read', 'productapi.result.read'];
const CONTAINERS = 10;

let local: LocalStore;
let aws: LocalAws;
let resources: PipelineResources;
let service: HostileService;

/** One cold container. The lease's wait is counted on a clock of its own (advanced by its sleeps). */
function container(): { provider: SecretsTokenProvider; waitedMs: () => number } {
  let waited = 0;
  const provider = new SecretsTokenProvider({
    secrets: new SecretsManagerClient(clientConfig(aws, 'secretsManager')),
    credentialsSecretId: resources.credentialsSecretId,
    tokenCacheSecretId: resources.tokenCacheSecretId,
    scopes: SCOPES,
    refreshLease: {
      pollMs: 50,
      waitMs: 2_000,
      sleep: async (ms) => {
        waited += ms;
        await new Promise((resolve) => setTimeout(resolve, 10));
      },
    },
    fetchToken: (c, scopes) => fetchAccessToken({ baseUrl: service.url, ...c, scopes }),
  });
  return { provider, waitedMs: () => waited };
}

describe('bad token answers fail fast (10 cold containers, local Secrets Manager)', () => {
  beforeAll(async () => {
    local = await startLocalStore('idv-badtoken', { resources: { credentials: CREDENTIALS } });
    ({ aws, resources } = local);
    service = await startHostileService({ any: () => jsonAnswer(200, {}) });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await local?.close();
  });

  it.each([
    ['expiresIn "abc"', { accessToken: 'tok-A1', expiresIn: 'abc' }, 'expiresIn'],
    ['expiresIn "0"', { accessToken: 'tok-A1', expiresIn: '0' }, 'expiresIn'],
    ['expiresIn negative', { accessToken: 'tok-A1', expiresIn: '-60' }, 'expiresIn'],
    ['expiresIn absurd', { accessToken: 'tok-A1', expiresIn: '1e30' }, 'expiresIn'],
    ['no accessToken', { expiresIn: '3600' }, 'accessToken'],
    ['an HTML page', '<!doctype html><title>Sign in</title>', 'not JSON'],
    ['truncated JSON', '{"accessToken":"tok-A1","expiresIn":"36', 'not JSON'],
  ])(
    '%s: every container fails at once, 1 token request in all',
    async (_label, body, named) => {
      // Prepare: an empty cache, as after a deployment.
      await new SecretsManagerClient(clientConfig(aws, 'secretsManager')).send(
        new PutSecretValueCommand({ SecretId: resources.tokenCacheSecretId, SecretString: '{}' }),
      );
      service.answer(jsonAnswer(200, body));
      service.resetCounts();
      const containers = Array.from({ length: CONTAINERS }, container);

      // Act
      const outcomes = await Promise.all(
        containers.map(({ provider }) =>
          provider.getToken().then(
            () => undefined,
            (e: unknown) => e,
          ),
        ),
      );

      // Assess
      const waited = Math.max(...containers.map((c) => c.waitedMs()));
      process.stderr.write(
        `bad token answer (${_label}): ${service.stats.requests} token request(s), longest lease wait ${waited} ms\n`,
      );
      expect(service.stats.requests).toBe(1);
      // Far below the lease's 2 s wait: no container waited it out.
      expect(waited).toBeLessThan(1_000);
      for (const outcome of outcomes) {
        expect(outcome).toBeInstanceOf(ResponseFormatError);
        expect((outcome as Error).message).toContain(named);
        expect((outcome as Error).message).not.toContain('tok-A1');
        expect((outcome as Error).message).not.toContain('abc');
      }
    },
    60_000,
  );

  it('a tiny positive expiresIn counts as 60 s, so the next call does not fetch again', async () => {
    // Prepare
    service.answer(jsonAnswer(200, { accessToken: 'tok-B2', expiresIn: '1' }));
    const now = 1_800_000_000_000;

    // Act
    const token = await fetchAccessToken({
      baseUrl: service.url,
      ...CREDENTIALS,
      scopes: SCOPES,
      now: () => now,
    });

    // Assess
    expect(token.expiresAt).toBe(now + MIN_TOKEN_LIFETIME_SECONDS * 1000);
  });
});
