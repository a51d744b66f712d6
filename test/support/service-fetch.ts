/**
 * A recorded `fetch` for unit tests of the client against answers another, spec-conforming implementation
 * of the service may give: the token endpoint answers with a given body, every other call with `respond`.
 */
import { IdvClient } from '../../shared/client/client';

/** One request the fake saw. */
export interface SeenRequest {
  url: URL;
  headers: Headers;
  body: string | undefined;
}

/** A fetch that answers the token endpoint with `token` and every other call with `respond`. */
export function serviceFetch(
  token: unknown,
  respond: (url: URL) => Response = () => Response.json({ results: [] }),
): { fetch: typeof fetch; calls: SeenRequest[] } {
  const calls: SeenRequest[] = [];
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    calls.push({ url, headers: new Headers(init?.headers), body: init?.body as string | undefined });
    if (url.pathname.endsWith('/oauth/token')) return Response.json(token);
    return respond(url);
  }) as typeof fetch;
  return { fetch: fetchFn, calls };
}

/** A staging client on an unused address that sends every request through `fetchFn`. */
export function clientOn(fetchFn: typeof fetch): IdvClient {
  return new IdvClient({
    baseUrl: 'http://127.0.0.1:9',
    environment: 'staging',
    credentials: { clientId: 'c', clientSecret: 's' },
    fetch: fetchFn,
  });
}
