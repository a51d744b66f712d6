/**
 * Stands in for `@aws-sdk/credential-provider-node` in the function bundles (see `LAMBDA_BUNDLING` in
 * `infra/constructs/pipeline-function.ts`). Lambda hands every function its role's credentials in
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, so of the default chain only
 * its first link ever answers there; the others (SSO, shared ini files, web identity, ECS and EC2
 * metadata, login) and the STS/SSO clients they carry are ~110 KB of every bundle that Lambda never
 * runs. Tests, the local run and the CLI are not bundled and keep the whole default chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The credential provider the SDK clients build by default: the environment's credentials. */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
