/**
 * Who may talk to the simulator at all, checked before any route (control routes `/__sim/*` included):
 *
 * - `Host` must name the address it listens on (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`), so a
 *   web page whose own name was rebound to 127.0.0.1 (DNS rebinding) cannot read its answers;
 * - `Origin`, when a browser sends one, must be the simulator's own, so another site cannot drive it with
 *   "simple" cross-origin POSTs (a `text/plain` body needs no preflight);
 * - with a control secret (the simulator inside `npm start`), `/__sim/*` also needs the header
 *   {@link CONTROL_SECRET_HEADER}: another user of the machine reaches the same loopback port.
 *
 * A simulator told to listen on another interface (`--host 0.0.0.0`) was exposed on purpose; the Host
 * check then accepts any name, the Origin check still holds.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header that carries the control secret of `/__sim/*` when the simulator has one. */
export const CONTROL_SECRET_HEADER = 'x-idv-sim-control';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** What the checks need of the running simulator. */
export interface AccessRules {
  /** The interface it listens on. */
  readonly host: string;
  readonly port: number;
  /** Required on `/__sim/*` when set. */
  readonly controlSecret?: string | undefined;
}

/** Why a request is refused (status and a short reason of ours), or undefined when it may go on. */
export function refusal(
  req: IncomingMessage,
  rules: AccessRules,
): { status: number; reason: string } | undefined {
  const loopback = LOOPBACK_NAMES.includes(bracketed(rules.host));
  const names = loopback ? LOOPBACK_NAMES.map((name) => `${name}:${rules.port}`) : undefined;
  const host = req.headers.host?.toLowerCase();
  if (names && (!host || !names.includes(host))) return { status: 403, reason: 'Host not allowed' };
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, host, rules.port)) {
    return { status: 403, reason: 'cross-origin request refused' };
  }
  const path = req.url ?? '/';
  if (rules.controlSecret !== undefined && path.startsWith('/__sim/')) {
    const given = req.headers[CONTROL_SECRET_HEADER];
    if (typeof given !== 'string' || !sameSecret(given, rules.controlSecret)) {
      return { status: 404, reason: 'Not Found' };
    }
  }
  return undefined;
}

function sameOrigin(origin: string, host: string | undefined, port: number): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  if (url.protocol !== 'http:') return false;
  return host !== undefined ? url.host === host : url.port === String(port);
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function sameSecret(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
