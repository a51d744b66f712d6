/**
 * Token provider that keeps the token in process memory (CLI, tests, any single process).
 * The pipeline's functions use a Secrets Manager backed provider instead, so they share one token.
 */
import type { ErrorTextKeeper } from './error-text';
import { fetchAccessToken } from './oauth';
import { type AccessToken, type TokenProvider, tokenIsFresh } from './token-provider';

/** Options of `InMemoryTokenProvider`. */
export interface InMemoryTokenProviderOptions {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
  /** A token with less than this left is refreshed before use. @default 60000 */
  readonly refreshMarginMs?: number;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
  /** Timeout of the token request. @default 15000 */
  readonly timeoutMs?: number;
  /** See `TransportOptions.keepErrorText`. @default none */
  readonly keepErrorText?: ErrorTextKeeper;
}

/** Caches one token; concurrent callers share a single token request (single flight). */
export class InMemoryTokenProvider implements TokenProvider {
  readonly #options: InMemoryTokenProviderOptions;
  readonly #now: () => number;
  readonly #refreshMarginMs: number;
  #token: AccessToken | undefined;
  /** When the cached token was issued (epoch ms): bounds the refresh margin of short-lived tokens. */
  #issuedAt = 0;
  #inFlight: Promise<AccessToken> | undefined;

  constructor(options: InMemoryTokenProviderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#refreshMarginMs = options.refreshMarginMs ?? 60_000;
  }

  /** The cached token while it is fresh (see {@link tokenIsFresh}), else a new one. */
  async getToken(): Promise<AccessToken> {
    const token = this.#token;
    if (token && tokenIsFresh(token, this.#now(), this.#refreshMarginMs, this.#issuedAt)) return token;
    return this.#fetch();
  }

  /** Drops `stale` if it is still the cached token and returns a fresh one. */
  async refresh(stale: AccessToken): Promise<AccessToken> {
    // Another caller already replaced the stale token: use theirs instead of asking again.
    if (this.#token && this.#token !== stale) return this.getToken();
    this.#token = undefined;
    return this.#fetch();
  }

  #fetch(): Promise<AccessToken> {
    if (!this.#inFlight) {
      const o = this.#options;
      const issuedAt = this.#now();
      this.#inFlight = fetchAccessToken({
        baseUrl: o.baseUrl,
        clientId: o.clientId,
        clientSecret: o.clientSecret,
        scopes: o.scopes,
        now: this.#now,
        ...(o.fetch && { fetch: o.fetch }),
        ...(o.timeoutMs !== undefined && { timeoutMs: o.timeoutMs }),
        ...(o.keepErrorText && { keepErrorText: o.keepErrorText }),
      })
        .then((token) => {
          this.#token = token;
          this.#issuedAt = issuedAt;
          return token;
        })
        .finally(() => {
          this.#inFlight = undefined;
        });
    }
    return this.#inFlight;
  }
}
