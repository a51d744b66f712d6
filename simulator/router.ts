/**
 * The request path of the simulator: answer `/__sim` controls, find the route and authenticate the
 * request from its headers, and only then read its body (at most what the route needs; a few KiB before
 * authentication), record the request (its body bounded), apply the lifecycle and any injected fault, and
 * answer with JSON or the default error body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkBasic, checkBearer } from './auth';
import { controlRoute } from './controls';
import { handleHostedFlow, isHostedFlowPath } from './hosted-flow';
import {
  type ApiError,
  badRequest,
  CODE,
  DEFAULT_BODY_BYTES,
  HttpError,
  notFound,
  PREAUTH_BODY_BYTES,
  permissionDenied,
  type Route,
  sendError,
  sendJson,
} from './http';
import { readBodyWithin } from './read-body';
import { recordedBody } from './recorded-body';
import type { SimulatorState } from './state';
import type { SimulatorControl } from './types';

/** Largest body of a `/__sim` control (a seed request names groups, not transactions). */
export const MAX_CONTROL_BODY_BYTES = 64 * 1024;

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

/** The route of a request and whether it may be served, decided from the path and headers alone. */
interface Admission {
  route?: Route;
  /** Why the request is refused (404, 405, 401, 403), when it is. */
  refused?: ApiError;
}

/** Finds the route and authenticates: nothing of the body is needed, nothing is read. */
function admit(state: SimulatorState, routes: readonly Route[], req: IncomingMessage, url: URL): Admission {
  try {
    const route = findRoute(routes, req.method ?? 'GET', url.pathname);
    if (route.auth === 'basic') checkBasic(state, req);
    else if (route.auth === 'bearer') {
      const token = checkBearer(state, req);
      if (state.enforceScopes && route.scope && !token.scopes.includes(route.scope)) {
        throw permissionDenied(route.scope);
      }
    }
    return { route };
  } catch (err) {
    if (err instanceof HttpError) return { refused: err.error };
    throw err;
  }
}

/** Answers `error` and closes the connection: the rest of the body is never read. */
function refuseUnread(res: ServerResponse, error: ApiError): void {
  sendError(res, { ...error, headers: { ...error.headers, connection: 'close' } });
}

const TOO_LARGE: ApiError = { status: 413, code: CODE.invalidArgument, message: 'Request body too large' };

/** The request handler of a simulator over `routes`. */
export function createRequestHandler(
  state: SimulatorState,
  routes: readonly Route[],
  control: SimulatorControl,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const method = req.method ?? 'GET';
    // The hosted flow is a browser's: HTML and forms, each link's key checked before its own small body.
    if (isHostedFlowPath(url.pathname)) return handleHostedFlow(state, req, res, url);

    if (url.pathname.startsWith('/__sim/')) {
      // Reached only by whoever may (the control secret of `npm start`'s simulator: `access.ts`).
      const read = await readBodyWithin(req, MAX_CONTROL_BODY_BYTES);
      if (!read.ok) return refuseUnread(res, TOO_LARGE);
      const { body, malformed } = parseBody(read.raw);
      try {
        if (malformed) throw badRequest('(body)', 'is not valid JSON');
        return sendJson(res, 200, await controlRoute(state, control, method, url, body));
      } catch (err) {
        if (err instanceof HttpError) return sendError(res, err.error);
        throw err;
      }
    }

    // Tokens expire on the virtual clock: apply it before deciding whether one is live.
    state.tick();
    const { route, refused } = admit(state, routes, req, url);
    const read = await readBodyWithin(
      req,
      route ? (route.maxBodyBytes ?? DEFAULT_BODY_BYTES) : PREAUTH_BODY_BYTES,
    );
    const parsed = read.ok ? parseBody(read.raw) : undefined;

    state.record({
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: parsed && read.ok ? recordedBody(parsed.body, read.raw.length) : undefined,
      at: state.now(),
    });

    const fault = state.faults.decide(url.pathname);
    if (fault.delayMs > 0) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault.action === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault.action === 'rateLimit') {
      const error: ApiError = {
        status: 429,
        code: CODE.resourceExhausted,
        message: 'TooManyRequests',
        headers: { 'retry-after': String(fault.retryAfterSeconds ?? 1) },
      };
      return read.ok ? sendError(res, error) : refuseUnread(res, error);
    }
    if (fault.action === 'serverError') {
      const status = fault.status ?? 500;
      const error: ApiError = {
        status,
        code: status === 503 ? CODE.unavailable : CODE.internal,
        message: status === 503 ? 'Unavailable' : 'Internal',
      };
      return read.ok ? sendError(res, error) : refuseUnread(res, error);
    }
    const truncate = fault.action === 'truncate';
    // Refused, or too large: the answer, and the connection closed when a body is left unread.
    if (refused) return read.ok ? sendError(res, refused, truncate) : refuseUnread(res, refused);
    if (!read.ok || !route || !parsed) return refuseUnread(res, TOO_LARGE);

    try {
      if (parsed.malformed) throw badRequest('(body)', 'is not valid JSON');
      const params = route.pattern.exec(url.pathname)?.slice(1) ?? [];
      const payload = await route.handler({ req, url, body: parsed.body, params });
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
