/**
 * Names of every environment variable the functions read. `infra/` imports these constants when it
 * sets them, so the stack and the code cannot drift. Values are read once, at module load, by the
 * loaders below (added with the pipeline), which throw a `ConfigError` naming the missing variable.
 */
export const ENV = {
  /** `staging` | `production`: which service environment this stack talks to. */
  environment: 'IDV_ENVIRONMENT',
  /** Base URL of the verification service, e.g. https://example.invalid (no trailing slash needed). */
  serviceBaseUrl: 'IDV_BASE_URL',
  /** Comma-separated OAuth scopes requested for the shared access token. */
  scopes: 'IDV_SCOPES',
  /** Secrets Manager id (ARN or name) of the client credentials secret: `{"clientId","clientSecret"}`. */
  credentialsSecretId: 'IDV_CREDENTIALS_SECRET_ID',
  /** Secrets Manager id of the shared access-token cache secret. */
  tokenCacheSecretId: 'IDV_TOKEN_CACHE_SECRET_ID',
  /** Secrets Manager id of the secret holding the webhook path segment. */
  webhookSecretId: 'IDV_WEBHOOK_SECRET_ID',
  /** URL of the SQS results queue. */
  resultsQueueUrl: 'IDV_RESULTS_QUEUE_URL',
  /** Name of the DynamoDB results table. */
  resultsTableName: 'IDV_RESULTS_TABLE',
  /** Name of the S3 data bucket (images, files, result.json). */
  dataBucketName: 'IDV_DATA_BUCKET',
  /** Name of the custom EventBridge bus. */
  eventBusName: 'IDV_EVENT_BUS',
  /** Days a stored result is kept (DynamoDB TTL `expiresAt`, S3 lifecycle). */
  retentionDays: 'IDV_RETENTION_DAYS',
  /** Optional: `true` makes the S3 client use path-style addressing (local S3 emulator). */
  s3ForcePathStyle: 'IDV_S3_FORCE_PATH_STYLE',
} as const;
export type EnvName = (typeof ENV)[keyof typeof ENV];
