/**
 * Counting proxies in front of the local AWS emulators: the handler under test gets their addresses as
 * `AWS_ENDPOINT_URL_*`, so every request it makes is counted per service and operation (the billing
 * unit of each), then streamed through unchanged. Nothing is buffered: a 1 GB upload passes in chunks.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Requests per operation, e.g. `{ PutObject: 3, UploadPart: 12 }`. */
export type OperationCounts = Record<string, number>;

/** One proxy per service. */
export interface CountingProxies {
  /** `AWS_ENDPOINT_URL_*` variables pointing at the proxies. */
  env: Record<string, string>;
  /** Counts since the last reset, per service (the `AWS_ENDPOINT_URL_` suffix). */
  counts(): Record<string, OperationCounts>;
  /**
   * Wall milliseconds since the last reset, per service and operation: from each request's arrival to
   * the end of its answer, summed (requests in flight at once each count their own time).
   */
  millis(): Record<string, OperationCounts>;
  reset(): void;
  close(): Promise<void>;
}

/** The operation of an S3 REST request, from its method and query (the key is not needed). */
function s3Operation(method: string, url: URL): string {
  const q = url.searchParams;
  if (method === 'PUT') return q.has('partNumber') ? 'UploadPart' : 'PutObject';
  if (method === 'POST')
    return q.has('uploads')
      ? 'CreateMultipartUpload'
      : q.has('uploadId')
        ? 'CompleteMultipartUpload'
        : q.has('delete')
          ? 'DeleteObjects'
          : 'PostObject';
  if (method === 'DELETE') return q.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
  if (method === 'HEAD') return 'HeadObject';
  return q.has('uploadId') ? 'ListParts' : 'GetObject';
}

/** Starts a proxy for each `AWS_ENDPOINT_URL_*` variable of `targets`. */
export async function startCountingProxies(targets: Record<string, string>): Promise<CountingProxies> {
  let counts: Record<string, OperationCounts> = {};
  let millis: Record<string, OperationCounts> = {};
  const servers: Server[] = [];
  const env: Record<string, string> = {};
  for (const [variable, target] of Object.entries(targets)) {
    if (!variable.startsWith('AWS_ENDPOINT_URL_')) continue;
    const service = variable.slice('AWS_ENDPOINT_URL_'.length);
    const upstream = new URL(target);
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://proxy');
      const target = req.headers['x-amz-target'];
      const operation =
        typeof target === 'string'
          ? target.split('.').at(-1)!
          : service === 'S3'
            ? s3Operation(req.method ?? 'GET', url)
            : `${req.method}`;
      counts[service] ??= {};
      const perService = counts[service];
      perService[operation] = (perService[operation] ?? 0) + 1;
      const arrived = performance.now();
      const timed = millis;
      res.on('finish', () => {
        timed[service] ??= {};
        timed[service][operation] = (timed[service][operation] ?? 0) + performance.now() - arrived;
      });
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      req.pipe(out);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    env[variable] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return {
    env,
    counts: () => structuredClone(counts),
    millis: () => structuredClone(millis),
    reset: () => {
      counts = {};
      millis = {};
    },
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
