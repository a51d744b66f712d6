/**
 * The webhook's secret path segment, read from Secrets Manager through Powertools Parameters (the
 * `getSecret` provider, with our own — traced — client) and cached per container for `maxAge`, so that a
 * rotated secret is in force within that time without redeploying (warm containers would otherwise answer
 * 404 on the new URL for their whole life). The value is never logged: Powertools does not log values,
 * and the errors here name the secret's role only.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretFormatError } from '../errors';

/** Options of {@link webhookSecretReader}. */
export interface WebhookSecretReaderOptions {
  /** How long a read value is used before it is read again (Powertools `maxAge`). @default 300 (5 minutes) */
  readonly maxAgeSeconds?: number;
}

/**
 * Returns a function that yields the current webhook secret. Concurrent callers share one read (Powertools
 * caches values, not reads in flight: a burst of webhooks on a cold container would read once per request);
 * a failed or empty read is not cached (the next request tries again).
 */
export function webhookSecretReader(
  secrets: SecretsManagerClient,
  secretId: string,
  options: WebhookSecretReaderOptions = {},
): () => Promise<string> {
  const maxAge = options.maxAgeSeconds ?? 300;
  const provider = new SecretsProvider({ awsSdkV3Client: secrets });
  let inFlight: Promise<string> | undefined;
  // After an empty value the cache holds it: the next read must go to Secrets Manager again.
  let forceFetch = false;

  const read = async (): Promise<string> => {
    const value = await provider.get(secretId, { maxAge, forceFetch });
    const text = typeof value === 'string' ? value.trim() : '';
    forceFetch = text === '';
    if (!text) throw new SecretFormatError('webhook secret is empty');
    return text;
  };

  return () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}
