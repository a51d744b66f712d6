/**
 * `idv setup credentials`: puts the service's client credentials into the stack's secret. The values are
 * asked for (the secret without echo) or read from a pipe, checked against the service with a token
 * request, and written with the AWS SDK as JSON the SDK encodes — no JSON typed by hand, nothing in the
 * shell history or the process list.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutSecretValueCommand, ResourceNotFoundException } from '@aws-sdk/client-secrets-manager';
import { type EnvironmentConfig, loadEnvironments } from '../../infra/config';
import { createSecretsClient } from '../../shared/aws-clients';
import { fetchAccessToken } from '../../shared/client';
import { printableText } from '../../shared/client/error-text';
import { statusWithCode, UnauthorizedError } from '../../shared/client/errors';
import { DEFAULT_PIPELINE_SCOPES } from '../../shared/config';
import { fromDeployment } from './deployment';
import { UsageError } from './errors';
import { flag, str } from './flags';
import type { CliCommand, CommandContext } from './types';

const COMMAND = 'setup credentials';

export const setupCredentialsCommand: CliCommand = {
  path: ['setup', 'credentials'],
  summary: "put the service's client credentials into the stack's secret (asked for, never echoed)",
  usage:
    'setup credentials (--stack NAME | --outputs-file FILE | --secret-id ID) [--environment ENV] [--service-url URL] [--skip-verify]',
  help: `  --secret-id ID       the secret to write (default: the deployment's output CredentialsSecretName)
  --environment ENV    the environment in cdk.json (staging, production, …) whose serviceBaseUrl checks them
  --service-url URL    check the credentials against this service (default: the environment's
                       serviceBaseUrl in cdk.json, unless it is a placeholder)
  --skip-verify        write without asking the service for a token first
The client id and secret are asked for on the terminal (the secret is not echoed); with a pipe on
stdin they are its first two lines. AWS credentials and region come from the standard AWS environment
(AWS_PROFILE after \`aws sso login\`, AWS_REGION). Prints the secret's id and version, never its value.`,
  options: {
    environment: { type: 'string' },
    'secret-id': { type: 'string' },
    'service-url': { type: 'string' },
    'skip-verify': { type: 'boolean' },
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const environment = str(ctx, 'environment');
    if (environment !== undefined && !/^[a-z][a-z0-9-]{0,19}$/.test(environment)) {
      throw new UsageError('--environment must be lower-case letters, digits and dashes', COMMAND);
    }
    const secretId =
      str(ctx, 'secret-id') ??
      fromDeployment(
        await ctx.deployment(),
        'CredentialsSecretName',
        undefined,
        'pass --secret-id ID',
        COMMAND,
      );
    const config = environment === undefined ? undefined : stackConfig(ctx, environment);
    const serviceUrl =
      str(ctx, 'service-url') ?? (config?.serviceBaseUrlIsPlaceholder ? undefined : config?.serviceBaseUrl);

    const clientId = await ask(ctx, 'client id: ', false);
    const clientSecret = await ask(ctx, 'client secret: ', true);

    let verified: string | false = false;
    if (!flag(ctx, 'skip-verify')) {
      if (!serviceUrl) {
        ctx.io.stderr(
          `not checked against the service: no real serviceBaseUrl${environment ? ` in cdk.json for ${environment}` : ''} (pass --service-url URL)\n`,
        );
      } else {
        await verify(serviceUrl, clientId, clientSecret, config?.scopes ?? DEFAULT_PIPELINE_SCOPES);
        verified = serviceUrl;
      }
    }
    const versionId = await putSecret(secretId, JSON.stringify({ clientId, clientSecret }));
    return { ...(environment !== undefined && { environment }), secretId, versionId, verified };
  },
};

/** The environment's settings from `cdk.json` in the working directory, when there is one. */
function stackConfig(ctx: CommandContext, environment: string): EnvironmentConfig | undefined {
  const file = join(ctx.io.cwd, 'cdk.json');
  if (!existsSync(file)) return undefined;
  const context = (JSON.parse(readFileSync(file, 'utf8')) as { context?: Record<string, unknown> }).context;
  const environments = context?.environments as Record<string, unknown> | undefined;
  if (!environments || !(environment in environments)) return undefined;
  return loadEnvironments(environments, environment)[0];
}

async function ask(ctx: CommandContext, question: string, hidden: boolean): Promise<string> {
  if (!ctx.io.ask) throw new UsageError('cannot ask for the credentials here (no input)', COMMAND);
  const answer = (await ctx.io.ask(question, { hidden }))?.trim();
  const what = question.replace(/: $/, '');
  if (answer === undefined) throw new UsageError(`no ${what} given (the input ended)`, COMMAND);
  if (!answer) throw new UsageError(`the ${what} must not be empty`, COMMAND);
  return answer;
}

async function verify(baseUrl: string, clientId: string, clientSecret: string, scopes: readonly string[]) {
  try {
    await fetchAccessToken({ baseUrl, clientId, clientSecret, scopes, retry: { maxAttempts: 2 } });
  } catch (error) {
    if (error instanceof UnauthorizedError) {
      throw new Error(
        `the service at ${baseUrl} refused these credentials (${statusWithCode(error)}); nothing was written. Check them, or pass --skip-verify`,
      );
    }
    throw new Error(
      `could not check the credentials at ${baseUrl} (${error instanceof Error ? error.message : 'error'}); nothing was written. Pass --skip-verify to write anyway`,
    );
  }
}

/** What went wrong with an AWS call, in words a user can act on; the SDK's own message scrubbed and bounded. */
export function awsFailure(error: unknown): string {
  const name = error instanceof Error ? error.name : 'error';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(message)) {
    return 'no AWS credentials: sign in (aws sso login --profile P) and set AWS_PROFILE';
  }
  if (/Region is missing/i.test(message)) return 'no AWS region: set AWS_REGION (or a region in the profile)';
  if (name === 'AccessDeniedException' || name === 'AccessDenied' || /not authorized/i.test(message)) {
    return 'access denied: these AWS credentials may not call secretsmanager:PutSecretValue on this secret';
  }
  if (/ExpiredToken|token.*expired/i.test(`${name} ${message}`)) {
    return 'the AWS session has expired: sign in again (aws sso login --profile P)';
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `cannot reach AWS (${code})`;
  const detail = printableText(message, 200);
  return `${name}${detail && detail !== name ? `: ${detail}` : ''}`;
}

async function putSecret(secretId: string, value: string): Promise<string | undefined> {
  const client = createSecretsClient();
  try {
    const answer = await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
    return answer.VersionId;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) {
      throw new Error(
        `secret ${secretId} does not exist in this account and region: deploy the stack first or check AWS_PROFILE and AWS_REGION`,
      );
    }
    throw new Error(`writing ${secretId} failed: ${awsFailure(error)}; nothing was written`);
  } finally {
    client.destroy();
  }
}
