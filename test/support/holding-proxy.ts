/**
 * An HTTP proxy in front of the simulator that holds the first result body half way: it sends the
 * status, the headers and the first half of the body, then a byte every 500 ms until the test calls
 * `release`. What a
 * slow network does to a large result, on demand, so a test can act while fetch-result is mid-stream.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';

/** A running proxy. */
export interface HoldingProxy {
  /** The proxy's base URL (use it as the service URL). */
  readonly url: string;
  /** Resolves with the resultId once half of its body has been sent. */
  readonly holding: Promise<string>;
  /** Sends the rest of the held body. */
  release(): void;
  close(): Promise<void>;
}

const RESULT_PATH = /^\/api\/v2\/result\/([^/?]+)/;

/** Starts a proxy to `target` (the simulator's base URL) on a free 127.0.0.1 port. */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  let holdingResolve!: (resultId: string) => void;
  let release!: () => void;
  const holding = new Promise<string>((resolve) => (holdingResolve = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const match = RESULT_PATH.exec(req.url ?? '');
    const hold = match !== null && !held;
    if (hold) held = true;
    const outgoing = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        if (!hold || answer.statusCode !== 200) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', async () => {
          const body = Buffer.concat(chunks);
          let sent = Math.floor(body.length / 2);
          res.writeHead(200, answer.headers);
          res.write(body.subarray(0, sent));
          holdingResolve(decodeURIComponent(match[1]!));
          // One byte every 500 ms while held: the client's per-read timeout (a few seconds) sees a slow
          // connection, not a dead one, and the body stays all but paused.
          const trickle = setInterval(() => {
            if (sent < body.length - 1) res.write(body.subarray(sent, ++sent));
          }, 500);
          await released;
          clearInterval(trickle);
          res.end(body.subarray(sent));
        });
      },
    );
    outgoing.on('error', () => res.destroy());
    req.pipe(outgoing);
  };

  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    holding,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
