/**
 * Benchmark child: a minimal verification service that serves results of any size **without building
 * them in memory**. Each result body is generated as it is written: a small JSON head, then every image as
 * `{"documentType":…,"pageType":…,"data":"<base64>"}` with the base64 produced in 48 KiB pieces from a
 * deterministic JPEG-looking byte pattern, honouring backpressure; `content-length` is computed up front.
 * A 1 GB body costs this process a few hundred KiB.
 *
 * Endpoints (spec names): `POST /api/v2/oauth/token`, `GET /api/v2/poll` (a record per result not yet
 * fetched, as the spec says a successful result GET removes it) and `GET /api/v2/result/{resultId}`; plus
 * `GET /raw/{resultId}`, the same body for the raw-copy baseline (counted apart). IPC requests:
 * `{ type: 'add', resultId, images, imageBytes }` registers a result, `{ type: 'stats' }` answers the
 * token requests and the GETs per resultId, `{ type: 'digests', resultId }` the SHA-256 of each image's
 * bytes (generated again, to check what a run stored).
 */
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveParent } from './child';
import { BENCH_CREDENTIALS } from './credentials';
import {
  BODY_TAIL,
  bodyHead,
  type GeneratedResult,
  generatedBodyBytes,
  IMAGE_TAIL,
  imageHead,
} from './stream-layout';

/** Raw bytes per generated piece: a multiple of 3, so the pieces' base64 concatenates without padding. */
const PIECE = 3 * 16 * 1024;

const results = new Map<string, GeneratedResult>();
/** Results whose poll record is still pending (not fetched yet), with the time they were added. */
const pending = new Map<string, string>();
const gets = new Map<string, number>();
const rawGets = new Map<string, number>();
let tokenRequests = 0;

const patterns = new Map<number, Buffer>();

/** The filler of image `index`: one seeded block of {@link PIECE} bytes, repeated (cheap to serve at 1 GB). */
function pattern(index: number): Buffer {
  const seed = index % 16;
  let block = patterns.get(seed);
  if (!block) {
    block = Buffer.alloc(PIECE);
    for (let i = 0; i < PIECE; i++) block[i] = (i * 31 + seed * 131 + (i >> 11)) & 0xff;
    patterns.set(seed, block);
  }
  return block;
}

const JPEG_START = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00];

/** Bytes `offset`..`offset + length` of image `index` (`total` bytes): JPEG start and end markers, filler between. */
function piece(index: number, offset: number, length: number, total: number): Buffer {
  const bytes = Buffer.from(pattern(index).subarray(0, length));
  if (offset === 0) Buffer.from(JPEG_START).copy(bytes, 0, 0, Math.min(length, JPEG_START.length));
  if (offset + length === total && length >= 2) {
    bytes[length - 2] = 0xff;
    bytes[length - 1] = 0xd9;
  }
  return bytes;
}

async function write(res: ServerResponse, chunk: string | Buffer): Promise<void> {
  if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve));
}

/** SHA-256 (hex) of each image of a generated result, as its bytes are generated. */
function imageDigests(spec: GeneratedResult): string[] {
  return Array.from({ length: spec.images }, (_, i) => {
    const hash = createHash('sha256');
    for (let offset = 0; offset < spec.imageBytes; offset += PIECE) {
      hash.update(piece(i, offset, Math.min(PIECE, spec.imageBytes - offset), spec.imageBytes));
    }
    return hash.digest('hex');
  });
}

async function sendResult(res: ServerResponse, resultId: string, spec: GeneratedResult): Promise<void> {
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': String(generatedBodyBytes(resultId, spec)),
  });
  await write(res, bodyHead(resultId));
  for (let i = 0; i < spec.images; i++) {
    await write(res, imageHead(i));
    for (let offset = 0; offset < spec.imageBytes; offset += PIECE) {
      const length = Math.min(PIECE, spec.imageBytes - offset);
      await write(res, piece(i, offset, length, spec.imageBytes).toString('base64'));
    }
    await write(res, IMAGE_TAIL);
  }
  res.end(BODY_TAIL);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function init() {
  const expectedBasic = `Basic ${Buffer.from(`${BENCH_CREDENTIALS.clientId}:${BENCH_CREDENTIALS.clientSecret}`).toString('base64')}`;
  const server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'POST' && url.pathname === '/api/v2/oauth/token') {
      tokenRequests++;
      if (req.headers.authorization !== expectedBasic)
        return json(res, 401, { code: 16, message: 'Unauthorized' });
      return json(res, 200, {
        accessToken: `bench-token-${tokenRequests}`,
        expiresIn: '3600',
        tokenType: 'Bearer',
      });
    }
    if (req.method === 'GET' && url.pathname === '/api/v2/poll') {
      if (!req.headers.authorization?.startsWith('Bearer bench-token-'))
        return json(res, 401, { code: 16, message: 'Unauthorized' });
      const records = [...pending].map(([resultId, completed]) => ({
        resultId,
        transactionId: `tx-${resultId}`,
        product: 'IDV_STANDARD',
        completed,
        links: { self: `/api/v2/result/${encodeURIComponent(resultId)}` },
      }));
      return json(res, 200, { results: records });
    }
    const match = /^\/(api\/v2\/result|raw)\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && match) {
      const resultId = decodeURIComponent(match[2]!);
      const spec = results.get(resultId);
      if (!spec) return json(res, 404, { code: 5, message: 'NotFound' });
      const counter = match[1] === 'raw' ? rawGets : gets;
      counter.set(resultId, (counter.get(resultId) ?? 0) + 1);
      sendResult(res, resultId, spec)
        .then(() => {
          if (match[1] !== 'raw') pending.delete(resultId);
        })
        .catch(() => res.destroy());
      return;
    }
    json(res, 404, { code: 5, message: 'no such endpoint' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

await serveParent(init, async (message) => {
  if (message.type === 'add') {
    const spec = { images: Number(message.images), imageBytes: Number(message.imageBytes) };
    results.set(String(message.resultId), spec);
    pending.set(String(message.resultId), new Date().toISOString().slice(0, 19));
    return { type: 'added', bodyBytes: generatedBodyBytes(String(message.resultId), spec) };
  }
  if (message.type === 'stats') {
    return {
      type: 'stats',
      tokenRequests,
      gets: Object.fromEntries(gets),
      rawGets: Object.fromEntries(rawGets),
    };
  }
  if (message.type === 'digests') {
    const spec = results.get(String(message.resultId));
    if (!spec) throw new Error(`no result ${String(message.resultId)}`);
    return { type: 'digests', images: imageDigests(spec) };
  }
  throw new Error(`unknown request ${String(message.type)}`);
});
