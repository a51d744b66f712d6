/**
 * Token provider that keeps the token in process memory (CLI, tests, any single process).
 * The pipeline's functions use a Secrets Manager backed provider instead, so they share one token.
 */
import { fetchAccessToken } from './oauth';
import type { AccessToken, TokenProvider } from './token-provider';

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
}

/** Caches one token; concurrent callers share a single token request (single flight). */
export class InMemoryTokenProvider implements TokenProvider {
  readonly #options: InMemoryTokenProviderOptions;
  readonly #now: () => number;
  readonly #refreshMarginMs: number;
  #token: AccessToken | undefined;
  #inFlight: Promise<AccessToken> | undefined;

  constructor(options: InMemoryTokenProviderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#refreshMarginMs = options.refreshMarginMs ?? 60_000;
  }

  /** The cached token while it has more than the margin left, else a new one. */
  async getToken(): Promise<AccessToken> {
    const token = this.#token;
    if (token && token.expiresAt - this.#now() > this.#refreshMarginMs) return token;
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
      this.#inFlight = fetchAccessToken({
        baseUrl: o.baseUrl,
        clientId: o.clientId,
        clientSecret: o.clientSecret,
        scopes: o.scopes,
        now: this.#now,
        ...(o.fetch && { fetch: o.fetch }),
        ...(o.timeoutMs !== undefined && { timeoutMs: o.timeoutMs }),
      })
        .then((token) => {
          this.#token = token;
          return token;
        })
        .finally(() => {
          this.#inFlight = undefined;
        });
    }
    return this.#inFlight;
  }
}
