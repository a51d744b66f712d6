/**
 * Names of the pipeline's Secrets Manager secrets, `idv-pipeline/<environment>/<purpose>`. The stack
 * creates them with these names (infra/constructs/secrets.ts) and `idv setup credentials` writes the
 * client credentials into the first, so the two cannot drift.
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

/** The full name of one secret of one stack, e.g. `idv-pipeline/staging/client-credentials`. */
export function secretName(environment: string, purpose: keyof typeof SECRET_PURPOSES): string {
  return `${secretNamePrefix(environment)}/${SECRET_PURPOSES[purpose]}`;
}
