/**
 * OAuth token request (spec §4.6, §5): client credentials in HTTP Basic, `scopes` in the JSON body,
 * `expiresIn` in seconds as a string (a JSON number is accepted too; `tokenType` defaults to `Bearer`). The
 * in-memory provider and the pipeline's shared cache both call it. No error of it carries anything of the
 * request (the Basic credentials) or of the answer's body.
 */
import { PATHS } from '../api/enums';
import { parseTokenResponse } from '../api/responses';
import type { ErrorTextKeeper } from './error-text';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  RequestValidationError,
  ResponseFormatError,
  serviceErrorFields,
  statusWithCode,
  UnauthorizedError,
  type ValidationIssue,
} from './errors';
import { parseJsonOrUndefined, sendWithRetry, sleep } from './http';
import type { RetryOptions } from './retry';
import type { AccessToken } from './token-provider';

/**
 * Shortest token lifetime believed, in seconds: a positive `expiresIn` below it counts as 60 s, so a
 * service answering `"1"` does not make every call fetch a token. Zero or less is refused
 * (`parseTokenResponse`).
 */
export const MIN_TOKEN_LIFETIME_SECONDS = 60;

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
  /** See `TransportOptions.keepErrorText`. @default none */
  readonly keepErrorText?: ErrorTextKeeper;
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
  const body = tokenRequestBody(options.scopes);
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
        ...(options.keepErrorText && { keepErrorText: options.keepErrorText }),
      },
    );
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      throw new UnauthorizedError(
        `the service rejected the client credentials (${statusWithCode(error)} on the token request)`,
        serviceErrorFields(error),
        { cause: error },
      );
    }
    if (error instanceof BadRequestError || error instanceof ForbiddenError) {
      // Credentials fine, scopes not: a client granted fewer or other scopes than asked for.
      const Refused = error instanceof BadRequestError ? BadRequestError : ForbiddenError;
      throw new Refused(
        `the service refused the token request for the scopes ${body.scopes.join(', ')} (${statusWithCode(error)}); ` +
          'ask only for the scopes the client is granted',
        serviceErrorFields(error),
        { cause: error },
      );
    }
    if (error instanceof NotFoundError) {
      // The first call of every session: a 404 here almost always means a wrong base URL.
      throw new NotFoundError(
        `no token endpoint at ${serviceUrl(options.baseUrl, PATHS.oauthToken).href} (${statusWithCode(error)}); the base URL ` +
          'should be the address before /api/v2',
        serviceErrorFields(error),
        { cause: error },
      );
    }
    throw error;
  }
  const json = parseJsonOrUndefined(response.body);
  // Never include the body: it holds the token (or, from a broken gateway, an HTML page).
  if (json === undefined) throw new ResponseFormatError('token response is not JSON', response.status);
  const parsed = parseTokenResponse(json);
  if (!parsed.ok) {
    // Field names only, never their values.
    throw new ResponseFormatError(
      `token response is not the documented shape (${parsed.paths.join(', ')})`,
      response.status,
    );
  }
  // A tiny lifetime is taken as the floor: else every call would fetch a token. If the token really
  // dies sooner, the service's 401 makes the client refresh it once (results-client.ts).
  const lifetimeSeconds = Math.max(parsed.value.expiresIn, MIN_TOKEN_LIFETIME_SECONDS);
  return {
    accessToken: parsed.value.accessToken,
    tokenType: parsed.value.tokenType,
    expiresAt: now() + Math.floor(lifetimeSeconds * 1000),
    scopes: [...options.scopes],
  };
}

/**
 * The token request body (§4.6) after the rules the service applies to it (the simulator's
 * `tokenRequestSchema`): at least one scope, none empty. Checked by hand so the functions bundle no zod.
 */
function tokenRequestBody(scopes: readonly unknown[]): { scopes: string[] } {
  const issues: ValidationIssue[] = [];
  if (scopes.length === 0) issues.push({ path: 'scopes', message: 'must name at least one scope' });
  scopes.forEach((scope, i) => {
    if (typeof scope !== 'string') issues.push({ path: `scopes[${i}]`, message: 'must be a string' });
    else if (scope.length === 0) issues.push({ path: `scopes[${i}]`, message: 'must not be empty' });
  });
  if (issues.length > 0) throw new RequestValidationError(issues, 'invalid token request');
  return { scopes: scopes as string[] };
}

/**
 * `baseUrl` + `path`, keeping any path prefix of the base URL (e.g. a gateway stage). The base URL must be
 * an `http:`/`https:` address without user info, query or fragment: credentials belong in the client
 * options (a URL ends up in error messages), and anything else would silently change every request.
 */
export function serviceUrl(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  const problem = baseUrlProblem(base);
  if (problem) {
    throw new RequestValidationError(
      [{ path: 'baseUrl', message: problem }],
      'invalid base URL of the verification service',
    );
  }
  return new URL(`${base}${path}`);
}

/**
 * What is wrong with a base URL of the service, in words that follow its name (`baseUrl …`,
 * `IDV_BASE_URL …`), or `undefined` when it is usable. The one rule for the client, the functions'
 * configuration and the stack's settings.
 */
export function baseUrlProblem(base: string): string | undefined {
  if (!URL.canParse(base))
    return 'is not a URL (expected e.g. https://service.example or http://127.0.0.1:4010)';
  const url = new URL(base);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'must start with http:// or https:// (e.g. http://127.0.0.1:4010)';
  }
  if (url.username || url.password)
    return 'must not contain user info; pass the client credentials separately';
  if (url.search || url.hash) return 'must not have a query or fragment';
  return undefined;
}
