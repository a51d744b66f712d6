/**
 * The keep-alive HTTP/1.1 client of the direct PutObject (shared/store/http1.ts) against raw TCP and TLS
 * doubles that write exactly the bytes a test scripts: well-formed answers split anywhere, interim
 * answers, answers read until close, and every malformed or oversized part the parser bounds. Also:
 * connection reuse, a server that closes an idle connection, timeouts, aborts and certificate checks.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import * as tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  Http1Error,
  http1Request,
  MAX_CHUNK_LINE_BYTES,
  MAX_DRAIN_BYTES,
  MAX_HEAD_BYTES,
  type Origin,
} from '../../shared/store/http1';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../support/test-tls';

const BODY = Buffer.alloc(50 * 1024, 7);
const head = (path = '/b/k') =>
  `PUT ${path} HTTP/1.1\r\nhost: test\r\ncontent-length: ${BODY.length}\r\n\r\n`;
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n';

/** What the double does once a whole request (head and body) has arrived on a connection. */
type Reply = (socket: Socket, request: Buffer) => void;

interface Double {
  origin: Origin;
  /** Replies in order, one per request; the default answers 200 with no body. */
  replies: Reply[];
  /** Connections opened so far. */
  connections: number;
  requests: Buffer[];
  /** The connection each request came on. */
  requestSockets: Socket[];
  close(): Promise<void>;
}

/** A server that reads each request by its Content-Length and answers with the next scripted reply. */
async function startDouble(server: Server = createServer(), protocol: Origin['protocol'] = 'http:') {
  const sockets = new Set<Socket>();
  const double: Double = {
    origin: { protocol, hostname: '127.0.0.1', port: 0 },
    replies: [],
    connections: 0,
    requests: [],
    requestSockets: [],
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
  server.on(protocol === 'https:' ? 'secureConnection' : 'connection', (socket: Socket) => {
    double.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.toString('latin1', 0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const request = buffered.subarray(0, end + 4 + length);
        buffered = buffered.subarray(end + 4 + length);
        double.requests.push(request);
        double.requestSockets.push(socket);
        (double.replies.shift() ?? ((s) => s.write(OK)))(socket, request);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  double.origin = { ...double.origin, port: (server.address() as { port: number }).port };
  return double;
}

const options = (
  overrides: Partial<{ signal: AbortSignal; idleTimeoutMs: number; maxBodyBytes: number }> = {},
) => ({
  signal: new AbortController().signal,
  idleTimeoutMs: 5_000,
  maxBodyBytes: 8 * 1024,
  ...overrides,
});

const send = (double: Double, overrides: Parameters<typeof options>[0] = {}) =>
  http1Request(double.origin, head(), BODY, options(overrides));

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Error,
  );

/** Writes `text` one byte per write, each in its own TCP segment as far as the test can make it. */
function dribble(socket: Socket, text: string): void {
  const bytes = Buffer.from(text, 'latin1');
  let at = 0;
  const next = () => {
    if (at >= bytes.length || socket.destroyed) return;
    socket.write(bytes.subarray(at, ++at), () => setImmediate(next));
  };
  next();
}

describe('answers within HTTP/1.1', () => {
  let double: Double;
  beforeAll(async () => {
    double = await startDouble();
  });
  afterAll(() => double.close());
  afterEach(() => {
    double.replies = [];
  });

  it('sends the head and the body as written, and reuses the connection for the next request', async () => {
    // Prepare
    const before = double.connections;

    // Act
    const first = await send(double);
    const second = await send(double);

    // Assess
    expect(first).toEqual({ status: 200, body: Buffer.alloc(0) });
    expect(second.status).toBe(200);
    expect(double.connections - before).toBe(1);
    expect(double.requests.at(-1)!.equals(Buffer.concat([Buffer.from(head()), BODY]))).toBe(true);
  });

  it('reads an answer split into single bytes: a chunked error body with extensions and trailers', async () => {
    // Prepare
    const xml = '<Error><Code>SlowDown</Code></Error>';
    double.replies = [
      (socket) =>
        dribble(
          socket,
          `HTTP/1.1 503 Slow Down\r\nTransfer-Encoding: chunked\r\n\r\n${(10).toString(16)};x=y\r\n${xml.slice(0, 10)}\r\n${(xml.length - 10).toString(16)}\r\n${xml.slice(10)}\r\n0\r\nx-trailer: t\r\n\r\n`,
        ),
    ];

    // Act
    const answer = await send(double);

    // Assess
    expect(answer.status).toBe(503);
    expect(answer.body.toString()).toBe(xml);
  });

  it('skips interim answers (100 Continue, 103) and reads the final one', async () => {
    // Prepare
    double.replies = [
      (socket) =>
        socket.write(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n${OK}`),
    ];

    // Act
    const answer = await send(double);

    // Assess
    expect(answer.status).toBe(200);
  });

  it('keeps at most maxBodyBytes of a body, and the answer of a 204 has none', async () => {
    // Prepare
    const long = 'x'.repeat(20_000);
    double.replies = [
      (socket) => socket.write(`HTTP/1.1 400 Bad Request\r\nContent-Length: ${long.length}\r\n\r\n${long}`),
      (socket) => socket.write('HTTP/1.1 204 No Content\r\n\r\n'),
    ];

    // Act
    const capped = await send(double, { maxBodyBytes: 100 });
    const empty = await send(double);

    // Assess
    expect(capped).toEqual({ status: 400, body: Buffer.from(long.slice(0, 100)) });
    expect(empty).toEqual({ status: 204, body: Buffer.alloc(0) });
  });

  it('reads an answer without length until the server closes, then uses a new connection', async () => {
    // Prepare
    double.replies = [
      (socket) => socket.end('HTTP/1.1 500 Internal Error\r\n\r\n<Error>until close</Error>'),
    ];
    const before = double.connections;

    // Act
    const answer = await send(double);
    await send(double);

    // Assess
    expect(answer).toEqual({ status: 500, body: Buffer.from('<Error>until close</Error>') });
    expect(double.connections - before).toBe(1);
  });
});

describe('connections that are not reused', () => {
  let double: Double;
  beforeAll(async () => {
    double = await startDouble();
  });
  afterAll(() => double.close());

  it.each([
    ['Connection: close', `HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`],
    ['HTTP/1.0', 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n'],
    ['bytes after the answer', `${OK}HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n`],
    [
      'Content-Length beside Transfer-Encoding',
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
  ])('%s: the next request opens a new connection', async (_case, reply) => {
    // Prepare
    double.replies = [(socket) => socket.write(reply)];

    // Act
    const answer = await send(double);
    await send(double);

    // Assess
    expect(answer.status).toBe(200);
    const [first, second] = double.requestSockets.slice(-2);
    expect(second).not.toBe(first);
  });

  it('an answer that comes before the body was read is taken, and its connection dropped', async () => {
    // Prepare: a double that answers 400 as soon as the head is in, without waiting for the body
    const early = createServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
      socket.on('error', () => undefined);
    });
    early.listen(0, '127.0.0.1');
    await once(early, 'listening');
    const origin: Origin = {
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: (early.address() as { port: number }).port,
    };
    let connections = 0;
    early.on('connection', () => connections++);

    // Act: a body far larger than the socket buffers, so the answer comes first
    const big = Buffer.alloc(16 * 1024 * 1024);
    const answer = await http1Request(origin, head(), big, options());
    const again = await http1Request(origin, head(), big, options());

    // Assess
    expect(answer.status).toBe(400);
    expect(again.status).toBe(400);
    expect(connections).toBe(2);
    early.close();
  });
});

describe('malformed and oversized answers', () => {
  let double: Double;
  beforeAll(async () => {
    double = await startDouble();
  });
  afterAll(() => double.close());

  it.each([
    ['a bad status line', 'HTTP/2 200 OK\r\n\r\n', 'a bad status line'],
    ['a status out of range', 'HTTP/1.1 700 What\r\n\r\n', 'a bad status line'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', 'a bad header line'],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n', 'a bad header line'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\n\r\n', 'a bad header line'],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 'a bad Content-Length'],
    [
      'two Content-Lengths',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      'two different',
    ],
    [
      'a bad chunk size',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'a bad chunk-size line',
    ],
    [
      'a chunk size past 32 bits',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1ffffffff\r\n',
      'a bad chunk-size line',
    ],
    [
      'a chunk without its CRLF',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naXY',
      'a chunk not ended by CRLF',
    ],
    ['a protocol switch', 'HTTP/1.1 101 Switching Protocols\r\n\r\n', 'a protocol switch'],
  ])('%s fails naming the problem, not the bytes', async (_case, reply, problem) => {
    // Prepare
    double.replies = [(socket) => socket.write(reply)];

    // Act
    const failure = await failureOf(send(double));

    // Assess
    expect(failure).toBeInstanceOf(Http1Error);
    expect((failure as Http1Error).code).toBe('MalformedAnswer');
    expect(failure.message).toContain(problem);
  });

  it.each([
    ['head', () => `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`, 'head longer than'],
    ['head that never ends', () => `HTTP/1.1 200 OK\r\n${'X-A: b\r\n'.repeat(4_000)}`, 'head longer than'],
    [
      'chunk-size line',
      () => `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;${'e'.repeat(MAX_CHUNK_LINE_BYTES)}\r\n`,
      'chunk-size line longer than',
    ],
    [
      'trailers',
      () =>
        `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: ${'t'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`,
      'trailers longer than',
    ],
  ])('an oversized %s fails at its bound', async (_case, reply, problem) => {
    // Prepare
    double.replies = [(socket) => socket.write(reply())];

    // Act
    const failure = await failureOf(send(double));

    // Assess
    expect((failure as Http1Error).code).toBe('MalformedAnswer');
    expect(failure.message).toContain(problem);
  });

  it('stops reading an endless body past the drain bound and drops the connection', async () => {
    // Prepare: a chunked error body that never ends
    let written = 0;
    double.replies = [
      (socket) => {
        socket.write('HTTP/1.1 500 Internal Error\r\nTransfer-Encoding: chunked\r\n\r\n');
        const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
        const more = () => {
          while (!socket.destroyed && written < 64 * 1024 * 1024) {
            written += chunk.length;
            if (!socket.write(chunk)) return void socket.once('drain', more);
          }
        };
        more();
      },
    ];

    // Act
    const answer = await send(double, { maxBodyBytes: 8 });

    // Assess
    expect(answer).toEqual({ status: 500, body: Buffer.from('xxxxxxxx') });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toBeLessThan(MAX_DRAIN_BYTES + 8 * 1024 * 1024);
  });

  it('a server that closes in the middle of an answer fails the request', async () => {
    // Prepare
    double.replies = [(socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')];

    // Act
    const failure = await failureOf(send(double));

    // Assess
    expect((failure as Http1Error).code).toBe('ConnectionClosed');
  });
});

describe('time, aborts and stale connections', () => {
  let double: Double;
  beforeAll(async () => {
    double = await startDouble();
  });
  afterAll(() => double.close());

  it('sends again on a new connection when the server closed the idle one', async () => {
    // Prepare: the first answer is fine, then the server closes that connection while it is idle
    double.replies = [(socket) => socket.write(OK, () => setTimeout(() => socket.destroy(), 10))];
    await send(double);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = double.connections;

    // Act
    const answer = await send(double);

    // Assess
    expect(answer.status).toBe(200);
    expect(double.connections - before).toBe(1);
  });

  it('sends once more at once when a reused connection is cut before any answer, and only once', async () => {
    // Prepare: a connection that served, then one request cut without an answer, as a server closing
    // an idle connection just as the request arrives
    await send(double);
    const requestsBefore = double.requests.length;
    double.replies = [(socket) => socket.destroy()];

    // Act
    const answer = await send(double);

    // Assess: the request came twice, the second time on a new connection
    expect(answer.status).toBe(200);
    expect(double.requests.length - requestsBefore).toBe(2);
    const [cut, fresh] = double.requestSockets.slice(-2);
    expect(fresh).not.toBe(cut);
  });

  it('does not send again when a new connection is cut: the caller decides', async () => {
    // Prepare: a double of its own, so the first request opens a new connection
    const own = await startDouble();
    own.replies = [(socket) => socket.destroy(), (socket) => socket.destroy()];

    // Act
    const failure = await failureOf(send(own));

    // Assess
    expect(['ConnectionClosed', 'ECONNRESET']).toContain((failure as Http1Error).code);
    expect(own.requests).toHaveLength(1);
    await own.close();
  });

  it('fails a request nobody answers after the idle timeout', async () => {
    // Prepare
    double.replies = [() => undefined];

    // Act
    const failure = await failureOf(send(double, { idleTimeoutMs: 100 }));

    // Assess
    expect((failure as Http1Error).code).toBe('IdleTimeout');
  });

  it('stops a request in flight when aborted, with the abort’s reason', async () => {
    // Prepare
    const controller = new AbortController();
    double.replies = [() => setTimeout(() => controller.abort(new Error('batch deadline')), 20)];

    // Act
    const failure = await failureOf(send(double, { signal: controller.signal }));

    // Assess
    expect(failure.message).toBe('batch deadline');
  });

  it('waits for a free connection beyond 50 at once, and gives up waiting when aborted', async () => {
    // Prepare: 50 requests the double holds, then one more
    const held: Socket[] = [];
    for (let i = 0; i < 50; i++) double.replies.push((socket) => held.push(socket));
    const controller = new AbortController();
    const busy = Array.from({ length: 50 }, () => send(double));
    while (held.length < 50) await new Promise((resolve) => setTimeout(resolve, 5));

    // Act
    const waiting = failureOf(send(double, { signal: controller.signal }));
    const queued = send(double);
    controller.abort(new Error('gave up'));
    for (const socket of held) socket.write(OK);

    // Assess
    expect((await waiting).message).toBe('gave up');
    expect((await queued).status).toBe(200);
    expect((await Promise.all(busy)).every((answer) => answer.status === 200)).toBe(true);
  });
});

/** Node 24's CA functions (newer than the @types/node in use). */
interface TlsCaApi {
  getCACertificates(kind: 'default'): string[];
  setDefaultCACertificates(certificates: string[]): void;
}

describe('over TLS', () => {
  it('refuses a server whose certificate is not trusted, sending nothing in the clear', async () => {
    // Prepare
    const double = await startDouble(tls.createServer({ cert: TEST_TLS_CERT, key: TEST_TLS_KEY }), 'https:');

    // Act
    const failure = await failureOf(send(double));

    // Assess
    expect((failure as { code?: string }).code).toMatch(/CERT|SELF_SIGNED/);
    expect(double.requests).toHaveLength(0);
    await double.close();
  });

  it('talks to a trusted server by name, and reuses the connection', async () => {
    // Prepare: trust the test certificate for this worker only
    const { getCACertificates, setDefaultCACertificates } = tls as unknown as TlsCaApi;
    setDefaultCACertificates([...getCACertificates('default'), TEST_TLS_CERT]);
    const double = await startDouble(tls.createServer({ cert: TEST_TLS_CERT, key: TEST_TLS_KEY }), 'https:');
    const origin: Origin = { ...double.origin, hostname: 'localhost' };

    // Act
    const first = await http1Request(origin, head(), BODY, options());
    const second = await http1Request(origin, head(), BODY, options());

    // Assess
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(double.connections).toBe(1);
    expect(double.requests[0]!.subarray(-BODY.length).equals(BODY)).toBe(true);
    await double.close();
  });
});
