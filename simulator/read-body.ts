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
