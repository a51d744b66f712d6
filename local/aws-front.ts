/**
 * The authenticating front of one local emulator: the only thing listening on 127.0.0.1. It refuses
 * (403, nothing of the body read) every request not signed with the run's key pair and forwards the
 * others to the emulator, which listens on a unix socket in an owner-only directory.
 */
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import { pipeline } from 'node:stream';
import { payloadHashOf, type RunCredentials, readSignedRequest, signatureMatches } from './aws-auth';
import { closeServer } from './aws-json-server';
import { answerUnread, readBounded } from './http-body';

/**
 * Largest body read to check a signature that does not carry its payload hash (every service but S3):
 * DynamoDB's own request limit.
 */
const MAX_HASHED_BODY_BYTES = 16 * 1024 * 1024;

/** Headers that belong to one connection, not to the request or answer. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'expect', 'proxy-connection', 'upgrade', 'te']);

/** A started front: its URL (what SDK clients use as the service endpoint) and close. */
export interface AwsFront {
  readonly endpoint: string;
  close(): Promise<void>;
}

/** Starts a front on `host` and a free port that forwards authenticated requests to `socketPath`. */
export async function startAwsFront(options: {
  socketPath: string;
  credentials: RunCredentials;
  host: string;
}): Promise<AwsFront> {
  const agent = new Agent({ keepAlive: true });
  const handle = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void => {
    const signed = readSignedRequest(req, options.credentials);
    if (!signed) {
      refuse(res);
      return;
    }
    if (signed.payloadHash !== undefined) {
      if (!signatureMatches(req, signed, options.credentials, signed.payloadHash)) {
        refuse(res);
        return;
      }
      if (expectsContinue) res.writeContinue();
      forward(req, res, undefined);
      return;
    }
    if (expectsContinue) res.writeContinue();
    readBounded(req, MAX_HASHED_BODY_BYTES).then(
      (body) => {
        if (body === undefined) refuse(res, 413);
        else if (!signatureMatches(req, signed, options.credentials, payloadHashOf(body))) refuse(res);
        else forward(req, res, body);
      },
      () => req.socket.destroy(),
    );
  };

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): void {
    const headers = withoutHopByHop(req.headers);
    if (body) {
      delete headers['transfer-encoding'];
      headers['content-length'] = String(body.length);
    }
    const upstream = request(
      { socketPath: options.socketPath, agent, method: req.method, path: req.url, headers },
      (answer) => {
        // The client may have gone (an aborted SDK request): `pipeline` throws on a destroyed stream.
        if (res.destroyed) {
          answer.destroy();
          return;
        }
        const answerHeaders = withoutHopByHop(answer.headers);
        delete answerHeaders['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, answerHeaders);
        pipeline(answer, res, () => undefined);
      },
    );
    // A client that leaves ends the request to the emulator too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.on('error', () => {
      if (!res.headersSent) refuse(res, 502);
      else res.destroy();
    });
    if (body) upstream.end(body);
    else pipeline(req, upstream, () => undefined);
  }

  const server: Server = createServer((req, res) => handle(req, res, false));
  // Checked before `100 Continue`: a refused client never sends its body.
  server.on('checkContinue', (req, res) => handle(req, res, true));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://${options.host}:${port}`,
    close: async () => {
      await closeServer(server);
      agent.destroy();
    },
  };
}

/** Answers without reading (the rest of) the body. */
function refuse(res: ServerResponse, status = 403): void {
  const body =
    status === 403
      ? '{"__type":"AccessDeniedException","message":"not signed with this local run\'s key"}'
      : JSON.stringify({
          __type: status === 413 ? 'RequestTooLarge' : 'BadGateway',
          message: String(status),
        });
  answerUnread(res, status, body);
}

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && !name.startsWith('proxy-')) copy[name] = value;
  }
  return copy;
}
