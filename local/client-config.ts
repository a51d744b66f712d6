/**
 * SDK client settings for the local emulators, apart from `local-aws.ts` so that a module needing only
 * them (the local resources, the CLI) does not load the emulators themselves.
 */
import type { LocalAws, LocalAwsService, LocalClientConfig } from './local-aws';

/**
 * Explicit SDK client settings for one emulator. Handlers do not need this (they read the
 * `AWS_ENDPOINT_URL_*` variables of {@link LocalAws.env}); it is for tests and tools that build clients
 * next to other endpoints in the same process.
 */
export function clientConfig(aws: LocalAws, service: LocalAwsService): LocalClientConfig {
  return {
    region: aws.region,
    endpoint: aws.endpoints[service],
    credentials: { ...aws.credentials },
    ...(service === 's3' ? { forcePathStyle: true } : {}),
  };
}
