/**
 * The simulator as a Lambda function behind a function URL: the service a deployed pipeline talks to in
 * the integration test a platform team runs in its own account (test/integ/, docs/deploy.md, "Prove it
 * in your account").
 *
 * The simulator is a `node:http` server with its state in memory; this adapter starts it once per
 * execution environment on a loopback port and forwards each function URL request to it, so every route,
 * check and status is the one the tests exercise locally. State lives as long as the environment: the
 * function runs with a reserved concurrency of 1 (one warm instance; the poll every minute keeps it
 * warm), and a new instance starts empty.
 *
 * Its client credentials come from a Secrets Manager secret (`{"clientId","clientSecret"}`, generated at
 * deploy time) named by `IDV_SIMULATOR_CREDENTIALS_SECRET`; the integration test copies them into the
 * pipeline's credentials secret.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import { startSimulator } from './server';
import type { RunningSimulator } from './types';

/** Names the secret holding the simulator's client credentials. */
export const SIMULATOR_CREDENTIALS_SECRET = 'IDV_SIMULATOR_CREDENTIALS_SECRET';

/** Headers not forwarded: the loopback hop sets its own, and the simulator refuses foreign Host/Origin. */
const HOP_HEADERS = new Set(['host', 'origin', 'connection', 'content-length', 'transfer-encoding']);

/** The client credentials in a secret's JSON, or an error naming what is missing (never the value). */
export function credentialsOf(text: string | undefined): { clientId: string; clientSecret: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch (cause) {
    throw new Error('simulator credentials secret is not JSON', { cause });
  }
  const { clientId, clientSecret } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof clientId !== 'string' || clientId === '' || typeof clientSecret !== 'string' || !clientSecret) {
    throw new Error('simulator credentials secret needs non-empty "clientId" and "clientSecret"');
  }
  return { clientId, clientSecret };
}

async function start(): Promise<RunningSimulator> {
  const secretId = process.env[SIMULATOR_CREDENTIALS_SECRET];
  if (!secretId) throw new Error(`${SIMULATOR_CREDENTIALS_SECRET} is not set`);
  const secret = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretId }));
  return startSimulator({
    ...credentialsOf(secret.SecretString),
    environment: 'staging',
    warmImagePool: true,
  });
}

let running: Promise<RunningSimulator> | undefined;

/**
 * Forwards one function URL request to the in-process simulator and returns its answer (bodies as
 * base64: results carry images and PDFs).
 */
export async function handler(event: LambdaFunctionURLEvent): Promise<LambdaFunctionURLResult> {
  running ??= start().catch((err: unknown) => {
    running = undefined;
    throw err;
  });
  const sim = await running;
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && !HOP_HEADERS.has(name.toLowerCase())) headers.set(name, value);
  }
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const method = event.requestContext.http.method;
  const body =
    event.body === undefined || method === 'GET' || method === 'HEAD'
      ? undefined
      : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  const answer = await fetch(`${sim.url}${event.rawPath}${query}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body !== undefined && { body }),
  });
  const responseHeaders: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) responseHeaders[name] = value;
  });
  return {
    statusCode: answer.status,
    headers: responseHeaders,
    body: Buffer.from(await answer.arrayBuffer()).toString('base64'),
    isBase64Encoded: true,
  };
}
