import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** Largest request body the local fakes accept; real PutEvents/PutSecretValue limits are far below it. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * An AWS error as the JSON 1.1 protocol returns it: status 400 (or given) and `__type`, which the SDK
 * turns into an exception of that name.
 */
export class AwsJsonError extends Error {
  override readonly name = 'AwsJsonError';
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** One operation of a fake service: the parsed JSON request in, a JSON-serialisable response out. */
export type AwsJsonOperation = (input: Record<string, unknown>) => unknown | Promise<unknown>;

/** A started fake: its base URL and a close that also drops kept-alive SDK connections. */
export interface AwsJsonServer {
  readonly endpoint: string;
  close(): Promise<void>;
}

/** Where a fake listens: a host (and a free port), or a unix socket (behind the local run's front). */
export type ListenOn = { host: string } | { socketPath: string };

/**
 * Starts a `node:http` server speaking the AWS JSON 1.1 protocol (`X-Amz-Target: <prefix>.<Operation>`,
 * `application/x-amz-json-1.1`) for the given operations, on `host` and a free port or on a unix socket
 * (its endpoint is then `unix:<path>`).
 */
export async function startAwsJsonServer(
  targetPrefix: string,
  operations: Record<string, AwsJsonOperation>,
  listenOn: ListenOn = { host: '127.0.0.1' },
): Promise<AwsJsonServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // The operation itself failed unexpectedly: answer like AWS would, without echoing the request.
      send(res, 500, {
        __type: 'InternalFailure',
        message: error instanceof Error ? error.message : 'error',
      });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = String(req.headers['x-amz-target'] ?? '');
    const [prefix, operationName] = target.split('.');
    const operation = prefix === targetPrefix && operationName ? operations[operationName] : undefined;
    if (req.method !== 'POST' || !operation) {
      send(res, 400, { __type: 'UnknownOperationException', message: `Unsupported operation: ${target}` });
      return;
    }
    let input: Record<string, unknown>;
    try {
      const body = await readBody(req);
      input = body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
    } catch {
      send(res, 400, { __type: 'SerializationException', message: 'Request body is not valid JSON' });
      return;
    }
    try {
      send(res, 200, (await operation(input)) ?? {});
    } catch (error) {
      if (error instanceof AwsJsonError) {
        send(res, error.status, { __type: error.type, message: error.message });
        return;
      }
      throw error;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listening = (): void => {
      server.off('error', reject);
      resolve();
    };
    if ('socketPath' in listenOn) server.listen(listenOn.socketPath, listening);
    else server.listen(0, listenOn.host, listening);
  });
  const endpoint =
    'socketPath' in listenOn
      ? `unix:${listenOn.socketPath}`
      : `http://${listenOn.host}:${(server.address() as { port: number }).port}`;
  return {
    endpoint,
    close: () => closeServer(server),
  };
}

/** Closes an HTTP server, dropping idle keep-alive sockets so the close does not wait for SDK agents. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': crypto.randomUUID(),
    ...(status >= 400 && typeof body === 'object' && body && '__type' in body
      ? { 'x-amzn-errortype': String((body as { __type: unknown }).__type) }
      : {}),
  });
  res.end(payload);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
