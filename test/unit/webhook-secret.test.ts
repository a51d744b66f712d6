import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { webhookSecretReader } from '../../shared/pipeline/webhook-secret';

const secretsMock = mockClient(SecretsManagerClient);

describe('webhookSecretReader', () => {
  beforeEach(() => {
    secretsMock.reset();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads once within the TTL and again after it, so a rotation takes effect', async () => {
    // Prepare
    // Powertools keeps a value until its maxAge has passed, by the system clock.
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000 });
    const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);
    secretsMock
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: 'first-secret' })
      .resolvesOnce({ SecretString: 'rotated-secret' });
    const read = webhookSecretReader(new SecretsManagerClient({}), 'webhook', { maxAgeSeconds: 60 });

    // Act
    const [a, b] = await Promise.all([read(), read()]);
    advance(59_999);
    const c = await read();
    // Powertools expires a value strictly after maxAge (the hand-written cache did at maxAge).
    advance(2);
    const d = await read();

    // Assess
    expect([a, b, c, d]).toEqual(['first-secret', 'first-secret', 'first-secret', 'rotated-secret']);
    expect(secretsMock.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('does not cache a failed or empty read', async () => {
    // Prepare
    secretsMock
      .on(GetSecretValueCommand)
      .rejectsOnce(new Error('throttled'))
      .resolvesOnce({ SecretString: '  ' })
      .resolvesOnce({ SecretString: 'the-secret' });
    const read = webhookSecretReader(new SecretsManagerClient({}), 'webhook');

    // Act / Assess
    await expect(read()).rejects.toThrow('throttled');
    await expect(read()).rejects.toThrow('webhook secret is empty');
    await expect(read()).resolves.toBe('the-secret');
  });
});
