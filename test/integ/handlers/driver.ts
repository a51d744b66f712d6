/**
 * The integration test's driver (test/integ/): does what an operator and an upload process would do
 * against the deployed pipeline and the simulator behind its function URL. One call:
 *
 * 1. copies the simulator's client credentials into the pipeline's credentials secret (the operator's
 *    step after `cdk deploy`, docs/deploy.md);
 * 2. creates one secure link per `mock-test` outcome of {@link INTEG_TRANSACTIONS} through the typed
 *    client, each completed at once by the simulator (staging).
 *
 * The pipeline's poll finds them within a minute. Returns identifiers only, never a credential.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { MockTestValue } from '../../../shared/api/enums';
import { IdvClient } from '../../../shared/client';
import { credentialsOf } from '../../../simulator/lambda';

/** The transactions the test creates: customer reference and `mock-test` outcome. */
export const INTEG_TRANSACTIONS: readonly { customerReference: string; outcome: MockTestValue }[] = [
  { customerReference: 'integ-approved', outcome: 'APPROVED' },
  { customerReference: 'integ-disapproved', outcome: 'DISAPPROVED' },
];

/** Environment of the driver (set by test/integ/idv-pipeline-integ.ts). */
export const DRIVER_ENV = {
  simulatorUrl: 'INTEG_SIMULATOR_URL',
  simulatorCredentials: 'INTEG_SIMULATOR_CREDENTIALS_SECRET',
  pipelineCredentials: 'INTEG_PIPELINE_CREDENTIALS_SECRET',
} as const;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** Sets up the pipeline's credentials and creates the transactions; returns their ids. */
export async function handler(): Promise<{
  transactions: { customerReference: string; transactionId: string }[];
}> {
  const secrets = new SecretsManagerClient({});
  const stored = await secrets.send(
    new GetSecretValueCommand({ SecretId: required(DRIVER_ENV.simulatorCredentials) }),
  );
  const credentials = credentialsOf(stored.SecretString);
  await secrets.send(
    new PutSecretValueCommand({
      SecretId: required(DRIVER_ENV.pipelineCredentials),
      SecretString: JSON.stringify(credentials),
    }),
  );
  const client = new IdvClient({
    baseUrl: required(DRIVER_ENV.simulatorUrl),
    environment: 'staging',
    credentials,
    scopes: ['productapi.secureidlink.write'],
  });
  const transactions = [];
  for (const { customerReference, outcome } of INTEG_TRANSACTIONS) {
    const link = await client.createSecureLink(
      { product: 'IDV_STANDARD', customerReference, disableCommunication: true },
      { mockTest: outcome },
    );
    transactions.push({ customerReference, transactionId: link.transactionId });
  }
  return { transactions };
}
