import { ENVIRONMENTS, type ServiceEnvironment } from './api/enums';
import { baseUrlProblem } from './client/oauth';
import { ConfigError } from './errors';
import { METRICS } from './metrics-names';

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
  /** Name of the DynamoDB table of the poll's enqueue markers (one message per result per window). */
  pollMarkersTableName: 'IDV_POLL_MARKERS_TABLE',
  /** Seconds a pending record is not enqueued again: the results queue's visibility timeout. */
  pollMarkerWindowSeconds: 'IDV_POLL_MARKER_WINDOW_SECONDS',
  /** Optional: `true` makes the S3 client use path-style addressing (local S3 emulator). */
  s3ForcePathStyle: 'IDV_S3_FORCE_PATH_STYLE',
  /**
   * Optional: `include` | `omit`, whether the result events carry `customerReference` (some companies
   * put personal data in it). Unset: {@link defaultCustomerReferenceMode} of `IDV_ENVIRONMENT`.
   */
  eventCustomerReference: 'IDV_EVENT_CUSTOMER_REFERENCE',
  /**
   * Optional: requests per second one fetch-result container sends to the service, its share of the
   * service's rate (docs/deploy.md, "Service rate and concurrency"). Unset: no steady pace; a 429's
   * `Retry-After` still holds every record of the container.
   */
  serviceRequestsPerSecond: 'IDV_SERVICE_REQUESTS_PER_SECOND',
} as const;
export type EnvName = (typeof ENV)[keyof typeof ENV];

/**
 * Variables of the analytics projector (docs/analytics.md), apart from `ENV`: the pipeline's functions
 * and the local run set every `ENV` name, the projector only these and `ENV.environment`.
 */
export const ANALYTICS_ENV = {
  /** Name of the S3 analytics bucket (the projection). */
  analyticsBucketName: 'IDV_ANALYTICS_BUCKET',
  /** Glue database of the Iceberg table the projection transform routes rows to. */
  analyticsDatabase: 'IDV_ANALYTICS_DATABASE',
  /** The Iceberg table (`result_rows`). */
  analyticsTable: 'IDV_ANALYTICS_TABLE',
} as const;

// ---------------------------------------------------------------------------------------------------
// Loaders: each function reads its variables once, at module load, and fails naming the variable.
// ---------------------------------------------------------------------------------------------------

/**
 * The `service` dimension of the functions' custom metrics: `POWERTOOLS_SERVICE_NAME` as the stack sets
 * it per pipeline, else `METRICS.serviceName` (the app, the local run, tests).
 */
export function metricsServiceName(env: Env = process.env): string {
  return env[METRICS.serviceNameVariable] || METRICS.serviceName;
}

/** Whether the result events carry `customerReference` (`IDV_EVENT_CUSTOMER_REFERENCE`). */
export const CUSTOMER_REFERENCE_MODES = ['include', 'omit'] as const;
export type CustomerReferenceMode = (typeof CUSTOMER_REFERENCE_MODES)[number];

/**
 * The mode of a service environment when none is configured: staging includes references (test data),
 * production omits them, so a company that puts names in its references publishes none by default.
 */
export function defaultCustomerReferenceMode(environment: ServiceEnvironment): CustomerReferenceMode {
  return environment === 'production' ? 'omit' : 'include';
}

/** Scopes the pipeline needs when `IDV_SCOPES` is not set: reading poll records and results. */
export const DEFAULT_PIPELINE_SCOPES = ['productapi.poll.read', 'productapi.result.read'] as const;

/** Settings of the AWS SDK clients that are not read by the SDK itself. */
export interface AwsClientConfig {
  /** S3 path-style addressing (local S3 emulator). */
  readonly s3ForcePathStyle: boolean;
}

/** Settings shared by the functions that call the verification service. */
export interface ServiceAccessConfig {
  readonly environment: ServiceEnvironment;
  readonly serviceBaseUrl: string;
  readonly scopes: readonly string[];
  readonly credentialsSecretId: string;
  readonly tokenCacheSecretId: string;
}

/** Configuration of `functions/webhook`. */
export interface WebhookConfig extends AwsClientConfig {
  readonly environment: ServiceEnvironment;
  readonly webhookSecretId: string;
  readonly resultsQueueUrl: string;
}

/** Configuration of `functions/poll`. */
export interface PollConfig extends AwsClientConfig, ServiceAccessConfig {
  readonly resultsQueueUrl: string;
  readonly pollMarkersTableName: string;
  readonly pollMarkerWindowSeconds: number;
}

/** Configuration of `functions/fetch-result`. */
export interface FetchResultConfig extends AwsClientConfig, ServiceAccessConfig {
  readonly resultsTableName: string;
  readonly dataBucketName: string;
  readonly eventBusName: string;
  readonly retentionDays: number;
  /** Whether the result events carry `customerReference`. */
  readonly eventCustomerReference: CustomerReferenceMode;
  /** This container's pace of service requests (`IDV_SERVICE_REQUESTS_PER_SECOND`); undefined: none. */
  readonly serviceRequestsPerSecond?: number;
}

type Env = Readonly<Record<string, string | undefined>>;

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(name, 'is not set');
  return value;
}

function environmentOf(env: Env): ServiceEnvironment {
  const value = required(env, ENV.environment);
  if (!(ENVIRONMENTS as readonly string[]).includes(value)) {
    throw new ConfigError(ENV.environment, `must be one of ${ENVIRONMENTS.join(', ')}`);
  }
  return value as ServiceEnvironment;
}

function baseUrlOf(env: Env): string {
  const value = required(env, ENV.serviceBaseUrl);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(ENV.serviceBaseUrl, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(ENV.serviceBaseUrl, 'must be an absolute http(s) URL');
  }
  // The client's own rule (no user info, query or fragment): refused here, naming the variable, rather
  // than by the client when the handler module builds it.
  const base = value.replace(/\/+$/, '');
  const problem = baseUrlProblem(base);
  if (problem) throw new ConfigError(ENV.serviceBaseUrl, problem);
  return base;
}

/**
 * The scopes of an `IDV_SCOPES` value: comma-separated, spaces around names and empty entries ignored.
 * One reading for the pipeline and the `idv` CLI (`--scopes`, `IDV_SCOPES`), so the two cannot drift.
 */
export function parseScopeList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function scopesOf(env: Env): readonly string[] {
  const raw = env[ENV.scopes]?.trim();
  if (!raw) return DEFAULT_PIPELINE_SCOPES;
  const scopes = parseScopeList(raw);
  if (scopes.length === 0) throw new ConfigError(ENV.scopes, 'must list at least one scope');
  return scopes;
}

function booleanOf(env: Env, name: string): boolean {
  const value = env[name]?.trim().toLowerCase();
  if (!value) return false;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConfigError(name, 'must be true or false');
}

function positiveIntegerOf(env: Env, name: string): number {
  const value = required(env, name);
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) {
    throw new ConfigError(name, 'must be a positive whole number');
  }
  return n;
}

function customerReferenceModeOf(env: Env, environment: ServiceEnvironment): CustomerReferenceMode {
  const value = env[ENV.eventCustomerReference]?.trim().toLowerCase();
  if (!value) return defaultCustomerReferenceMode(environment);
  if (!(CUSTOMER_REFERENCE_MODES as readonly string[]).includes(value)) {
    throw new ConfigError(
      ENV.eventCustomerReference,
      `must be one of ${CUSTOMER_REFERENCE_MODES.join(', ')}`,
    );
  }
  return value as CustomerReferenceMode;
}

function serviceAccessOf(env: Env): ServiceAccessConfig {
  return {
    environment: environmentOf(env),
    serviceBaseUrl: baseUrlOf(env),
    scopes: scopesOf(env),
    credentialsSecretId: required(env, ENV.credentialsSecretId),
    tokenCacheSecretId: required(env, ENV.tokenCacheSecretId),
  };
}

/** Reads the AWS client settings (endpoints themselves come from the SDK's `AWS_ENDPOINT_URL_*`). */
export function loadAwsClientConfig(env: Env = process.env): AwsClientConfig {
  return { s3ForcePathStyle: booleanOf(env, ENV.s3ForcePathStyle) };
}

/** Reads the webhook function's configuration; throws `ConfigError` naming the first bad variable. */
export function loadWebhookConfig(env: Env = process.env): WebhookConfig {
  return {
    ...loadAwsClientConfig(env),
    environment: environmentOf(env),
    webhookSecretId: required(env, ENV.webhookSecretId),
    resultsQueueUrl: required(env, ENV.resultsQueueUrl),
  };
}

/** Reads the poll function's configuration; throws `ConfigError` naming the first bad variable. */
export function loadPollConfig(env: Env = process.env): PollConfig {
  return {
    ...loadAwsClientConfig(env),
    ...serviceAccessOf(env),
    resultsQueueUrl: required(env, ENV.resultsQueueUrl),
    pollMarkersTableName: required(env, ENV.pollMarkersTableName),
    pollMarkerWindowSeconds: positiveIntegerOf(env, ENV.pollMarkerWindowSeconds),
  };
}

/** Reads the fetch-result function's configuration; throws `ConfigError` naming the first bad variable. */
export function loadFetchResultConfig(env: Env = process.env): FetchResultConfig {
  const access = serviceAccessOf(env);
  return {
    ...loadAwsClientConfig(env),
    ...access,
    resultsTableName: required(env, ENV.resultsTableName),
    dataBucketName: required(env, ENV.dataBucketName),
    eventBusName: required(env, ENV.eventBusName),
    retentionDays: positiveIntegerOf(env, ENV.retentionDays),
    eventCustomerReference: customerReferenceModeOf(env, access.environment),
    ...optionalRateOf(env, ENV.serviceRequestsPerSecond),
  };
}

/** An optional positive rate (decimals allowed, e.g. `2.5`) as `{ serviceRequestsPerSecond }`, or nothing. */
function optionalRateOf(env: Env, name: string): { serviceRequestsPerSecond?: number } {
  const value = env[name]?.trim();
  if (!value) return {};
  const n = Number(value);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value) || !(n > 0)) {
    throw new ConfigError(name, 'must be a positive number (requests per second)');
  }
  return { serviceRequestsPerSecond: n };
}

/** Configuration of `functions/projector/transform.ts` (the Firehose transformation). */
export interface ProjectionTransformConfig {
  readonly environment: ServiceEnvironment;
  readonly database: string;
  readonly table: string;
  /** Whether `customer_reference` is exported: the events' setting (`IDV_EVENT_CUSTOMER_REFERENCE`). */
  readonly customerReference: CustomerReferenceMode;
  /**
   * The results table, whose `<id>#erasure` records say which results were erased (their events make no
   * row). Unset: no look-up (a projection without the pipeline's table).
   */
  readonly resultsTableName?: string;
}

/** Reads the projection transform's configuration; throws `ConfigError` naming the first bad variable. */
export function loadProjectionTransformConfig(env: Env = process.env): ProjectionTransformConfig {
  const environment = environmentOf(env);
  return {
    environment,
    database: required(env, ANALYTICS_ENV.analyticsDatabase),
    table: required(env, ANALYTICS_ENV.analyticsTable),
    customerReference: customerReferenceModeOf(env, environment),
    ...(env[ENV.resultsTableName]?.trim() && { resultsTableName: env[ENV.resultsTableName]!.trim() }),
  };
}

/** Configuration of `functions/retention-check` (docs/pipeline.md, "Retention"). */
export interface RetentionCheckConfig extends AwsClientConfig {
  readonly environment: ServiceEnvironment;
  readonly resultsTableName: string;
  readonly dataBucketName: string;
  readonly retentionDays: number;
  /** The projection's bucket; unset: the projection is not checked (a stack without analytics). */
  readonly analyticsBucketName?: string;
}

/** Reads the retention check's configuration; throws `ConfigError` naming the first bad variable. */
export function loadRetentionCheckConfig(env: Env = process.env): RetentionCheckConfig {
  const analyticsBucketName = env[ANALYTICS_ENV.analyticsBucketName]?.trim();
  return {
    ...loadAwsClientConfig(env),
    environment: environmentOf(env),
    resultsTableName: required(env, ENV.resultsTableName),
    dataBucketName: required(env, ENV.dataBucketName),
    retentionDays: positiveIntegerOf(env, ENV.retentionDays),
    ...(analyticsBucketName && { analyticsBucketName }),
  };
}
