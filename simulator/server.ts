/**
 * The service simulator: a contract stand-in for the identity verification service (in the spirit of
 * stripe-mock) on `node:http`. It implements every endpoint and status of the spec, OAuth with expiring
 * tokens, the staging `mock-test` header, the §3 lifecycle, webhooks with retries and seeded fault
 * injection. Tests start it in-process on port 0; `simulator/main.ts` is the command line entry.
 *
 * Layout: `state.ts` (state and lifecycle), `routes/*` (one file per endpoint family), `router.ts` and
 * `http.ts` (HTTP plumbing), `controls.ts` (`/__sim`), `results.ts` (result documents).
 */
import { createServer, type ServerResponse } from 'node:http';
import { type AccessRules, refusal } from './access';
import { createControl } from './controls';
import { CODE, type Route, sendError } from './http';
import { IMAGE_SLOTS, type ImageSlot, POOL_VARIANTS, pooledImage } from './images';
import { StateStore } from './persisted-state';
import { createRequestHandler } from './router';
import { oauthRoutes } from './routes/oauth';
import { resultRoutes } from './routes/results';
import { secureLinkRoutes } from './routes/secure-links';
import { uploadRoutes } from './routes/uploads';
import { vogRoutes } from './routes/vog';
import { SimulatorState } from './state';
import type { RunningSimulator, SimulatorOptions } from './types';

export type { FaultOptions, ResultFault } from './faults';
export type {
  RecordedRequest,
  RestoredState,
  RunningSimulator,
  SimulatorControl,
  SimulatorOptions,
  SimulatorStats,
} from './types';
export type { WebhookRetryOptions } from './webhooks';

/** Starts a simulator; resolves once it listens. Rejects (e.g. `EADDRINUSE`) when it cannot. */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  // A bad webhook address would only show as silently abandoned deliveries: refuse it at start.
  checkWebhookUrl('resultWebhookUrl', options.resultWebhookUrl);
  checkWebhookUrl('uploadWebhookUrl', options.uploadWebhookUrl);
  const state = new SimulatorState(options);
  const control = createControl(state);
  const routes: Route[] = [
    ...oauthRoutes(state),
    ...secureLinkRoutes(state),
    ...uploadRoutes(state),
    ...vogRoutes(state),
    ...resultRoutes(state),
  ];
  const handle = createRequestHandler(state, routes, control);
  const store = options.stateDir !== undefined ? new StateStore(options.stateDir, state) : undefined;
  const restored = store?.load();

  const host = options.host ?? '127.0.0.1';
  let rules: AccessRules | undefined;
  const server = createServer((req, res) => {
    // Before any route and before reading a byte of body: Host, Origin, the control secret.
    const refused = rules ? refusal(req, rules) : { status: 503, reason: 'starting' };
    if (refused) {
      res.writeHead(refused.status, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ message: refused.reason }));
      return;
    }
    if (store) saveBeforeAnswering(res, store);
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, { status: 500, code: CODE.internal, message: 'Internal' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  rules = { host, port, controlSecret: options.controlSecret };
  state.baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  // Completions and webhooks happen even when nobody polls; the timer never keeps the process alive.
  const ticker = setInterval(() => {
    state.tick();
    if (store) trySave(() => store.saveIfChanged());
  }, 100);
  ticker.unref();
  const stopWarming = options.warmImagePool ? warmImagePool() : () => {};

  return {
    url: state.baseUrl,
    port,
    seed: state.seed,
    environment: state.environment,
    requests: state.requests,
    control,
    ...(restored ? { restored } : {}),
    close: async () => {
      clearInterval(ticker);
      if (store) trySave(() => store.save());
      stopWarming();
      state.webhooks.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Writes the state before the answer's headers go out, whatever answers (a route, a control, the hosted
 * flow): what the client is told is on disk first, so a kill right after cannot take it back.
 */
function saveBeforeAnswering(res: ServerResponse, store: StateStore): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
    trySave(() => store.save());
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

let saveFailureReported = false;

/** Runs a save; a failure (a full disk) is reported once, by its code, and the simulator goes on. */
function trySave(save: () => void): void {
  try {
    save();
  } catch (error) {
    if (saveFailureReported) return;
    saveFailureReported = true;
    console.error(
      `simulator: could not save its state (${(error as NodeJS.ErrnoException).code ?? 'error'}): a restart may lose what changed since`,
    );
  }
}

/** Generates the result image pool one image per event-loop turn; returns a function that stops it. */
function warmImagePool(): () => void {
  const slots = (Object.keys(IMAGE_SLOTS) as ImageSlot[]).flatMap((slot) =>
    Array.from({ length: POOL_VARIANTS }, (_, v) => [slot, v] as const),
  );
  let warming: NodeJS.Immediate | undefined;
  const next = () => {
    const item = slots.shift();
    if (!item) return;
    pooledImage(item[0], item[1]);
    warming = setImmediate(next);
    warming.unref();
  };
  warming = setImmediate(next);
  warming.unref();
  return () => {
    if (warming) clearImmediate(warming);
  };
}

/** Throws a `TypeError` naming the option unless `url` is absent or an `http:`/`https:` address. */
function checkWebhookUrl(name: string, url: string | undefined): void {
  if (url === undefined) return;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    throw new TypeError(`${name} must be an http:// or https:// URL, got "${url}"`);
  }
}
