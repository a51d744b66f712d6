/**
 * A deliberately *different*, minimal implementation of the verification service (spec §4.6, §4.7, §4.9),
 * written with plain `node:http` and none of the simulator's code. It makes the choices the spec leaves
 * open differently from our simulator, the way another team's implementation might:
 *
 * - tokens with a numeric `expiresIn`, a lower-case `tokenType` and extra fields;
 * - resultIds with dots, colons, tildes, `+`, `=`, `@`, a UUID and a JSON number;
 * - poll responses with extra fields, a record that is not an object and `completed` in other formats;
 * - results with a `data:` URL prefix, line-broken and URL-safe base64, entries without `data`, and
 *   unknown sections, fields and enum values;
 * - `410 Gone` for an expired result.
 *
 * Like the spec says, a successful `GET /result/{resultId}` removes the poll record; successful GETs are
 * counted per resultId so tests can prove "exactly once".
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One result the other service holds, with the exact bytes it serves for each attachment. */
export interface OtherResult {
  /** The resultId as the poll record carries it (a number for the numeric-id case). */
  readonly pollId: string | number;
  /** The JSON body served by `GET /result/{resultId}`. */
  readonly body: Record<string, unknown>;
  /** The decoded bytes of every image/file that has data, in the order they appear. */
  readonly attachments: readonly Buffer[];
  /** How the result endpoint answers: 200 (default), or 404/410 for a result that is gone. */
  readonly status?: 200 | 404 | 410;
  /** The `completed` value of the poll record (any format). */
  readonly completed?: unknown;
}

/** The running server and what it saw. */
export interface OtherService {
  readonly url: string;
  /** Successful (200) `GET /result` per resultId. */
  readonly successfulGets: Map<string, number>;
  /** Every `GET /result` per resultId, whatever the status. */
  readonly allGets: Map<string, number>;
  /** Bodies of the token requests (to check we send the spec's request). */
  readonly tokenRequests: { authorization: string | undefined; body: unknown }[];
  /** Adds a result and its poll record. */
  add(result: OtherResult): void;
  /** Poll records still pending (resultIds as strings). */
  pending(): string[];
  close(): Promise<void>;
}

/** Options of `startOtherService`. */
export interface OtherServiceOptions {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Starts the other implementation on 127.0.0.1, port 0. */
export async function startOtherService(options: OtherServiceOptions): Promise<OtherService> {
  const results = new Map<string, OtherResult>();
  const pending = new Map<string, OtherResult>();
  const tokens = new Set<string>();
  const successfulGets = new Map<string, number>();
  const allGets = new Map<string, number>();
  const tokenRequests: OtherService['tokenRequests'] = [];
  const expectedBasic = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    // Pretty-printed with a trailing newline: a different, equally valid JSON serialisation.
    const text = `${JSON.stringify(body, null, 1)}\n`;
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(text);
  };
  const unauthorized = (res: ServerResponse) => send(res, 401, { code: 16, message: 'Unauthorized' });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://localhost');

    if (req.method === 'POST' && url.pathname === '/api/v2/oauth/token') {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      tokenRequests.push({ authorization: req.headers.authorization, body });
      if (req.headers.authorization !== expectedBasic) return unauthorized(res);
      const accessToken = randomUUID();
      tokens.add(accessToken);
      // Numeric expiresIn, lower-case tokenType, extra OAuth-style fields.
      return send(res, 200, {
        accessToken,
        expiresIn: 1800,
        tokenType: 'bearer',
        scope: 'all',
        issuedBy: 'x',
      });
    }

    const auth = req.headers.authorization ?? '';
    const match = /^bearer (.+)$/i.exec(auth);
    if (!match || !tokens.has(match[1]!)) return unauthorized(res);

    if (req.method === 'GET' && url.pathname === '/api/v2/poll') {
      const records: unknown[] = [...pending.values()].map((r, i) => ({
        resultId: r.pollId,
        transactionId: r.body.transactionId,
        product: 'IDV_STANDARD',
        customerReference: r.body.customerReference,
        ...(r.completed !== undefined && { completed: r.completed }),
        priority: i,
        links: { self: `/api/v2/result/${r.pollId}` },
      }));
      // A record that is not an object at all: it must be skipped, not fail the whole poll.
      records.splice(1, 0, 'garbage-record');
      return send(res, 200, { results: records, total: pending.size, nextPage: null });
    }

    const resultMatch = /^\/api\/v2\/result\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && resultMatch) {
      const id = decodeURIComponent(resultMatch[1]!);
      allGets.set(id, (allGets.get(id) ?? 0) + 1);
      const result = results.get(id);
      if (!result || result.status === 404) return send(res, 404, { code: 5, message: 'NotFound' });
      if (result.status === 410) return send(res, 410, { code: 5, message: 'Expired' });
      successfulGets.set(id, (successfulGets.get(id) ?? 0) + 1);
      pending.delete(id);
      return send(res, 200, result.body);
    }

    return send(res, 404, { code: 5, message: 'no such endpoint', details: [] });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}`,
    successfulGets,
    allGets,
    tokenRequests,
    add(result) {
      results.set(String(result.pollId), result);
      pending.set(String(result.pollId), result);
    },
    pending: () => [...pending.keys()],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------------
// Fixture bytes and encodings
// ---------------------------------------------------------------------------------------------------

/** A small but real-looking JPEG (SOI, APP0/JFIF, filler, EOI) with `seed` varying the bytes. */
export function jpegBytes(seed: number, size = 3000): Buffer {
  const bytes = Buffer.alloc(size);
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]).copy(bytes);
  for (let i = 11; i < size - 2; i++) bytes[i] = (i * 31 + seed * 17) & 0xff;
  bytes[size - 2] = 0xff;
  bytes[size - 1] = 0xd9;
  return bytes;
}

/** PNG signature plus filler bytes (enough for content sniffing and a byte comparison). */
export function pngBytes(seed: number, size = 2500): Buffer {
  const bytes = Buffer.alloc(size);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  for (let i = 8; i < size; i++) bytes[i] = (i * 7 + seed * 13 + (i >> 3)) & 0xff;
  return bytes;
}

/** A PDF-looking file (header, filler, trailer). */
export function pdfBytes(seed: number, size = 1800): Buffer {
  const head = Buffer.from('%PDF-1.4\n');
  const tail = Buffer.from('\n%%EOF\n');
  const body = Buffer.alloc(size - head.length - tail.length);
  for (let i = 0; i < body.length; i++) body[i] = (i * 11 + seed) & 0xff;
  return Buffer.concat([head, body, tail]);
}

/** Base64 as a MIME encoder writes it: lines of 76 characters separated by CRLF. */
export function mimeBase64(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
}
