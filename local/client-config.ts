/**
 * SDK client settings for the local emulators, apart from `local-aws.ts` so that a module needing only
 * them (the local resources, the CLI) does not load the emulators themselves.
 */

/** The services the local stack emulates, named like their `AWS_ENDPOINT_URL_*` suffix. */
export type LocalAwsService = 'dynamodb' | 's3' | 'sqs' | 'secretsManager' | 'eventBridge';

/** SDK client settings for one emulator, for code that builds its own clients (tests, the CLI). */
export interface LocalClientConfig {
  region: string;
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle?: boolean;
}

/** What {@link clientConfig} reads of a running set of emulators (`LocalAws` in local-aws.ts). */
export interface LocalEndpoints {
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly endpoints: Record<LocalAwsService, string>;
}

/**
 * Explicit SDK client settings for one emulator. Handlers do not need this (they read the
 * `AWS_ENDPOINT_URL_*` variables of `LocalAws.env`); it is for tests and tools that build clients next
 * to other endpoints in the same process.
 */
export function clientConfig(aws: LocalEndpoints, service: LocalAwsService): LocalClientConfig {
  return {
    region: aws.region,
    endpoint: aws.endpoints[service],
    credentials: { ...aws.credentials },
    ...(service === 's3' ? { forcePathStyle: true } : {}),
  };
}
