/**
 * A `TokenProvider` for the Lambda functions: the access token is cached in memory and in a Secrets
 * Manager secret shared by every function, so a fleet of containers asks the service for one token per
 * lifetime instead of one per cold start. Client credentials come from a second secret.
 *
 * Lookup order: memory → cache secret → new token from the service (then written to the cache secret).
 * A token counts as usable while more than `refreshMarginMs` of its life remains. With `refreshLease`,
 * containers that find the cache stale at the same time elect one of them to ask the service (see
 * refresh-lease.ts); the others wait for the token it writes.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { ResponseFormatError, serviceErrorFromResponse } from '../client/errors';
import { type AccessToken, type TokenProvider, tokenIsFresh } from '../client/token-provider';
import { describeError, PipelineError, SecretFormatError } from '../errors';
import type { Logger } from '../logger';
import { type LeaseFailure, RefreshLease, type RefreshLeaseOptions } from './refresh-lease';

/** Client credentials as stored in the credentials secret. */
export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Requests a new token from the service (in production: `fetchAccessToken` of the client). */
export type FetchToken = (credentials: ClientCredentials, scopes: readonly string[]) => Promise<AccessToken>;

/** Options of `SecretsTokenProvider`. */
export interface SecretsTokenProviderOptions {
  readonly secrets: SecretsManagerClient;
  readonly credentialsSecretId: string;
  readonly tokenCacheSecretId: string;
  readonly scopes: readonly string[];
  readonly fetchToken: FetchToken;
  /** @default Date.now */
  readonly now?: () => number;
  /** Refresh when less than this remains. @default 300000 (5 min) */
  readonly refreshMarginMs?: number;
  /** How long the credentials are kept in memory, so a rotation is picked up. @default 300000 (5 min) */
  readonly credentialsTtlMs?: number;
  readonly logger?: Logger;
  /**
   * Elect one refresher among all containers sharing the cache secret (needs `PutSecretValue` on it, which
   * the cache write needs anyway). @default undefined (no lease: every container refreshes by itself)
   */
  readonly refreshLease?: RefreshLeaseOptions;
}

/** The cache secret as read: its token (when it holds one) and the version it was read from. */
interface CacheRead {
  readonly token?: CachedToken;
  readonly versionId?: string;
}

/** A token with the time it was issued (epoch ms), when known: it bounds the refresh margin. */
export interface CachedToken extends AccessToken {
  readonly issuedAt?: number;
}

/** Secrets Manager backed token cache shared by the poll and fetch-result functions. */
export class SecretsTokenProvider implements TokenProvider {
  readonly #options: SecretsTokenProviderOptions;
  readonly #now: () => number;
  readonly #marginMs: number;
  readonly #credentialsTtlMs: number;
  #token: CachedToken | undefined;
  #credentials: { value: ClientCredentials; readAt: number } | undefined;
  /**
   * Single flight: concurrent callers share one lookup or refresh. `rejected` is the token that lookup
   * will not return, so `refresh(stale)` joins only a lookup that cannot hand back `stale`.
   */
  #pending: { readonly promise: Promise<AccessToken>; readonly rejected: string | undefined } | undefined;
  readonly #lease: RefreshLease | undefined;

  constructor(options: SecretsTokenProviderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#marginMs = options.refreshMarginMs ?? 300_000;
    this.#credentialsTtlMs = options.credentialsTtlMs ?? 300_000;
    this.#lease = options.refreshLease
      ? new RefreshLease(options.secrets, options.tokenCacheSecretId, options.refreshLease)
      : undefined;
  }

  async getToken(): Promise<AccessToken> {
    if (this.#token && this.#usable(this.#token)) return this.#token;
    return this.#singleFlight(undefined);
  }

  async refresh(stale: AccessToken): Promise<AccessToken> {
    // Another caller already replaced the stale token: use the new one instead of refreshing again.
    if (this.#token && this.#token.accessToken !== stale.accessToken && this.#usable(this.#token)) {
      return this.#token;
    }
    if (this.#token?.accessToken === stale.accessToken) this.#token = undefined;
    // A lookup already in flight (a getToken, or a refresh of another token) may return the very token the
    // service just rejected (it is still in the cache secret): wait for it, and use its answer only if it
    // is another token.
    while (this.#pending && this.#pending.rejected !== stale.accessToken) {
      const answer = await this.#pending.promise.catch(() => undefined);
      if (answer && answer.accessToken !== stale.accessToken) return answer;
    }
    return this.#singleFlight(stale);
  }

  #singleFlight(rejected: AccessToken | undefined): Promise<AccessToken> {
    if (!this.#pending) {
      const pending = {
        rejected: rejected?.accessToken,
        promise: this.#load(rejected).finally(() => {
          if (this.#pending === pending) this.#pending = undefined;
        }),
      };
      this.#pending = pending;
    }
    return this.#pending.promise;
  }

  /** Cache secret first (unless it holds the rejected token), then the lease, then the service. */
  async #load(rejected: AccessToken | undefined): Promise<AccessToken> {
    const wanted = (token: CachedToken | undefined): token is CachedToken =>
      token !== undefined && this.#usable(token) && token.accessToken !== rejected?.accessToken;
    const cached = await this.#readCache();
    if (wanted(cached.token)) {
      this.#token = cached.token;
      return cached.token;
    }
    let held: string | undefined;
    if (this.#lease && cached.versionId !== undefined) {
      const outcome = await this.#lease.acquire(cached.versionId, async () => {
        const view = await this.#readCache();
        return { versionId: view.versionId, token: wanted(view.token) ? view.token : undefined };
      });
      if (outcome.kind === 'refreshed') {
        this.#token = outcome.token;
        return outcome.token;
      }
      if (outcome.kind === 'failed') throw errorOfFailure(outcome.failure);
      if (outcome.kind === 'held') held = cached.versionId;
    }
    const credentials = await this.#readCredentials();
    const issuedAt = this.#now();
    let fetched: AccessToken;
    try {
      fetched = await this.#options.fetchToken(credentials, this.#options.scopes);
    } catch (error) {
      // The containers waiting for this refresh fail with it now, instead of waiting the lease out.
      if (held !== undefined) await this.#lease?.fail(held, failureOf(error));
      throw error;
    }
    const token: CachedToken = { ...fetched, issuedAt };
    this.#token = token;
    this.#options.logger?.info('access token refreshed', {
      reason: rejected ? 'rejected' : 'expired',
      expiresAt: new Date(token.expiresAt).toISOString(),
    });
    await this.#writeCache(token);
    return token;
  }

  #usable(token: CachedToken): boolean {
    if (!tokenIsFresh(token, this.#now(), this.#marginMs, token.issuedAt)) return false;
    // A token cached for fewer scopes (another configuration) would fail with 403.
    return this.#options.scopes.every((s) => token.scopes.includes(s));
  }

  async #readCache(): Promise<CacheRead> {
    try {
      const response = await this.#options.secrets.send(
        new GetSecretValueCommand({ SecretId: this.#options.tokenCacheSecretId }),
      );
      const token = parseCachedToken(response.SecretString);
      return { ...(token && { token }), ...(response.VersionId && { versionId: response.VersionId }) };
    } catch (error) {
      // An unreadable cache only costs a token request; the credentials secret still decides.
      this.#options.logger?.warn('token cache secret could not be read', { error: describeError(error) });
      return {};
    }
  }

  async #writeCache(token: CachedToken): Promise<void> {
    try {
      await this.#options.secrets.send(
        new PutSecretValueCommand({
          SecretId: this.#options.tokenCacheSecretId,
          SecretString: JSON.stringify({
            accessToken: token.accessToken,
            tokenType: token.tokenType,
            expiresAt: token.expiresAt,
            scopes: token.scopes,
            ...(token.issuedAt !== undefined && { issuedAt: token.issuedAt }),
          }),
        }),
      );
    } catch (error) {
      // The token is valid in memory; other containers fetch their own until the next write succeeds.
      this.#options.logger?.warn('token cache secret could not be written', { error: describeError(error) });
    }
  }

  async #readCredentials(): Promise<ClientCredentials> {
    const cached = this.#credentials;
    if (cached && this.#now() - cached.readAt < this.#credentialsTtlMs) return cached.value;
    const response = await this.#options.secrets.send(
      new GetSecretValueCommand({ SecretId: this.#options.credentialsSecretId }),
    );
    const value = parseCredentials(response.SecretString);
    this.#credentials = { value, readAt: this.#now() };
    return value;
  }
}

/** What the waiters learn of a failed refresh: class name, our message (scrubbed, bounded), status. */
function failureOf(error: unknown): LeaseFailure {
  const described = describeError(error);
  const status = (error as { status?: unknown } | null)?.status;
  return {
    name: String(described['name']).slice(0, 100),
    message: String(described['message']).slice(0, 300),
    ...(typeof status === 'number' && { status }),
  };
}

/**
 * The error a waiter throws for another container's failed refresh: a `ResponseFormatError` stays one
 * (a token answer that makes no sense), a service's status keeps its class; anything else (no answer,
 * unreadable credentials) becomes a `TokenRefreshFailedError`.
 */
function errorOfFailure(failure: LeaseFailure): Error {
  const message = `${failure.message} (token refresh by another container)`;
  if (failure.name === 'ResponseFormatError' && failure.status !== undefined) {
    return new ResponseFormatError(message, failure.status);
  }
  if (failure.status !== undefined && failure.status >= 400 && failure.status <= 599) {
    const error = serviceErrorFromResponse(failure.status, undefined, new Headers());
    error.message = message;
    return error;
  }
  return new TokenRefreshFailedError(message);
}

/** Another container's token refresh just failed without an answer of the service (see `errorOfFailure`). */
export class TokenRefreshFailedError extends PipelineError {
  constructor(message: string) {
    super(message);
    this.name = 'TokenRefreshFailedError';
  }
}

/** The cache secret's token, or undefined when it is empty (`{}`) or not a token. */
export function parseCachedToken(secretString: string | undefined): CachedToken | undefined {
  if (!secretString) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(secretString);
  } catch {
    return undefined;
  }
  const t = json as Partial<Record<keyof CachedToken, unknown>>;
  if (
    typeof t?.accessToken !== 'string' ||
    t.accessToken.length === 0 ||
    typeof t.expiresAt !== 'number' ||
    !Array.isArray(t.scopes)
  ) {
    return undefined;
  }
  return {
    accessToken: t.accessToken,
    tokenType: typeof t.tokenType === 'string' && t.tokenType ? t.tokenType : 'Bearer',
    expiresAt: t.expiresAt,
    scopes: t.scopes.filter((s): s is string => typeof s === 'string'),
    ...(typeof t.issuedAt === 'number' && t.issuedAt < t.expiresAt && { issuedAt: t.issuedAt }),
  };
}

/** The credentials secret's `{ clientId, clientSecret }`; the error never includes the secret's value. */
export function parseCredentials(secretString: string | undefined): ClientCredentials {
  const problem = 'credentials secret must be JSON {"clientId":"…","clientSecret":"…"}';
  let json: unknown;
  try {
    json = JSON.parse(secretString ?? '');
  } catch {
    throw new SecretFormatError(`${problem} (it is empty or not JSON)`);
  }
  const c = json as { clientId?: unknown; clientSecret?: unknown } | null;
  if (typeof c?.clientId !== 'string' || !c.clientId) {
    throw new SecretFormatError(`${problem} (clientId is missing)`);
  }
  if (typeof c.clientSecret !== 'string' || !c.clientSecret) {
    throw new SecretFormatError(`${problem} (clientSecret is missing)`);
  }
  return { clientId: c.clientId, clientSecret: c.clientSecret };
}
