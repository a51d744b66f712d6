/**
 * A hostile double of the verification service on 127.0.0.1 (port 0): each test says how it answers
 * (a gzip bomb, a flood, a drip, a body that dies mid-way, personal data in an error body) and reads what
 * it saw: requests, request headers, bytes the client took and whether the client closed the socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip } from 'node:zlib';

/** What the double saw. */
export interface HostileStats {
  requests: number;
  /** Request headers of every request, in order. */
  headers: IncomingMessage['headers'][];
  /** Body bytes the socket accepted, summed over every answer. */
  bytesWritten: number;
  /** Sockets the client closed before the answer was complete. */
  closedEarly: number;
}

/** A running double. */
export interface HostileService {
  readonly url: string;
  readonly stats: HostileStats;
  /** Replaces the answer for the next requests. */
  answer(handler: Answer): void;
  close(): Promise<void>;
}

/** How the double answers one request; `stats.bytesWritten` is counted by the helpers below. */
export type Answer = (req: IncomingMessage, res: ServerResponse, stats: HostileStats) => void | Promise<void>;

/** Starts a double answering with `handler`. */
export async function startHostileService(handler: Answer): Promise<HostileService> {
  const stats: HostileStats = { requests: 0, headers: [], bytesWritten: 0, closedEarly: 0 };
  let current = handler;
  const server: Server = createServer((req, res) => {
    stats.requests++;
    stats.headers.push(req.headers);
    res.on('close', () => {
      if (!res.writableFinished) stats.closedEarly++;
    });
    req.resume();
    req.on('end', () => {
      Promise.resolve(current(req, res, stats)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    answer: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A gzip stream of `inflatedBytes` zeros (about 1000:1; 1 GiB → about 1 MB), built once per size. */
const bombs = new Map<number, Promise<Buffer>>();
export function gzipBomb(inflatedBytes: number): Promise<Buffer> {
  let bomb = bombs.get(inflatedBytes);
  if (!bomb) {
    bomb = new Promise<Buffer>((resolve, reject) => {
      const gzip = createGzip({ level: 9 });
      const parts: Buffer[] = [];
      gzip.on('data', (part: Buffer) => parts.push(part));
      gzip.on('end', () => resolve(Buffer.concat(parts)));
      gzip.on('error', reject);
      const zeros = Buffer.alloc(1024 * 1024);
      let left = inflatedBytes;
      const pump = () => {
        while (left > 0) {
          const piece = zeros.subarray(0, Math.min(zeros.length, left));
          left -= piece.length;
          if (!gzip.write(piece)) {
            gzip.once('drain', pump);
            return;
          }
        }
        gzip.end();
      };
      pump();
    });
    bombs.set(inflatedBytes, bomb);
  }
  return bomb;
}

/** Answers `status` with a gzip bomb inflating to `inflatedBytes`, labelled `content-encoding: gzip`. */
export function bombAnswer(status: number, inflatedBytes: number): Answer {
  return async (_req, res, stats) => {
    const bomb = await gzipBomb(inflatedBytes);
    res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    stats.bytesWritten += bomb.length;
    res.end(bomb);
  };
}

/**
 * Answers `status` with `totalBytes` of JSON-looking filler, written as fast as the client takes it, and
 * stops when the client closes. With `dieAfter`, the socket is destroyed after that many bytes.
 */
export function floodAnswer(status: number, totalBytes: number, options: { dieAfter?: number } = {}): Answer {
  return async (_req, res, stats) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    chunk.write('{"code":7,"message":"');
    let sent = 0;
    while (sent < totalBytes && !res.destroyed) {
      if (options.dieAfter !== undefined && sent >= options.dieAfter) {
        res.destroy();
        return;
      }
      const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - sent));
      sent += piece.length;
      stats.bytesWritten += piece.length;
      if (!res.write(piece)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end();
  };
}

/** Answers 200 and then one byte every `intervalMs`, for ever (until the client closes). */
export function dripAnswer(intervalMs: number): Answer {
  return (_req, res, stats) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    stats.bytesWritten += 1;
    const timer = setInterval(() => {
      if (res.destroyed) return;
      res.write(' ');
      stats.bytesWritten += 1;
    }, intervalMs);
    res.on('close', () => clearInterval(timer));
  };
}

/** Answers `status` with `body` as JSON. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (_req, res, stats) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    stats.bytesWritten += Buffer.byteLength(text);
    res.end(text);
  };
}
