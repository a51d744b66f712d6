/**
 * A small HTTP proxy in front of one local AWS emulator that makes chosen calls fail, so the chaos suite
 * can crash fetch-result between its steps at the AWS boundary (the handler sees the same error a crashed
 * or unreachable service gives). Every call's operation and resultId are read from the wire, never from
 * the pipeline's internals, so the proxy keeps working whatever the pipeline's code looks like.
 */
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call as the proxy sees it. */
export interface ProxiedCall {
  /** `PutItem`, `UpdateItem`, `PutEvents`, `SendMessage`, … or `S3:PUT`, `S3:POST`, `S3:GET`. */
  operation: string;
  /** resultIds found in the call (path or body); several for batch calls. */
  resultIds: string[];
}

/**
 * What to do with a call: forward it, fail it without forwarding (`before`: the step never happened) or
 * forward it and cut the answer (`after`: the step happened, the caller never learns it).
 */
export type ProxyVerdict = 'forward' | 'before' | 'after';

/** A started fault proxy. */
export interface AwsFaultProxy {
  url: string;
  /** Calls by operation. */
  readonly calls: Record<string, number>;
  /** Injected failures by `operation:verdict`. */
  readonly injected: Record<string, number>;
  /** Calls of `operation` that named `resultId`. */
  count(operation: string, resultId: string): number;
  /** Every resultId a call of `operation` named. */
  resultIds(operation: string): string[];
  close(): Promise<void>;
}

// DynamoDB JSON (`"resultId":{"S":"x"}`), plain JSON and JSON inside a JSON string (EventBridge Detail,
// SQS MessageBody) all match.
const RESULT_ID_IN_BODY = /resultId\\?"\s*:\s*(?:\{\s*"S"\s*:\s*)?\\?"([A-Za-z0-9._:~+=@-]+)/g;
const RESULT_ID_IN_KEY = /\/results\/([A-Za-z0-9._:~+=@-]+)\//;

/** Starts a proxy to `target` (an emulator's base URL) that asks `decide` about every call. */
export async function startAwsFaultProxy(
  target: string,
  decide: (call: ProxiedCall) => ProxyVerdict,
  options: { rewriteHost?: boolean } = {},
): Promise<AwsFaultProxy> {
  const upstream = new URL(target);
  const calls: Record<string, number> = {};
  const injected: Record<string, number> = {};
  const perResult = new Map<string, number>();
  let self: string | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      // SQS names a queue by its URL: the handlers know it on the proxy, the emulator on itself.
      if (options.rewriteHost && self)
        body = Buffer.from(body.toString('utf8').replaceAll(self, upstream.host));
      const call = describeCall(req, body);
      calls[call.operation] = (calls[call.operation] ?? 0) + 1;
      for (const id of call.resultIds) {
        const key = `${call.operation} ${id}`;
        perResult.set(key, (perResult.get(key) ?? 0) + 1);
      }
      const verdict = decide(call);
      if (verdict !== 'forward')
        injected[`${call.operation}:${verdict}`] = (injected[`${call.operation}:${verdict}`] ?? 0) + 1;
      if (verdict === 'before') {
        req.socket.destroy();
        return;
      }
      forward(upstream, req, body, res, verdict === 'after');
    });
  });
  // Keep-alive sockets of the SDK clients would hold close() open.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  self = `127.0.0.1:${port}`;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    injected,
    count: (operation, resultId) => perResult.get(`${operation} ${resultId}`) ?? 0,
    resultIds: (operation) =>
      [...perResult.keys()]
        .filter((key) => key.startsWith(`${operation} `))
        .map((key) => key.slice(operation.length + 1)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function describeCall(req: IncomingMessage, body: Buffer): ProxiedCall {
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string') {
    const text = body.toString('utf8');
    const ids = new Set<string>();
    for (const match of text.matchAll(RESULT_ID_IN_BODY)) ids.add(match[1]!);
    return { operation: target.split('.').at(-1)!, resultIds: [...ids] };
  }
  const key = RESULT_ID_IN_KEY.exec(decodeURIComponent(req.url ?? ''));
  return { operation: `S3:${req.method}`, resultIds: key ? [key[1]!] : [] };
}

function forward(upstream: URL, req: IncomingMessage, body: Buffer, res: ServerResponse, cut: boolean): void {
  const out = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      // The Host header is kept: it is signed, and the local run's fronts check every signature.
      headers: { ...req.headers, 'content-length': String(body.length) },
    },
    (answer) => {
      if (cut) {
        // The emulator did the work; the caller sees a dropped connection, as after a crash.
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => req.socket.destroy());
  out.end(body);
}
