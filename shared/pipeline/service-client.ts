/**
 * The service client as the poll and fetch-result functions use it: tokens from the Secrets Manager
 * backed cache, transient failures retried by the client's one retry policy, a 401 refreshed once.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { fetchAccessToken } from '../client/oauth';
import type { RequestPacer } from '../client/pacer';
import { ResultsClient } from '../client/results-client';
import type { RetryOptions } from '../client/retry';
import type { ServiceAccessConfig } from '../config';
import type { Logger } from '../logger';
import { SecretsTokenProvider } from '../token-cache/secrets-token-provider';

/**
 * Builds the client and its shared token cache (once per container). `transport` sets the per-call
 * timeout and retry caps (fetch-result takes them from its time budget) and the pace every call of the
 * container shares.
 */
export function createServiceClient(
  config: ServiceAccessConfig,
  secrets: SecretsManagerClient,
  logger: Logger,
  transport: { timeoutMs?: number; retry?: Partial<RetryOptions>; pacer?: RequestPacer } = {},
): { client: ResultsClient; tokenProvider: SecretsTokenProvider } {
  const tokenProvider = new SecretsTokenProvider({
    secrets,
    credentialsSecretId: config.credentialsSecretId,
    tokenCacheSecretId: config.tokenCacheSecretId,
    scopes: config.scopes,
    logger,
    // Many containers starting cold at once make one token request (docs/reliability.md).
    refreshLease: {},
    fetchToken: (credentials, scopes) =>
      fetchAccessToken({
        baseUrl: config.serviceBaseUrl,
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        scopes,
      }),
  });
  const client = new ResultsClient({
    baseUrl: config.serviceBaseUrl,
    environment: config.environment,
    tokenProvider,
    scopes: config.scopes,
    ...transport,
  });
  return { client, tokenProvider };
}
