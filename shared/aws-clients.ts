/**
 * AWS SDK clients, the one transport to AWS: every request of the functions, the CLI and the local run is
 * a command of a client built here, once per container (or per CLI run), never per call. Endpoints are not
 * set here: the SDK reads `AWS_ENDPOINT_URL_<SERVICE>` itself, which is how the local run and the
 * integration tests point the same code at the emulators. Given a tracer (the functions pass theirs), the
 * same client is wrapped so every call is an X-Ray subsegment; the requests are the same with tracing on
 * or off. The CLI passes none.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsClientConfig } from './config';
// Type only: the CLI builds these clients too and must not load the X-Ray SDK.
import type { Tracer } from './tracing';

/** Sockets open at once to one host per client: the SDK's own default, stated so it is a decision. */
export const MAX_SOCKETS = 50;

/**
 * The HTTP handler's settings of every client (each client gets its own agents: `destroy()` of one
 * client, as the CLI does, must not close another's connections).
 * - Keep-alive: a result's requests reuse the container's connections instead of a TLS handshake each.
 * - `connectionTimeout`: a connection not made in 5 s is given up; the SDK's retries try again.
 * - `socketTimeout`: a request with no byte moving for 30 s is given up (the SDK sets none by default,
 *   and a stalled socket would otherwise hold a record until the invocation's deadline).
 */
function requestHandler() {
  const agent = { keepAlive: true, maxSockets: MAX_SOCKETS };
  return { httpAgent: agent, httpsAgent: agent, connectionTimeout: 5_000, socketTimeout: 30_000 };
}

/** Optional settings of a client besides the defaults: the local run's endpoints and key pair. */
export type ClientOverrides = {
  readonly region?: string;
  readonly endpoint?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
};

const maybeTraced = <T>(client: T, tracer?: Tracer): T =>
  tracer ? tracer.captureAWSv3Client(client) : client;

/**
 * S3 client; path-style addressing when configured (the local emulator needs it). Checksums as S3 takes
 * them: every write carries one S3 checks before it keeps the bytes (the pipeline's own SHA-256 on a small
 * blob, the SDK's CRC32 on a part or `result.json`), and reads validate one where the object has it.
 * Both are the SDK's defaults, named here so that a change of default cannot drop them unnoticed.
 */
export function createS3Client(
  config: AwsClientConfig,
  tracer?: Tracer,
  overrides?: ClientOverrides,
): S3Client {
  return maybeTraced(
    new S3Client({
      ...overrides,
      forcePathStyle: config.s3ForcePathStyle,
      requestChecksumCalculation: 'WHEN_SUPPORTED',
      responseChecksumValidation: 'WHEN_SUPPORTED',
      requestHandler: requestHandler(),
    }),
    tracer,
  );
}

/** DynamoDB client (tables and raw attribute values: the local run's setup). */
export function createDynamoClient(tracer?: Tracer, overrides?: ClientOverrides): DynamoDBClient {
  return maybeTraced(new DynamoDBClient({ ...overrides, requestHandler: requestHandler() }), tracer);
}

/** DynamoDB document client that drops `undefined` attributes (optional identifiers). */
export function createDynamoDocumentClient(
  tracer?: Tracer,
  overrides?: ClientOverrides,
): DynamoDBDocumentClient {
  // The base client is traced: the document client sends through it.
  return DynamoDBDocumentClient.from(createDynamoClient(tracer, overrides), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** SQS client. */
export function createSqsClient(tracer?: Tracer, overrides?: ClientOverrides): SQSClient {
  return maybeTraced(new SQSClient({ ...overrides, requestHandler: requestHandler() }), tracer);
}

/** Secrets Manager client. */
export function createSecretsClient(tracer?: Tracer, overrides?: ClientOverrides): SecretsManagerClient {
  return maybeTraced(new SecretsManagerClient({ ...overrides, requestHandler: requestHandler() }), tracer);
}

/** EventBridge client. */
export function createEventBridgeClient(tracer?: Tracer, overrides?: ClientOverrides): EventBridgeClient {
  return maybeTraced(new EventBridgeClient({ ...overrides, requestHandler: requestHandler() }), tracer);
}
