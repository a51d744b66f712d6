/**
 * An OAuth access token as the pipeline keeps it: `expiresAt` is absolute (epoch milliseconds),
 * computed from the service's `expiresIn` (seconds; a string per the spec, or a number) when the token was issued.
 */
export interface AccessToken {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly expiresAt: number;
  readonly scopes: readonly string[];
}

/**
 * Supplies access tokens to the service client. Implementations: an in-memory provider (CLI, tests) and a
 * Secrets Manager backed cache shared by every Lambda function (pipeline).
 */
export interface TokenProvider {
  /** A token valid for at least the provider's refresh margin. */
  getToken(): Promise<AccessToken>;
  /**
   * Called after the service answered 401 to `stale`: drop it (only if it is still the cached one, so
   * concurrent callers do not refresh twice) and return a fresh token.
   */
  refresh(stale: AccessToken): Promise<AccessToken>;
}

/**
 * Whether `token` is still worth presenting at `now`: more than `marginMs` of its life remains. A token
 * living less than twice the margin (known from `issuedAt`) is used for half its life instead; with the
 * plain margin it would never count as fresh and every call would fetch a new token.
 */
export function tokenIsFresh(token: AccessToken, now: number, marginMs: number, issuedAt?: number): boolean {
  const margin = issuedAt === undefined ? marginMs : Math.min(marginMs, (token.expiresAt - issuedAt) / 2);
  return token.expiresAt - margin > now;
}

/**
 * Token types of the OAuth access token type registry that are HTTP authentication schemes the token is
 * presented with (RFC 6750 `Bearer`, RFC 9449 `DPoP`), by their lower-case spelling.
 */
const KNOWN_TOKEN_SCHEMES: Readonly<Record<string, string>> = { bearer: 'Bearer', dpop: 'DPoP' };

/**
 * The `Authorization` header value for `token`: its `tokenType` as the scheme when it is a known one (in
 * its registered spelling), else `Bearer` (the spec does not say how a token is presented, and a missing or
 * unknown type must not put arbitrary text into a header).
 */
export function authorizationOf(token: AccessToken): string {
  const scheme = KNOWN_TOKEN_SCHEMES[token.tokenType.trim().toLowerCase()] ?? 'Bearer';
  return `${scheme} ${token.accessToken}`;
}
