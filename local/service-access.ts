/**
 * What the local run needs from the service and the local secrets before it starts: the webhook path
 * secret, and a check that the service answers and accepts the credentials, failing with what to do.
 */
import { randomBytes } from 'node:crypto';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { createSecretsClient } from '../shared/aws-clients';
import { ConnectionError, fetchAccessToken, UnauthorizedError } from '../shared/client';
import { statusWithCode } from '../shared/client/errors';
import { DEFAULT_PIPELINE_SCOPES } from '../shared/config';
import { clientConfig } from './client-config';
import type { LocalAws } from './local-aws';

/** A dependency could not be set up; the message says what to do. */
export class RunDependencyError extends Error {
  override readonly name = 'RunDependencyError';
}

/** The value of a local secret. */
export async function readSecret(aws: LocalAws, secretId: string): Promise<string> {
  const client = createSecretsClient(undefined, clientConfig(aws, 'secretsManager'));
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return SecretString ?? '';
  } finally {
    client.destroy();
  }
}

/** Fails early, with what to do, when the service cannot be reached or refuses the credentials. */
export async function checkCredentials(
  baseUrl: string,
  credentials: { clientId: string; clientSecret: string },
  external: boolean,
): Promise<void> {
  if (external && (!credentials.clientId || !credentials.clientSecret)) {
    throw new RunDependencyError(
      '--service-url needs --client-id and --client-secret (the credentials of that environment)',
    );
  }
  try {
    await fetchAccessToken({
      baseUrl,
      ...credentials,
      scopes: DEFAULT_PIPELINE_SCOPES,
      retry: { maxAttempts: 2 },
    });
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      throw new RunDependencyError(
        `the service at ${baseUrl} refused the client credentials (${statusWithCode(error)}): check --client-id and --client-secret`,
      );
    }
    if (error instanceof ConnectionError) {
      throw new RunDependencyError(
        `cannot reach the service at ${baseUrl}: check --service-url and your network`,
      );
    }
    throw new RunDependencyError(
      `getting an access token from ${baseUrl} failed (${error instanceof Error ? error.name : 'error'}): check the service and its scopes`,
    );
  }
}

/** Who may use the simulator of one `npm start`: its client credentials and its `/__sim` secret. */
export interface SimulatorAccess {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly controlSecret: string;
}

/**
 * Fresh random credentials for the simulator of one run, never the README's fixed demo ones: its port is
 * on 127.0.0.1, which every user of the machine reaches. Only the owner sees them (the start screen, and
 * the 0600 `stack.json`).
 */
export function newSimulatorAccess(): SimulatorAccess {
  const secret = () => randomBytes(24).toString('base64url');
  return {
    clientId: `local-${randomBytes(6).toString('hex')}`,
    clientSecret: secret(),
    controlSecret: secret(),
  };
}
