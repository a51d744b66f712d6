/**
 * Benchmark child: the service simulator behind a thin HTTP proxy, in a process of its own so the
 * simulator's image pool and request log do not count towards the handler's memory.
 *
 * The proxy passes every request through unchanged and records the size of each `GET /api/v2/result`
 * body it serves. The simulator has no option for the number of images in a result (at most 7 per
 * transaction), so with `imageRepeat: k` the proxy serves each result with its `images` list repeated
 * k times (distinct positions, so distinct S3 keys): that is how the bench reaches 20+ images per result.
 *
 * Requests (IPC): `{ type: 'configure', imageRepeat }`, `{ type: 'stats' }`.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator } from '../../simulator/server';
import { serveParent } from './child';
import { BENCH_CREDENTIALS } from './credentials';

const RESULT_PATH = /^\/api\/v2\/result\/[^/]+$/;

let imageRepeat = 1;
let resultBodies: number[] = [];

async function init() {
  // No background pool warm-up: it would compete for CPU with a measured phase. Results are built (and the
  // pool generated) when transactions are created, which the benches do before they measure.
  const sim = await startSimulator({ ...BENCH_CREDENTIALS, seed: 7 });
  const target = new URL(sim.url);
  const proxy = createServer((req, res) => {
    forward(req, res, target).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  handleStats = () => {
    const fetches = Object.values(sim.control.stats().resultFetches);
    return {
      type: 'stats',
      resultsFetched: fetches.length,
      maxFetchesPerResult: Math.max(0, ...fetches),
      resultBodies,
    };
  };
  return { url: `http://127.0.0.1:${port}` };
}

let handleStats: () => Record<string, unknown> = () => ({ type: 'stats' });

async function forward(req: IncomingMessage, res: ServerResponse, target: URL): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
    const out = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        // The simulator answers only requests that name it (its Host check, simulator/access.ts).
        headers: { ...req.headers, host: target.host },
      },
      resolve,
    );
    out.on('error', reject);
    out.end(Buffer.concat(chunks));
  });
  const isResult = req.method === 'GET' && RESULT_PATH.test(req.url ?? '') && upstream.statusCode === 200;
  if (!isResult) {
    res.writeHead(upstream.statusCode ?? 502, upstream.headers);
    upstream.pipe(res);
    return;
  }
  const parts: Buffer[] = [];
  for await (const chunk of upstream) parts.push(chunk as Buffer);
  let body = Buffer.concat(parts);
  if (imageRepeat > 1) {
    const document = JSON.parse(body.toString('utf8')) as { images?: unknown[] };
    const images = document.images ?? [];
    document.images = Array.from({ length: imageRepeat }, () => images).flat();
    body = Buffer.from(JSON.stringify(document), 'utf8');
  }
  resultBodies.push(body.length);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
  res.end(body);
}

await serveParent(init, async (message) => {
  if (message.type === 'configure') {
    imageRepeat = Number(message.imageRepeat ?? 1);
    resultBodies = [];
    return { type: 'configured' };
  }
  if (message.type === 'stats') return handleStats();
  throw new Error(`unknown request ${String(message.type)}`);
});
