/**
 * Names of the pipeline's Secrets Manager secrets, `idv-pipeline/<environment>/<purpose>`: the stack
 * creates them with these names (infra/constructs/secrets.ts) and names the credentials secret in its
 * outputs (`CredentialsSecretName`), which `idv setup credentials` reads.
 */
export const SECRET_PURPOSES = {
  /** `{"clientId","clientSecret"}` of the service account, put by the operator. */
  credentials: 'client-credentials',
  /** The shared access-token cache. */
  tokenCache: 'access-token-cache',
  /** The secret path segment of the webhook URLs. */
  webhookPath: 'webhook-path-secret',
} as const;

/** `idv-pipeline/<environment>`: the prefix of every secret of one stack. */
export function secretNamePrefix(environment: string): string {
  return `idv-pipeline/${environment}`;
}
