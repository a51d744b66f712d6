/**
 * The request path of the simulator: read the body (size-limited), answer `/__sim` controls, record
 * the request, apply the lifecycle and any injected fault, then route by path and method with the
 * route's authentication and answer with JSON or the default error body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkBasic, checkBearer } from './auth';
import { controlRoute } from './controls';
import { handleHostedFlow, isHostedFlowPath } from './hosted-flow';
import {
  badRequest,
  CODE,
  HttpError,
  notFound,
  permissionDenied,
  type Route,
  sendError,
  sendJson,
} from './http';
import { readBody } from './read-body';
import type { SimulatorState } from './state';
import type { SimulatorControl } from './types';

/** Largest request body accepted; a larger one is a 413. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** A parsed request body: JSON, or the raw text with `malformed` set. */
interface ParsedBody {
  body: unknown;
  malformed: boolean;
}

function parseBody(raw: Buffer): ParsedBody {
  const text = raw.toString('utf8');
  if (text.trim() === '') return { body: undefined, malformed: false };
  try {
    return { body: JSON.parse(text), malformed: false };
  } catch {
    return { body: text, malformed: true };
  }
}

/** The request handler of a simulator over `routes`. */
export function createRequestHandler(
  state: SimulatorState,
  routes: readonly Route[],
  control: SimulatorControl,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const method = req.method ?? 'GET';
    // The hosted flow is a browser's: HTML and forms with their own, much smaller, body limit.
    if (isHostedFlowPath(url.pathname)) return handleHostedFlow(state, req, res, url);
    const raw = await readBody(req, MAX_BODY_BYTES);
    if (raw === undefined) {
      return sendError(res, { status: 413, code: CODE.invalidArgument, message: 'Request body too large' });
    }
    const { body, malformed } = parseBody(raw);

    if (url.pathname.startsWith('/__sim/')) {
      try {
        if (malformed) throw badRequest('(body)', 'is not valid JSON');
        return sendJson(res, 200, await controlRoute(state, control, method, url, body));
      } catch (err) {
        if (err instanceof HttpError) return sendError(res, err.error);
        throw err;
      }
    }

    state.record({
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      at: state.now(),
    });
    state.tick();

    const fault = state.faults.decide(url.pathname);
    if (fault.delayMs > 0) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault.action === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault.action === 'rateLimit') {
      return sendError(res, {
        status: 429,
        code: CODE.resourceExhausted,
        message: 'TooManyRequests',
        headers: { 'retry-after': String(fault.retryAfterSeconds ?? 1) },
      });
    }
    if (fault.action === 'serverError') {
      const status = fault.status ?? 500;
      return sendError(res, {
        status,
        code: status === 503 ? CODE.unavailable : CODE.internal,
        message: status === 503 ? 'Unavailable' : 'Internal',
      });
    }
    const truncate = fault.action === 'truncate';

    try {
      const route = findRoute(routes, method, url.pathname);
      if (route.auth === 'basic') checkBasic(state, req);
      else if (route.auth === 'bearer') {
        const token = checkBearer(state, req);
        if (state.enforceScopes && route.scope && !token.scopes.includes(route.scope)) {
          throw permissionDenied(route.scope);
        }
      }
      if (malformed) throw badRequest('(body)', 'is not valid JSON');
      const params = route.pattern.exec(url.pathname)?.slice(1) ?? [];
      const payload = await route.handler({ req, url, body, params });
      sendJson(res, 200, payload, truncate);
    } catch (err) {
      if (err instanceof HttpError) return sendError(res, err.error, truncate);
      // An unexpected failure is a bug of the simulator: answer 500 without leaking internals.
      console.error('simulator: unexpected error', err instanceof Error ? err.name : 'unknown');
      sendError(res, { status: 500, code: CODE.internal, message: 'Internal' });
    }
  };
}

/** The route for `method` and `path`; 404 for an unknown path, 405 (with `Allow`) for a wrong method. */
function findRoute(routes: readonly Route[], method: string, path: string): Route {
  const candidates = routes.filter((r) => r.pattern.test(path));
  if (candidates.length === 0) throw notFound();
  const route = candidates.find((r) => r.method === method);
  if (route) return route;
  throw new HttpError({
    status: 405,
    code: CODE.unimplemented,
    message: 'MethodNotAllowed',
    headers: { allow: [...new Set(candidates.map((r) => r.method))].join(', ') },
  });
}
