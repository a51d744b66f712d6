import type { IncomingMessage } from 'node:http';

/**
 * Reads a request body of at most `limit` bytes. Resolves `undefined` as soon as the body is larger: the
 * rest is read and dropped, so the caller can still answer (413) on the same connection. Used by every
 * HTTP server of the project (the local API Gateway adapter, the simulator).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** What {@link readBodyWithin} read: the whole body, or that it is larger than the limit. */
export type BoundedBody = { readonly ok: true; readonly raw: Buffer } | { readonly ok: false };

/**
 * Reads a request body of at most `limit` bytes and stops at the limit: a body that declares a larger
 * `content-length` is not read at all, one that grows past it is left unread from there on. The caller
 * answers (413, 401) with `connection: close`, so the rest is never read. For requests that are not
 * yet allowed to cost anything (the simulator reads a few KiB of an unauthenticated request).
 */
export function readBodyWithin(req: IncomingMessage, limit: number): Promise<BoundedBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.off('data', onData);
        req.pause();
        resolve({ ok: false });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(size > limit ? { ok: false } : { ok: true, raw: Buffer.concat(chunks) }));
    req.on('error', reject);
  });
}
