/**
 * Body handling shared by the local run's HTTP servers (the emulators' fronts, the webhook endpoint):
 * a bounded read, and an answer that leaves the body unread.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Reads a request body of at most `limit` bytes. Resolves `undefined` at once when the declared length,
 * or the bytes received so far, go over it; the rest is not read (answer with {@link answerUnread}).
 */
export function readBounded(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Answers a request whose body was not (or not all) read. `connection: close` makes Node end the socket
 * once the answer is written instead of reading the rest of the body to reuse the connection, and the
 * socket is destroyed shortly after in case the client keeps sending.
 */
export function answerUnread(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    ...headers,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  });
  res.end(body, () => {
    setTimeout(() => res.socket?.destroy(), 1000).unref();
  });
}
