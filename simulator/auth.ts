/**
 * Authentication of simulator requests: HTTP Basic client credentials on the token endpoint (§4.6,
 * compared in constant time) and `Authorization: Bearer <accessToken>` of a live token everywhere else.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { unauthorized } from './http';
import type { IssuedToken, SimulatorState } from './state';

/** Throws 401 unless the request carries the simulator's client id and secret in HTTP Basic. */
export function checkBasic(state: SimulatorState, req: IncomingMessage): void {
  const h = req.headers.authorization;
  const m = h ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(h) : null;
  if (!m) throw unauthorized();
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const sep = decoded.indexOf(':');
  if (sep < 0) throw unauthorized();
  const idOk = safeEqual(decoded.slice(0, sep), state.options.clientId);
  const secretOk = safeEqual(decoded.slice(sep + 1), state.options.clientSecret);
  if (!idOk || !secretOk) throw unauthorized();
}

/** The live token the request presents as `Bearer`; throws 401 when missing, unknown or expired. */
export function checkBearer(state: SimulatorState, req: IncomingMessage): IssuedToken {
  const h = req.headers.authorization;
  const m = h ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  const token = m ? state.liveToken(m[1]!) : undefined;
  if (!token) throw unauthorized();
  return token;
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  // Compare equal-length buffers so the time does not reveal the matching prefix.
  return ab.length === bb.length ? timingSafeEqual(ab, bb) : timingSafeEqual(bb, bb) && false;
}
