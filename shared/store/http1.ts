/**
 * A keep-alive HTTP/1.1 client for one kind of exchange: a request whose head and body are in memory,
 * and an answer of which only the status and the first bytes of the body matter. The direct PutObject
 * (direct-put.ts) sends its PUTs with it.
 *
 * Node's `http.request` cost about 0.15 ms of CPU more per 50 KB PUT than this client (0.36 against 0.21,
 * docs/benchmarks.md, "Many images: GC and the HTTP client"). Most of that went to objects a one-shot PUT
 * does not need: a `ClientRequest` and an `IncomingMessage` with their streams, the agent's bookkeeping,
 * a header check per header, and a parser instance. Here a request is one corked write of the head and
 * the body on a pooled socket. The answer is read by a
 * small parser with a bound on every part, because every byte that comes back is untrusted:
 * - the head: at most {@link MAX_HEAD_BYTES}, a strict status line, header names as tokens, one
 *   `Content-Length`;
 * - a chunk-size line: at most {@link MAX_CHUNK_LINE_BYTES};
 * - the trailers: at most {@link MAX_HEAD_BYTES};
 * - the body: at most `maxBodyBytes` kept. Past {@link MAX_DRAIN_BYTES} and `maxBodyBytes` both, the
 *   connection is dropped rather than drained.
 * Anything outside HTTP/1.1 fails the exchange with an {@link Http1Error} and closes the connection.
 * So does an answer that comes before the body was written, or bytes nobody asked for.
 *
 * A socket goes back to its pool only after a complete answer that lets it stay open. A failure on a
 * reused socket before any byte of the answer came back is the usual race with a server that closed the
 * idle connection. The request is then sent once more on a new connection at once.
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';

/** Most bytes of an answer's head, and of its trailers (S3's heads are well under 1 KiB). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** Most bytes of a chunk-size line, extensions included. */
export const MAX_CHUNK_LINE_BYTES = 1024;
/** Most bytes of a body read to keep a connection; a longer body drops it instead. */
export const MAX_DRAIN_BYTES = 64 * 1024;
/** Connections open at once to one origin (the SDK's own default); more requests wait for one. */
const MAX_SOCKETS = 50;

/** Where requests go. */
export interface Origin {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number | undefined;
}

/** What came back: the status and at most `maxBodyBytes` of the body. */
export interface Http1Answer {
  readonly status: number;
  readonly body: Buffer;
}

export interface Http1Options {
  readonly signal: AbortSignal;
  /** A request with no byte moving either way for this long fails (`IdleTimeout`). */
  readonly idleTimeoutMs: number;
  /** Most bytes of the body kept in the answer. */
  readonly maxBodyBytes: number;
}

/** A failed exchange: `code` is one word (`ECONNRESET`, `MalformedAnswer`, `IdleTimeout`, ...). */
export class Http1Error extends Error {
  override readonly name = 'Http1Error';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Sends `head` (ending in an empty line) and `body`; resolves with the answer. For idempotent requests
 * only: a request that failed on a reused connection before any answer may be sent again.
 *
 * One promise per request: the steps inside are callbacks, since every promise of a request that runs
 * a thousand times per result costs its share of CPU (and more while an async hook tracks promises).
 */
export function http1Request(
  origin: Origin,
  head: string,
  body: Buffer,
  options: Http1Options,
): Promise<Http1Answer> {
  return new Promise((resolve, reject) => {
    const pool = poolOf(origin);
    const attempt = (fresh: boolean) =>
      pool.acquire(options.signal, fresh, (error, connection) => {
        if (!connection) return reject(error);
        connection.exchange(head, body, options, (outcome, stale) => {
          if (stale && !fresh) return attempt(true);
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        });
      });
    attempt(false);
  });
}

const pools = new Map<string, Pool>();

function poolOf(origin: Origin): Pool {
  const key = `${origin.protocol}//${origin.hostname}:${origin.port ?? ''}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(origin);
    pools.set(key, pool);
  }
  return pool;
}

/** The connections to one origin: idle ones (most recent first) and a queue of requests waiting. */
class Pool {
  readonly #idle: Connection[] = [];
  readonly #waiting: (() => void)[] = [];
  #open = 0;
  #tlsSession: Buffer | undefined;

  constructor(readonly origin: Origin) {}

  /**
   * Calls `ready` with an idle connection, or a new one (`fresh` skips the idle ones), now or once one
   * of the {@link MAX_SOCKETS} is free; with the abort's reason if the signal fires first.
   */
  acquire(
    signal: AbortSignal,
    fresh: boolean,
    ready: (error: unknown, connection?: Connection) => void,
  ): void {
    if (signal.aborted) {
      ready(signal.reason);
      return;
    }
    if (!fresh) {
      let idle = this.#idle.pop();
      while (idle?.socket.destroyed) idle = this.#idle.pop();
      if (idle) {
        ready(undefined, idle);
        return;
      }
    } else if (this.#open >= MAX_SOCKETS) {
      // A new connection is owed: close the oldest idle one to make room (its close wakes the queue).
      this.#idle.shift()?.destroy();
    }
    if (this.#open < MAX_SOCKETS) {
      this.#open++;
      ready(undefined, new Connection(this, this.#connect()));
      return;
    }
    const wake = () => {
      signal.removeEventListener('abort', onAbort);
      this.acquire(signal, fresh, ready);
    };
    const onAbort = () => {
      const at = this.#waiting.indexOf(wake);
      if (at !== -1) this.#waiting.splice(at, 1);
      ready(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    this.#waiting.push(wake);
  }

  /** A connection is idle again. */
  release(connection: Connection): void {
    this.#idle.push(connection);
    this.#waiting.shift()?.();
  }

  /** A connection closed: forgets it and lets a waiting request open another. */
  forget(connection: Connection): void {
    this.#open--;
    const at = this.#idle.indexOf(connection);
    if (at !== -1) this.#idle.splice(at, 1);
    this.#waiting.shift()?.();
  }

  #connect(): Socket {
    const { protocol, hostname, port } = this.origin;
    if (protocol === 'http:') return netConnect({ host: hostname, port: port ?? 80, noDelay: true });
    const socket: TLSSocket = tlsConnect({
      host: hostname,
      port: port ?? 443,
      ...(isIP(hostname) === 0 && { servername: hostname }),
      ALPNProtocols: ['http/1.1'],
      ...(this.#tlsSession && { session: this.#tlsSession }),
    });
    socket.setNoDelay(true);
    socket.on('session', (session: Buffer) => {
      this.#tlsSession = session;
    });
    return socket;
  }
}

/** Why a connection closed with an exchange on it. */
const CLOSED = 'the connection closed before the answer ended';

/** One socket and the exchange on it, if any. Its listeners stay for its life. */
class Connection {
  #exchange: Exchange | undefined;
  #exchanges = 0;
  #closed = false;
  #timeoutMs = 0;

  constructor(
    private readonly pool: Pool,
    readonly socket: Socket,
  ) {
    socket.on('data', (chunk: Buffer) => (this.#exchange ? this.#exchange.data(chunk) : this.destroy()));
    socket.on('end', () => (this.#exchange ? this.#exchange.end() : this.destroy()));
    socket.on('timeout', () =>
      this.#exchange
        ? this.#exchange.fail(new Http1Error('IdleTimeout', 'no byte moved in time'))
        : this.destroy(),
    );
    socket.on('error', (error: Error) => (this.#exchange ? this.#exchange.fail(error) : this.destroy()));
    socket.on('close', () => {
      this.#closed = true;
      this.#exchange?.fail(new Http1Error('ConnectionClosed', CLOSED));
      this.pool.forget(this);
    });
  }

  /**
   * Sends the request and reads its answer; `done` gets the answer or the failure, and `stale` when the
   * failure came on a reused connection before any byte of an answer (a server that closed it while idle).
   */
  exchange(
    head: string,
    body: Buffer,
    options: Http1Options,
    done: (outcome: Http1Answer | Error, stale: boolean) => void,
  ): void {
    const reused = this.#exchanges++ > 0;
    if (this.#timeoutMs !== options.idleTimeoutMs) {
      // The same timer serves while idle: an idle connection closes after as long.
      this.socket.setTimeout(options.idleTimeoutMs);
      this.#timeoutMs = options.idleTimeoutMs;
    }
    const { signal } = options;
    const onAbort = () => exchange.fail(signal.reason);
    const exchange = new Exchange(options.maxBodyBytes, (outcome) => {
      this.#exchange = undefined;
      signal.removeEventListener('abort', onAbort);
      if (outcome instanceof Error) {
        this.destroy();
        const stale =
          reused &&
          !exchange.answered &&
          !signal.aborted &&
          !(outcome instanceof Http1Error && outcome.code === 'IdleTimeout');
        return done(outcome, stale);
      }
      // Bytes of the request still unwritten: the server answered before reading it all.
      if (outcome.reusable && this.socket.writableLength === 0 && !this.#closed) this.pool.release(this);
      else this.destroy();
      done(outcome.answer, false);
    });
    if (signal.aborted) {
      exchange.fail(signal.reason);
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    this.#exchange = exchange;
    this.socket.cork();
    this.socket.write(head, 'latin1');
    this.socket.write(body);
    this.socket.uncork();
    if (this.#closed) exchange.fail(new Http1Error('ConnectionClosed', CLOSED));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

type Outcome = { answer: Http1Answer; reusable: boolean } | Error;

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-5][0-9]{2})(?: [^\r\n]*)?$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The parser of one answer: its head, then a body by length, by chunks or until the connection closes. */
class Exchange {
  #state:
    | 'head'
    | 'length'
    | 'chunk-size'
    | 'chunk-data'
    | 'chunk-end'
    | 'trailers'
    | 'until-close'
    | 'done' = 'head';
  #pending: Buffer | undefined;
  #remaining = 0;
  #bodyBytes = 0;
  readonly #kept: Buffer[] = [];
  #keptBytes = 0;
  #status = 0;
  #reusable = true;
  /** True once any byte of the answer came back. */
  answered = false;

  constructor(
    private readonly maxBodyBytes: number,
    private readonly settle: (outcome: Outcome) => void,
  ) {}

  data(chunk: Buffer): void {
    if (this.#state === 'done') return;
    this.answered = true;
    try {
      this.#feed(chunk);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  /** The server ended its side: the end of an answer read until close, else a failure. */
  end(): void {
    if (this.#state === 'until-close') {
      this.#finish(false);
      return;
    }
    this.fail(new Http1Error('ConnectionClosed', CLOSED));
  }

  fail(error: unknown): void {
    if (this.#state === 'done') return;
    this.#state = 'done';
    this.settle(
      error instanceof Error ? error : new Http1Error('Aborted', 'the request was aborted', { cause: error }),
    );
  }

  #finish(reusable: boolean): void {
    if (this.#state === 'done') return;
    this.#state = 'done';
    const body = this.#kept.length === 1 ? Buffer.from(this.#kept[0]!) : Buffer.concat(this.#kept);
    this.settle({ answer: { status: this.#status, body }, reusable: reusable && this.#reusable });
  }

  #feed(input: Buffer): void {
    let chunk = input;
    if (this.#pending) {
      chunk = Buffer.concat([this.#pending, input]);
      this.#pending = undefined;
    }
    let at = 0;
    while (at < chunk.length) {
      switch (this.#state) {
        case 'head': {
          const end = chunk.indexOf('\r\n\r\n', at, 'latin1');
          if (end === -1 || end - at > MAX_HEAD_BYTES) {
            this.#hold(chunk, at, MAX_HEAD_BYTES, 'head');
            return;
          }
          const bodiless = this.#head(chunk.toString('latin1', at, end));
          at = end + 4;
          if (bodiless) {
            this.#finish(at === chunk.length);
            return;
          }
          break;
        }
        case 'length':
        case 'chunk-data': {
          const take = Math.min(this.#remaining, chunk.length - at);
          if (!this.#body(chunk, at, take)) return;
          at += take;
          this.#remaining -= take;
          if (this.#remaining === 0) {
            if (this.#state === 'length') {
              this.#finish(at === chunk.length);
              return;
            }
            this.#state = 'chunk-end';
          }
          break;
        }
        case 'chunk-end': {
          if (chunk.length - at < 2) {
            this.#hold(chunk, at, 2, 'chunk');
            return;
          }
          if (chunk[at] !== 0x0d || chunk[at + 1] !== 0x0a) throw malformed('a chunk not ended by CRLF');
          at += 2;
          this.#state = 'chunk-size';
          break;
        }
        case 'chunk-size': {
          const end = chunk.indexOf('\r\n', at, 'latin1');
          if (end === -1 || end - at > MAX_CHUNK_LINE_BYTES) {
            this.#hold(chunk, at, MAX_CHUNK_LINE_BYTES, 'chunk-size line');
            return;
          }
          const size = /^([0-9A-Fa-f]{1,8})(?:[ \t]*;[^\r\n]*)?$/.exec(chunk.toString('latin1', at, end));
          if (!size) throw malformed('a bad chunk-size line');
          at = end + 2;
          this.#remaining = Number.parseInt(size[1]!, 16);
          this.#state = this.#remaining === 0 ? 'trailers' : 'chunk-data';
          break;
        }
        case 'trailers': {
          // Trailer fields are not read, only skipped: up to the empty line.
          if (chunk[at] === 0x0d && chunk[at + 1] === 0x0a) {
            this.#finish(at + 2 === chunk.length);
            return;
          }
          const end = chunk.indexOf('\r\n\r\n', at, 'latin1');
          if (end === -1 || end - at > MAX_HEAD_BYTES) {
            this.#hold(chunk, at, MAX_HEAD_BYTES, 'trailers');
            return;
          }
          this.#finish(end + 4 === chunk.length);
          return;
        }
        case 'until-close': {
          if (!this.#body(chunk, at, chunk.length - at)) return;
          at = chunk.length;
          break;
        }
        case 'done':
          return;
      }
    }
  }

  /** Keeps the unread rest for the next chunk, or fails when it is already longer than `limit`. */
  #hold(chunk: Buffer, at: number, limit: number, what: string): void {
    if (chunk.length - at > limit) throw malformed(`an answer's ${what} longer than ${limit} bytes`);
    this.#pending = Buffer.from(chunk.subarray(at));
  }

  /** Takes `take` body bytes at `at`; false when the body is past what is worth draining (the answer ends). */
  #body(chunk: Buffer, at: number, take: number): boolean {
    if (this.#keptBytes < this.maxBodyBytes && take > 0) {
      const keep = chunk.subarray(at, at + Math.min(take, this.maxBodyBytes - this.#keptBytes));
      this.#kept.push(keep);
      this.#keptBytes += keep.length;
    }
    this.#bodyBytes += take;
    if (this.#bodyBytes > MAX_DRAIN_BYTES && this.#bodyBytes > this.maxBodyBytes) {
      this.#finish(false);
      return false;
    }
    return true;
  }

  /**
   * Reads the status line and the framing headers and sets the body's state; true when the answer has no
   * body (it ends with this head).
   */
  #head(text: string): boolean {
    const lines = text.split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) throw malformed('a bad status line');
    const code = Number(status[2]);
    let length: number | undefined;
    let chunked = false;
    let encoded = false;
    let close = status[1] === '0';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) throw malformed('a bad header line');
      const name = line.slice(0, colon).toLowerCase();
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection') continue;
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === 'content-length') {
        if (!/^[0-9]{1,15}$/.test(value)) throw malformed('a bad Content-Length');
        if (length !== undefined && length !== Number(value))
          throw malformed('two different Content-Lengths');
        length = Number(value);
      } else if (name === 'transfer-encoding') {
        encoded = true;
        chunked = value.split(',').at(-1)!.trim() === 'chunked';
      } else if (value.split(',').some((token) => token.trim() === 'close')) {
        close = true;
      }
    }
    if (code < 200) {
      // An interim answer (100 Continue, 103 Early Hints) has no body; the real one follows.
      if (code === 101) throw malformed('a protocol switch nobody asked for');
      return false;
    }
    this.#status = code;
    this.#reusable = !close;
    if (code === 204 || code === 304) return true;
    if (encoded) {
      // With Transfer-Encoding, Content-Length is ignored; such a connection is not reused (RFC 9112, 6.3).
      if (length !== undefined) this.#reusable = false;
      this.#state = chunked ? 'chunk-size' : 'until-close';
      if (!chunked) this.#reusable = false;
      return false;
    }
    if (length === 0) return true;
    if (length !== undefined) {
      this.#state = 'length';
      this.#remaining = length;
      return false;
    }
    this.#state = 'until-close';
    this.#reusable = false;
    return false;
  }
}

function malformed(problem: string): Http1Error {
  return new Http1Error('MalformedAnswer', `malformed HTTP answer: ${problem}`);
}
