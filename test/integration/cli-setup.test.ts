import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsJsonServer } from '../../local/aws-json-server';
import { startFakeSecretsManager } from '../../local/fake-secrets-manager';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { runIdv } from '../support/cli';

// A secret with the characters that broke the hand-built JSON of the old runbook.
const CLIENT = { clientId: 'stack-client', clientSecret: 'se"cr\\et $HOME `x`' };
const SECRET_ID = 'idv-pipeline/staging/client-credentials';

let sim: RunningSimulator;
let secrets: AwsJsonServer;
let sm: SecretsManagerClient;
let env: Record<string, string>;
let cwd: string;

beforeAll(async () => {
  sim = await startSimulator({ ...CLIENT, seed: 3 });
  secrets = await startFakeSecretsManager({ region: 'eu-west-1', accountId: '000000000000' });
  const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
  sm = new SecretsManagerClient({ region: 'eu-west-1', endpoint: secrets.endpoint, credentials });
  await sm.send(new CreateSecretCommand({ Name: SECRET_ID, SecretString: '{}' }));
  env = {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
  };
  // A directory without cdk.json: the service URL comes from the flag, the secret from the outputs
  // `cdk deploy --outputs-file` wrote (a second stack names a secret that was never created).
  cwd = await mkdtemp(join(tmpdir(), 'idv-setup-'));
  const outputs = (secret: string) => ({
    WebhookBaseUrl: 'https://api.example/v1/webhooks/',
    ResultsTableName: 'table',
    CredentialsSecretName: secret,
  });
  await writeFile(
    join(cwd, 'outputs.json'),
    JSON.stringify({
      'IdvPipeline-staging': outputs(SECRET_ID),
      'IdvPipeline-prod': outputs('idv-pipeline/prod/client-credentials'),
    }),
  );
});

afterAll(async () => {
  sm.destroy();
  await secrets.close();
  await sim.close();
  await rm(cwd, { recursive: true, force: true });
});

const STAGING = ['--outputs-file', 'outputs.json', '--stack', 'IdvPipeline-staging'];

const stored = async () =>
  JSON.parse((await sm.send(new GetSecretValueCommand({ SecretId: SECRET_ID }))).SecretString ?? '');

describe('idv setup credentials', () => {
  it('checks the credentials with the service and writes them as JSON, printing no secret', async () => {
    // Act
    const run = await runIdv(['setup', 'credentials', ...STAGING, '--service-url', sim.url], {
      env,
      cwd,
      input: `${CLIENT.clientId}\n${CLIENT.clientSecret}\n`,
    });

    // Assess
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ secretId: SECRET_ID, verified: sim.url });
    expect(await stored()).toEqual(CLIENT);
    expect(run.stdout + run.stderr).not.toContain(CLIENT.clientSecret);
  });

  it('writes nothing when the service refuses the credentials', async () => {
    // Prepare
    const before = await stored();

    // Act
    const run = await runIdv(['setup', 'credentials', ...STAGING, '--service-url', sim.url], {
      env,
      cwd,
      input: 'stack-client\nwrong-secret\n',
    });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refused these credentials (401, code 16); nothing was written');
    expect(run.stderr).not.toContain('wrong-secret');
    expect(await stored()).toEqual(before);
  });

  it('says what is missing: an ended input, an unknown secret', async () => {
    // Act
    const ended = await runIdv(['setup', 'credentials', ...STAGING, '--skip-verify'], {
      env,
      cwd,
      input: 'only-an-id\n',
    });
    const unknown = await runIdv(
      [
        'setup',
        'credentials',
        '--outputs-file',
        'outputs.json',
        '--stack',
        'IdvPipeline-prod',
        '--skip-verify',
      ],
      {
        env,
        cwd,
        input: 'id\nsecret\n',
      },
    );

    // Assess
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain('no client secret given (the input ended)');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      'secret idv-pipeline/prod/client-credentials does not exist in this account and region',
    );
  });
});
