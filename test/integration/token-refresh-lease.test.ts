/**
 * One token refresh for many cold starts: N token providers (one per "container", each with its own
 * Secrets Manager client) start at once against the local Secrets Manager and the simulator, and the
 * simulator counts the token requests. Figures printed; published in docs/reliability.md.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken } from '../../shared/client/oauth';
import { LEASE_STAGE, leaseVersionId } from '../../shared/token-cache/refresh-lease';
import { SecretsTokenProvider } from '../../shared/token-cache/secrets-token-provider';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { clientConfig, type LocalAws, type PipelineResources } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';

const CREDENTIALS = { clientId: 'lease-client', clientSecret: 'lease-client-secret-Q7' };
const SCOPES = ['productapi.poll.read', 'productapi.result.read'];
const CONTAINERS = 25;

let local: LocalStore;
let aws: LocalAws;
let sim: RunningSimulator;
let resources: PipelineResources;
let admin: SecretsManagerClient;

function container(options: { waitMs?: number } = {}): SecretsTokenProvider {
  return new SecretsTokenProvider({
    secrets: new SecretsManagerClient(clientConfig(aws, 'secretsManager')),
    credentialsSecretId: resources.credentialsSecretId,
    tokenCacheSecretId: resources.tokenCacheSecretId,
    scopes: SCOPES,
    refreshLease: { pollMs: 50, waitMs: options.waitMs ?? 10_000 },
    fetchToken: (c, scopes) => fetchAccessToken({ baseUrl: sim.url, ...c, scopes }),
  });
}

async function cacheVersion(): Promise<string> {
  return (await admin.send(new GetSecretValueCommand({ SecretId: resources.tokenCacheSecretId }))).VersionId!;
}

async function emptyCache(): Promise<void> {
  await admin.send(new PutSecretValueCommand({ SecretId: resources.tokenCacheSecretId, SecretString: '{}' }));
}

describe('token refresh lease (local Secrets Manager + simulator)', () => {
  beforeAll(async () => {
    local = await startLocalStore('idv-lease', { resources: { credentials: CREDENTIALS } });
    ({ aws, resources } = local);
    sim = await startSimulator({ ...CREDENTIALS, seed: 8 });
    admin = new SecretsManagerClient(clientConfig(aws, 'secretsManager'));
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
    await local?.close();
  });

  it(`${CONTAINERS} containers starting cold at once make 1 token request and share its token`, async () => {
    // Prepare
    await emptyCache();
    const before = sim.control.stats().tokensIssued;

    // Act
    const tokens = await Promise.all(Array.from({ length: CONTAINERS }, () => container().getToken()));

    // Assess
    const requests = sim.control.stats().tokensIssued - before;
    process.stderr.write(`token lease: ${CONTAINERS} cold starts → ${requests} token request(s)\n`);
    expect(requests).toBe(1);
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(1);
  }, 60_000);

  it(`${CONTAINERS} containers whose shared token was rejected (401) make 1 token request`, async () => {
    // Prepare
    const containers = Array.from({ length: CONTAINERS }, () => container());
    const [old] = await Promise.all(containers.map((c) => c.getToken()));
    sim.control.expireTokens();
    const before = sim.control.stats().tokensIssued;

    // Act
    const tokens = await Promise.all(containers.map((c) => c.refresh(old!)));

    // Assess
    const requests = sim.control.stats().tokensIssued - before;
    process.stderr.write(`token lease: ${CONTAINERS} refreshes after a 401 → ${requests} token request(s)\n`);
    expect(requests).toBe(1);
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(1);
    expect(tokens[0]!.accessToken).not.toBe(old!.accessToken);
  }, 60_000);

  it('a lease whose holder died is taken over after the wait: still 1 token request', async () => {
    // Prepare: a holder took the first lease on the empty cache and never wrote a token.
    await emptyCache();
    const generation = await cacheVersion();
    await admin.send(
      new PutSecretValueCommand({
        SecretId: resources.tokenCacheSecretId,
        ClientRequestToken: leaseVersionId(generation, 1),
        SecretString: JSON.stringify({ lease: 'dead-container' }),
        VersionStages: [LEASE_STAGE],
      }),
    );
    const before = sim.control.stats().tokensIssued;

    // Act
    const tokens = await Promise.all(
      Array.from({ length: 10 }, () => container({ waitMs: 1_000 }).getToken()),
    );

    // Assess
    expect(sim.control.stats().tokensIssued - before).toBe(1);
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(1);
    expect(await cacheVersion()).not.toBe(generation);
  }, 60_000);

  it('the local Secrets Manager keeps versions as Secrets Manager does (the lease relies on it)', async () => {
    // Prepare
    const id = 'x'.repeat(40);
    const put = (value: string, stages?: string[]) =>
      admin.send(
        new PutSecretValueCommand({
          SecretId: resources.tokenCacheSecretId,
          ClientRequestToken: id,
          SecretString: value,
          ...(stages && { VersionStages: stages }),
        }),
      );
    const currentBefore = await cacheVersion();

    // Act
    await put('{"a":1}', ['CUSTOM']);
    await put('{"a":1}', ['CUSTOM']); // an identical retry is accepted
    const conflict = put('{"a":2}', ['CUSTOM']).catch((error: Error) => error.name);
    const byId = await admin.send(
      new GetSecretValueCommand({ SecretId: resources.tokenCacheSecretId, VersionId: id }),
    );

    // Assess
    expect(await conflict).toBe('ResourceExistsException');
    expect(byId).toMatchObject({ SecretString: '{"a":1}', VersionStages: ['CUSTOM'] });
    expect(await cacheVersion()).toBe(currentBefore);
  });
});
