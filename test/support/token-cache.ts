/**
 * The token cache of the unit tests (test/unit/token-cache-*.test.ts): a `SecretsTokenProvider` on the
 * secrets `creds` (the client credentials) and `cache` (the token), asking for {@link TOKEN_SCOPES}.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AccessToken } from '../../shared/client/token-provider';
import {
  SecretsTokenProvider,
  type SecretsTokenProviderOptions,
} from '../../shared/token-cache/secrets-token-provider';

/** The scopes the provider asks for. */
export const TOKEN_SCOPES = ['productapi.poll.read', 'productapi.result.read'];

/** A Bearer token `name` for `scopes`, expiring at `expiresAt`. */
export function bearer(name: string, expiresAt: number, scopes: string[] = TOKEN_SCOPES): AccessToken {
  return { accessToken: name, tokenType: 'Bearer', expiresAt, scopes };
}

/** The provider on `creds` and `cache` for {@link TOKEN_SCOPES}, with `options` (how it fetches, its clock …). */
export function secretsProvider(
  options: Omit<
    SecretsTokenProviderOptions,
    'secrets' | 'credentialsSecretId' | 'tokenCacheSecretId' | 'scopes'
  >,
): SecretsTokenProvider {
  return new SecretsTokenProvider({
    secrets: new SecretsManagerClient({ region: 'eu-west-1' }),
    credentialsSecretId: 'creds',
    tokenCacheSecretId: 'cache',
    scopes: TOKEN_SCOPES,
    ...options,
  });
}
