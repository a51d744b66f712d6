import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { sameSecret } from './aws-auth';
import { closeServer } from './aws-json-server';
import { answerUnread, readBounded } from './http-body';

/** A handler with the API Gateway proxy integration's signature. */
export type ApiGatewayHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/**
 * API Gateway's own payload limit (10 MB). The stack sets no lower one: the webhook handler refuses bodies
 * over 256 KB itself, so a smaller limit here would refuse locally what the deployed stack accepts.
 */
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** An HTTP request as the adapter needs it. */
export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  sourceIp: string;
}

/**
 * Turns an HTTP request into the `APIGatewayProxyEvent` a REST API proxy integration would deliver, or
 * `undefined` when no route matches (API Gateway answers those itself). Text bodies (JSON, form, text)
 * are passed as UTF-8, anything else base64-encoded, as without `binaryMediaTypes` configured.
 */
export function toApiGatewayEvent(request: RawRequest, stage = 'local'): APIGatewayProxyEvent | undefined {
  const url = new URL(request.url, 'http://localhost');
  const route = matchRoute(url.pathname);
  if (!route || request.method !== 'POST') return undefined;

  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    headers[name] = values.join(',');
    multiValueHeaders[name] = values;
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    multiQuery[name] = [...(multiQuery[name] ?? []), value];
  }
  const binary = request.body.length > 0 && !isTextual(headers['content-type']);
  const requestTimeEpoch = Date.now();

  return {
    resource: route.resource,
    path: url.pathname,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: url.searchParams.size > 0 ? query : null,
    multiValueQueryStringParameters: url.searchParams.size > 0 ? multiQuery : null,
    pathParameters: route.pathParameters,
    stageVariables: null,
    body: request.body.length === 0 ? null : request.body.toString(binary ? 'base64' : 'utf8'),
    isBase64Encoded: binary,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp,
        user: null,
        userAgent: headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${stage}${url.pathname}`,
      stage,
      requestId: randomUUID(),
      requestTimeEpoch,
      resourceId: 'local',
      resourcePath: route.resource,
    },
  };
}

/** Options of {@link startWebhookEndpoint}. */
export interface WebhookEndpointOptions {
  handler: ApiGatewayHandler;
  /** Builds the Lambda context of each invocation. */
  context: () => Context;
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
  maxBodyBytes?: number;
  /**
   * The webhook path secret. Given, a request whose `{token}` is not it gets the handler's 404 at once,
   * before any byte of its body is read (the handler checks it again).
   */
  pathSecret?: string;
  /** Called after each routed request with its status (never with the path: it holds the secret). */
  onResponse?: (route: string, status: number) => void;
  /**
   * Other routes on the same port (the local console): asked first, true when it answered the request.
   * It must check its own secret before reading a body, as the webhook routes do.
   */
  otherRoutes?: (req: IncomingMessage, res: ServerResponse, port: number) => boolean;
}

/** The running endpoint: base URL (`http://host:port`) and close. */
export interface WebhookEndpoint {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves the stack's webhook routes on a local port: each request becomes an API Gateway proxy event
 * for `handler`, and its result becomes the HTTP response. Unknown routes get API Gateway's 403
 * `Missing Authentication Token` and a wrong path secret 404, both before the body is read; bodies over
 * `maxBodyBytes` 413 as soon as that is known. A taken port rejects with `EADDRINUSE`.
 */
export async function startWebhookEndpoint(options: WebhookEndpointOptions): Promise<WebhookEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let port = 0;
  const handle = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void => {
    if (options.otherRoutes?.(req, res, port)) return;
    const reply = (status: number, body: string, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    const route = matchRoute(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (!route || req.method !== 'POST') {
      answerUnread(res, 403, '{"message":"Missing Authentication Token"}');
      return;
    }
    if (options.pathSecret !== undefined && !sameSecret(route.pathParameters.token!, options.pathSecret)) {
      options.onResponse?.(route.resource, 404);
      answerUnread(res, 404, '{"message":"Not Found"}');
      return;
    }
    if (expectsContinue) res.writeContinue();
    readBounded(req, maxBodyBytes)
      .then(async (body) => {
        if (body === undefined) return answerUnread(res, 413, '{"message":"Request Too Long"}');
        const event = toApiGatewayEvent({
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers,
          body,
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        });
        if (!event) return reply(403, '{"message":"Missing Authentication Token"}');
        const result = await options.handler(event, options.context());
        const headers = Object.fromEntries(
          Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
        );
        const payload = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
        options.onResponse?.(event.resource, result.statusCode);
        reply(result.statusCode, payload.toString(), headers);
      })
      .catch(() => {
        // A thrown handler error is API Gateway's 502; the error itself stays in the handler's logs.
        options.onResponse?.('error', 502);
        reply(502, '{"message":"Internal server error"}');
      });
  };
  const server: Server = createServer((req, res) => handle(req, res, false));
  // Checked before `100 Continue`: a refused client never sends its body.
  server.on('checkContinue', (req, res) => handle(req, res, true));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  ({ port } = server.address() as { port: number });
  return { url: `http://${host}:${port}`, port, close: () => closeServer(server) };
}

function matchRoute(path: string): { resource: string; pathParameters: Record<string, string> } | undefined {
  const match = /^\/webhooks\/([^/]+)\/(result|upload)\/?$/.exec(path);
  if (!match) return undefined;
  return {
    resource: `/webhooks/{token}/${match[2]}`,
    // A malformed escape stays as sent (no match for the secret, so 404) instead of failing as a 502.
    pathParameters: { token: safeDecode(match[1]!) },
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function isTextual(contentType: string | undefined): boolean {
  if (!contentType) return true;
  return /^(text\/|application\/(json|[\w.+-]+\+json|x-www-form-urlencoded|xml))/i.test(contentType);
}
