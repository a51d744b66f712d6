/**
 * The hostile verification service double of the tests and the benches (docs/reliability.md "Hostile
 * service"): an HTTP server on 127.0.0.1, port 0, answering the three endpoints the pipeline calls
 * (`POST /api/v2/oauth/token`, `GET /api/v2/poll`, `GET /api/v2/result/{resultId}`, spec names) either like
 * a well-behaved service or with whatever the current {@link Behaviour} says: any status, any body
 * (generated as it is written, see `hostile-bodies.ts`), a gzip bomb, a flood without a length, a body that
 * dies mid-way or is dripped one byte at a time, text echoing the request's `Authorization` header.
 * `Behaviour.any` answers every request of any path (the client's other endpoints). It counts requests
 * per endpoint and keeps what the client did: request headers, bytes its socket took, answers it left.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BodyPart, bodyBytes, bodyChunks, gzipOf, imageBytes } from './hostile-bodies';

/** One answer of the service. */
export interface HostileAnswer {
  readonly status: number;
  /** @default 'application/json' */
  readonly contentType?: string;
  readonly parts: readonly BodyPart[];
  /** Sent gzip-encoded (`content-encoding: gzip`) whatever the request's `accept-encoding` said. */
  readonly gzip?: boolean;
  /** Sent one byte every `dripMs` milliseconds (no `content-length`), until done or the client leaves. */
  readonly dripMs?: number;
  /** Sent without `content-length` (a flood the client can only bound by reading). */
  readonly unsized?: boolean;
  /** The socket is destroyed once this many body bytes were written. */
  readonly dieAfter?: number;
  /** Extra answer headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What the request looked like, for answers that echo it. */
export interface HostileRequest {
  readonly authorization: string;
  readonly resultId?: string;
}

/** How each endpoint answers; an endpoint left out answers like a well-behaved service. */
export interface Behaviour {
  token?(request: HostileRequest): HostileAnswer;
  poll?(request: HostileRequest): HostileAnswer;
  result?(request: HostileRequest & { resultId: string }): HostileAnswer;
  /** Answers every request, of any method and path, before the endpoints above are looked at. */
  any?(request: HostileRequest & { method: string; path: string }): HostileAnswer;
}

/** What the client did, over every request since the last {@link HostileService.resetCounts}. */
export interface HostileStats {
  readonly requests: number;
  /** Request headers of every request, in order. */
  readonly headers: readonly IncomingHttpHeaders[];
  /** Body bytes the client's socket accepted, summed over every answer. */
  readonly bytesWritten: number;
  /** Answers the client left before they were complete. */
  readonly closedEarly: number;
}

/** Requests per endpoint. */
export interface HostileCounts {
  token: number;
  poll: number;
  result: number;
  other: number;
}

/** A running hostile service. */
export interface HostileService {
  readonly url: string;
  /** Client credentials it accepts. */
  readonly credentials: { clientId: string; clientSecret: string };
  /** The access token it issues: a secret that must never be seen in a log, an error or an event. */
  readonly accessToken: string;
  setBehaviour(behaviour: Behaviour): void;
  /** Answers every request with `answer` (`setBehaviour({ any: () => answer })`). */
  answer(answer: HostileAnswer): void;
  counts(): HostileCounts;
  /** What the client did (a live view). */
  readonly stats: HostileStats;
  /** Zeroes the counts and the stats. */
  resetCounts(): void;
  close(): Promise<void>;
}

/** Bytes of the well-behaved result's one image. */
export const NORMAL_IMAGE_BYTES = 2048;

/** The body of a well-behaved result: identity approved, one small passport image. */
export function normalResult(resultId: string): BodyPart[] {
  return [
    `{"resultId":${JSON.stringify(resultId)},"transactionId":"tx-${resultId}","product":"IDV_STANDARD",`,
    '"result":"APPROVED","messages":["DOCUMENT_VALID"],"identity":{"result":"APPROVED","messages":[]},',
    '"images":[{"documentType":"PASSPORT","pageType":"FRONT","data":"',
    imageBytes(NORMAL_IMAGE_BYTES, 1).toString('base64'),
    '"}],"files":[]}',
  ];
}

/** A JSON answer from a value (a string is sent as it is). */
export function jsonAnswer(
  status: number,
  value: unknown,
  headers?: Readonly<Record<string, string>>,
): HostileAnswer {
  return { status, parts: [typeof value === 'string' ? value : JSON.stringify(value)], headers };
}

/** `status` with a gzip bomb of `inflatedBytes` zeros (about 1 MB per GiB), labelled `content-encoding: gzip`. */
export function bombAnswer(status: number, inflatedBytes: number): HostileAnswer {
  return { status, gzip: true, parts: [{ fill: '0', count: inflatedBytes }] };
}

/**
 * `status` with `totalBytes` of JSON-looking filler and no `content-length`, written as fast as the client
 * takes it; with `dieAfter`, the socket is destroyed after that many bytes.
 */
export function floodAnswer(
  status: number,
  totalBytes: number,
  options: { dieAfter?: number } = {},
): HostileAnswer {
  const head = '{"code":7,"message":"';
  return {
    status,
    unsized: true,
    dieAfter: options.dieAfter,
    parts: [head, { fill: 'a', count: Math.max(0, totalBytes - head.length) }],
  };
}

/** 200 and then one byte every `intervalMs`, for ever (until the client leaves). */
export function dripAnswer(intervalMs: number): HostileAnswer {
  return { status: 200, dripMs: intervalMs, parts: ['{', { fill: ' ', count: 2 ** 40 }] };
}

/** Starts the service with `behaviour`, well-behaved by default. */
export async function startHostileService(initial: Behaviour = {}): Promise<HostileService> {
  const credentials = {
    clientId: 'hostile-client',
    clientSecret: `hostile-secret-${randomBytes(9).toString('hex')}`,
  };
  const accessToken = `hostile-bearer-${randomBytes(12).toString('hex')}`;
  const basic = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`;
  let behaviour: Behaviour = initial;
  let counts: HostileCounts = { token: 0, poll: 0, result: 0, other: 0 };
  const stats = { requests: 0, headers: [] as IncomingHttpHeaders[], bytesWritten: 0, closedEarly: 0 };
  const sockets = new Set<import('node:net').Socket>();

  const server = createServer((req, res) => {
    req.resume();
    stats.requests++;
    stats.headers.push(req.headers);
    res.on('close', () => {
      if (!res.writableFinished) stats.closedEarly++;
    });
    const url = new URL(req.url ?? '/', 'http://localhost');
    const authorization = req.headers.authorization ?? '';
    const answer = (): HostileAnswer | undefined => {
      if (behaviour.any)
        return behaviour.any({ authorization, method: req.method ?? '', path: url.pathname });
      if (req.method === 'POST' && url.pathname === '/api/v2/oauth/token') {
        counts.token++;
        if (behaviour.token) return behaviour.token({ authorization });
        if (authorization !== basic) return jsonAnswer(401, { code: 16, message: 'Unauthorized' });
        return jsonAnswer(200, { accessToken, expiresIn: '3600', tokenType: 'Bearer' });
      }
      if (req.method === 'GET' && url.pathname === '/api/v2/poll') {
        counts.poll++;
        if (behaviour.poll) return behaviour.poll({ authorization });
        if (authorization !== `Bearer ${accessToken}`)
          return jsonAnswer(401, { code: 16, message: 'Unauthorized' });
        return jsonAnswer(200, { results: [] });
      }
      const match = /^\/api\/v2\/result\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && match) {
        counts.result++;
        const resultId = decodeURIComponent(match[1]!);
        if (behaviour.result) return behaviour.result({ authorization, resultId });
        if (authorization !== `Bearer ${accessToken}`)
          return jsonAnswer(401, { code: 16, message: 'Unauthorized' });
        return { status: 200, parts: normalResult(resultId) };
      }
      counts.other++;
      return undefined;
    };
    let chosen: HostileAnswer | undefined;
    try {
      chosen = answer();
    } catch {
      res.destroy();
      return;
    }
    if (!chosen) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"code":5,"message":"no such endpoint"}');
      return;
    }
    send(res, req, chosen, stats).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials,
    accessToken,
    setBehaviour(next) {
      behaviour = next;
    },
    answer(next) {
      behaviour = { any: () => next };
    },
    counts: () => ({ ...counts }),
    stats,
    resetCounts() {
      counts = { token: 0, poll: 0, result: 0, other: 0 };
      stats.requests = 0;
      stats.headers.length = 0;
      stats.bytesWritten = 0;
      stats.closedEarly = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes one answer, honouring backpressure; stops as soon as the client has gone. */
async function send(
  res: ServerResponse,
  req: IncomingMessage,
  answer: HostileAnswer,
  stats: { bytesWritten: number },
): Promise<void> {
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  req.socket.on('close', () => {
    gone = true;
  });
  const headers: Record<string, string> = {
    'content-type': answer.contentType ?? 'application/json',
    ...answer.headers,
  };
  let written = 0;
  const write = async (chunk: Buffer): Promise<void> => {
    if (answer.dieAfter !== undefined && written >= answer.dieAfter) {
      res.destroy();
      gone = true;
      return;
    }
    written += chunk.length;
    stats.bytesWritten += chunk.length;
    if (!res.write(chunk)) {
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
  };
  if (answer.gzip) {
    const bomb = await gzipOf(answer.parts);
    res.writeHead(answer.status, {
      ...headers,
      'content-encoding': 'gzip',
      ...(answer.unsized ? {} : { 'content-length': String(bomb.length) }),
    });
    for (let offset = 0; offset < bomb.length && !gone; offset += 64 * 1024) {
      await write(bomb.subarray(offset, offset + 64 * 1024));
    }
    res.end();
    return;
  }
  if (answer.dripMs !== undefined) {
    res.writeHead(answer.status, headers);
    res.flushHeaders();
    for (const chunk of bodyChunks(answer.parts)) {
      for (let i = 0; i < chunk.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, answer.dripMs));
        if (gone) return;
        await write(chunk.subarray(i, i + 1));
      }
    }
    res.end();
    return;
  }
  res.writeHead(
    answer.status,
    answer.unsized ? headers : { ...headers, 'content-length': String(bodyBytes(answer.parts)) },
  );
  for (const chunk of bodyChunks(answer.parts)) {
    if (gone) return;
    await write(chunk);
  }
  res.end();
}
