/**
 * OAuth token request (spec §4.6, §5): client credentials in HTTP Basic, `scopes` in the JSON body,
 * `expiresIn` in seconds as a string. The in-memory provider and the pipeline's shared cache both call it.
 */
import { PATHS } from '../api/enums';
import { tokenRequestSchema, tokenResponseSchema } from '../api/schemas';
import { RequestValidationError, ResponseFormatError, UnauthorizedError } from './errors';
import { parseJsonOrUndefined, sendWithRetry, sleep } from './http';
import type { RetryOptions } from './retry';
import type { AccessToken } from './token-provider';
import { validateRequest } from './validate';

/** Options of `fetchAccessToken`. */
export interface FetchAccessTokenOptions {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
  readonly fetch?: typeof fetch;
  /** @default 15000 */
  readonly timeoutMs?: number;
  readonly now?: () => number;
  readonly retry?: Partial<RetryOptions>;
}

/** Requests a new access token. 401 → `UnauthorizedError` saying the client credentials were rejected. */
export async function fetchAccessToken(options: FetchAccessTokenOptions): Promise<AccessToken> {
  const now = options.now ?? Date.now;
  if (!options.clientId || !options.clientSecret) {
    throw new RequestValidationError(
      [
        {
          path: options.clientId ? 'clientSecret' : 'clientId',
          message: 'is required to request an access token',
        },
      ],
      'invalid token request',
    );
  }
  const body = validateRequest(tokenRequestSchema, { scopes: [...options.scopes] }, 'token request');
  const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`, 'utf8').toString('base64');
  let response: Awaited<ReturnType<typeof sendWithRetry>>;
  try {
    response = await sendWithRetry(
      {
        method: 'POST',
        url: serviceUrl(options.baseUrl, PATHS.oauthToken),
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(body),
        // Issuing a second token is harmless, so the token request is repeatable.
        mayHaveCreated: false,
      },
      {
        fetch: options.fetch ?? globalThis.fetch,
        timeoutMs: options.timeoutMs ?? 15_000,
        retry: options.retry ?? {},
        sleep,
        now,
      },
    );
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      throw new UnauthorizedError(
        'the service rejected the client credentials (401 on the token request)',
        {
          status: error.status,
          ...(error.code !== undefined && { code: error.code }),
          ...(error.requestId !== undefined && { requestId: error.requestId }),
        },
        { cause: error },
      );
    }
    throw error;
  }
  const parsed = tokenResponseSchema.safeParse(parseJsonOrUndefined(response.body));
  if (!parsed.success) {
    // Never include the body: it holds the token.
    throw new ResponseFormatError(
      `token response is not the documented shape (${parsed.error.issues.map((i) => i.path.join('.') || '(body)').join(', ')})`,
      response.status,
    );
  }
  return {
    accessToken: parsed.data.accessToken,
    tokenType: parsed.data.tokenType || 'Bearer',
    expiresAt: now() + Number(parsed.data.expiresIn) * 1000,
    scopes: [...options.scopes],
  };
}

/** `baseUrl` + `path`, keeping any path prefix of the base URL (e.g. a gateway stage). */
export function serviceUrl(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  return new URL(`${base}${path}`);
}
