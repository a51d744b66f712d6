/**
 * The webhook's secret path segment, read from Secrets Manager and cached per container for a limited
 * time, so that a rotated secret is in force within `ttlMs` without redeploying (warm containers would
 * otherwise answer 404 on the new URL for their whole life).
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretFormatError } from '../errors';

/** Options of {@link webhookSecretReader}. */
export interface WebhookSecretReaderOptions {
  /** How long a read value is used before it is read again. @default 300_000 (5 minutes) */
  readonly ttlMs?: number;
  /** Clock, for tests. @default Date.now */
  readonly now?: () => number;
}

/**
 * Returns a function that yields the current webhook secret. Concurrent callers share one read; a failed
 * read is not cached (the next request tries again).
 */
export function webhookSecretReader(
  secrets: SecretsManagerClient,
  secretId: string,
  options: WebhookSecretReaderOptions = {},
): () => Promise<string> {
  const ttlMs = options.ttlMs ?? 300_000;
  const now = options.now ?? Date.now;
  let cached: { value: Promise<string>; readAt: number } | undefined;

  return () => {
    if (cached && now() - cached.readAt < ttlMs) return cached.value;
    const entry = {
      readAt: now(),
      value: secrets.send(new GetSecretValueCommand({ SecretId: secretId })).then((response) => {
        const value = response.SecretString?.trim();
        if (!value) throw new SecretFormatError('webhook secret is empty');
        return value;
      }),
    };
    entry.value.catch(() => {
      if (cached === entry) cached = undefined;
    });
    cached = entry;
    return entry.value;
  };
}
