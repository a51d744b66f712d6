import { ENVIRONMENTS, KNOWN_SCOPES, type ServiceEnvironment } from '../shared/api/enums';
import { baseUrlProblem } from '../shared/client/oauth';
import {
  CUSTOMER_REFERENCE_MODES,
  type CustomerReferenceMode,
  DEFAULT_PIPELINE_SCOPES,
  defaultCustomerReferenceMode,
} from '../shared/config';
import { isJsonObject } from '../shared/json-object';
import { METRICS } from '../shared/metrics-names';
import { concurrencyForRate, paceOfContainer } from '../shared/pipeline/fetch-budget';

/** Log levels understood by the Powertools logger (`POWERTOOLS_LOG_LEVEL`). */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
/** A Powertools log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * X-Ray tracing of a function (docs/deploy.md, "Tracing and its cost"): `active` — Lambda records a
 * trace for 1 request a second and 5 % of the rest (a rate Lambda does not let anyone configure);
 * `pass-through` — a trace only when the caller's trace header says it is sampled; `off` — none, and
 * the tracer is disabled in the function too.
 */
export const TRACING_MODES = ['active', 'pass-through', 'off'] as const;
/** A tracing mode. */
export type TracingMode = (typeof TRACING_MODES)[number];
/** The functions whose tracing is set one by one: their folders under `functions/`. */
export const TRACED_FUNCTIONS = ['webhook', 'poll', 'fetch-result', 'projector', 'retention-check'] as const;
/** One of {@link TRACED_FUNCTIONS}. */
export type TracedFunction = (typeof TRACED_FUNCTIONS)[number];

/** How tracing is set: one mode for every function, or modes by function with a `default`. */
export type TracingSetting = TracingMode | Partial<Record<TracedFunction | 'default', TracingMode>>;

/**
 * The settings the pipeline's constructs read, validated and with defaults applied: what `IdvPipeline`
 * makes of its props (infra/idv-pipeline-props.ts).
 */
export interface PipelineSettings {
  /** Environment name (`staging`, `production`, ...): part of the stack name and of every resource name. */
  readonly name: string;
  /**
   * Which service environment the stack talks to (`IDV_ENVIRONMENT`, the `environment` metric
   * dimension). @default the environment name when it is `staging` or `production`
   */
  readonly serviceEnvironment: ServiceEnvironment;
  /** Base URL of the verification service environment this stack talks to (https). */
  readonly serviceBaseUrl: string;
  /**
   * True when `serviceBaseUrl` is on a reserved example or test domain (`.example`, `example.com`,
   * `.invalid`, `.test`, `localhost`): a placeholder still waiting for the URL the service gave you.
   */
  readonly serviceBaseUrlIsPlaceholder: boolean;
  /** EventBridge schedule expression of the poll safety net. @default 'rate(1 minute)' */
  readonly pollSchedule: string;
  /** Days a stored result is kept (DynamoDB TTL, S3 lifecycle). Required for production. */
  readonly retentionDays: number;
  /** Days CloudWatch keeps function and access logs. @default 30 */
  readonly logRetentionDays: number;
  /** E-mail address subscribed to the alarm topic. Production needs it or an alarm topic. */
  readonly alarmEmail?: string;
  /** OAuth scopes requested for the shared access token. @default poll.read + result.read */
  readonly scopes: readonly string[];
  // --- Service rate and concurrency (docs/deploy.md, "Service rate and concurrency") ---
  /**
   * Requests per second the service allows this account. The spec states no rate: ask the service, and
   * set what it says. fetch-result's concurrency and each container's pace follow from it.
   * @default 10
   */
  readonly serviceRateLimit: number;
  /**
   * Maximum concurrent fetch-result invocations (SQS event source `maxConcurrency`, 2–1000).
   * @default `concurrencyForRate(serviceRateLimit)`: max(2, ceil(rate × 1 s per result ÷ 2 records at once)), 5 at the default rate
   */
  readonly fetchConcurrency: number;
  /**
   * Reserved concurrency of fetch-result (`reservedConcurrentExecutions`), at least `fetchConcurrency` so
   * the event source is never throttled below its maximum; `false` reserves none (an account whose
   * concurrency quota leaves no room to reserve, e.g. a new account's 10).
   * @default fetchConcurrency
   */
  readonly fetchReservedConcurrency: number | false;
  /**
   * Requests per second each fetch-result container sends (`IDV_SERVICE_REQUESTS_PER_SECOND`): the
   * rate shared among the concurrent executions, `serviceRateLimit ÷ fetchConcurrency` rounded down to
   * 0.01. Derived, not set.
   */
  readonly servicePacePerContainer: number;
  /**
   * Memory of the fetch-result function in MB (128–10240). fetch-result streams each result, so its
   * memory does not grow with the result; Lambda bills GB-seconds. @default 256
   */
  readonly fetchResultMemoryMb: number;
  /** Powertools log level of every function. @default 'INFO' */
  readonly logLevel: LogLevel;
  /** Alarm when the oldest pending result waits longer than this. @default 30 */
  readonly pendingAlarmMinutes: number;
  /** Stage-wide webhook throttling: steady requests per second. @default 20 */
  readonly webhookRateLimit: number;
  /** Stage-wide webhook throttling: burst. @default 40 */
  readonly webhookBurstLimit: number;
  /**
   * A WAF web ACL on the webhook stage, so that callers without the secret cannot use up the stage
   * throttle: per source IP at most `wafRateLimitPer5Min` requests in any 5 minutes, and nothing outside
   * the two webhook routes (docs/deploy.md, "Webhook protection"). `false` leaves the stage without WAF.
   * @default { wafRateLimitPer5Min: 600 } in production, false elsewhere
   */
  readonly webhookProtection: WebhookProtection | false;
  /**
   * Whether the result events carry `customerReference` (`IDV_EVENT_CUSTOMER_REFERENCE`): `omit` for a
   * company that puts personal data in its references. @default 'omit' when `serviceEnvironment` is
   * production, else 'include'
   */
  readonly eventCustomerReference: CustomerReferenceMode;
  /**
   * The `service` dimension of the functions' custom metrics (`POWERTOOLS_SERVICE_NAME`), which the
   * alarms and the dashboard watch. @default 'idv-pipeline' (`METRICS.serviceName`)
   */
  readonly metricsServiceName: string;
  /**
   * X-Ray tracing per function: `"tracing": "active"` for all of them, or
   * `{ "default": "active", "fetch-result": "off" }`. @default 'active' for every function
   */
  readonly tracing: Readonly<Record<TracedFunction, TracingMode>>;
}

/** One environment of cdk.json's `environments`: the pipeline's settings and what only the app reads. */
export interface EnvironmentConfig extends PipelineSettings {
  /** Optional AWS account to pin the stack to; left environment-agnostic when unset (offline synth). */
  readonly account?: string;
  /** Optional AWS region to pin the stack to. */
  readonly region?: string;
  /** An existing SNS topic (on-call) every alarm also notifies. Production needs it or `alarmEmail`. */
  readonly alarmTopicArn?: string;
  /**
   * What the stack's key, table, buckets, secrets and logs do when the stack goes (`RemovalPolicy`):
   * `retain`, `snapshot` (kept as `retain`: CloudFormation snapshots none of these),
   * `retain-on-update-or-delete` or `destroy`. @default 'retain'
   */
  readonly removalPolicy: RemovalPolicySetting;
}

/**
 * The removal policies cdk.json may name (infra/pipeline-stack.ts maps them to `RemovalPolicy`; this
 * module stays free of aws-cdk-lib, since the CLI reads cdk.json with it).
 */
export const REMOVAL_POLICY_SETTINGS = [
  'retain',
  'snapshot',
  'retain-on-update-or-delete',
  'destroy',
] as const;
/** A removal policy of cdk.json. */
export type RemovalPolicySetting = (typeof REMOVAL_POLICY_SETTINGS)[number];

/** Settings of the webhook stage's WAF web ACL. */
export interface WebhookProtection {
  /** Requests one source IP may make in any 5 minutes before WAF blocks it (WAF accepts 10 or more). */
  readonly wafRateLimitPer5Min: number;
}

/** Environments whose webhook stage gets the WAF web ACL unless they say `false`. */
const WEBHOOK_PROTECTION_BY_DEFAULT = new Set(['production']);
/** Per-IP limit of the default web ACL: 2 requests/s sustained, a tenth of the stage throttle. */
export const DEFAULT_WAF_RATE_LIMIT_PER_5_MIN = 600;
/** WAF's bounds for a rate-based rule's limit. */
export const WAF_RATE_LIMIT_MIN = 10;
export const WAF_RATE_LIMIT_MAX = 2_000_000_000;

/** Thrown when the `environments` context in `cdk.json` is missing or invalid; names the setting. */
export class EnvironmentConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EnvironmentConfigError';
  }
}

/** Environment names whose data must never get a silent default retention. */
const RETENTION_REQUIRED = new Set(['production']);
const DEFAULT_RETENTION_DAYS = 30;
/** Environments whose alarms must reach someone (an e-mail subscription or an SNS topic). */
const ALARM_TARGET_REQUIRED = new Set(['production']);
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;
/** Retention values CloudWatch Logs accepts (a log group rejects anything else at deploy time). */
export const LOG_RETENTION_VALUES = new Set([
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
]);
/** What an environment name may hold: it becomes part of stack and resource names. */
export const ENV_NAME = /^[a-z][a-z0-9-]{0,19}$/;

type Raw = Record<string, unknown>;

function integer(raw: Raw, env: string, key: string, min: number, fallback?: number): number {
  const value = raw[key] ?? fallback;
  if (value === undefined) throw new EnvironmentConfigError(`${env}: ${key} must be set`);
  // `-c` overrides arrive as strings; accept "90" as well as 90.
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isInteger(parsed) || parsed < min) {
    throw new EnvironmentConfigError(`${env}: ${key} must be an integer >= ${min}`);
  }
  return parsed;
}

function optionalString(raw: Raw, env: string, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new EnvironmentConfigError(`${env}: ${key} must be a string`);
  return value;
}

function webhookProtection(raw: Raw, env: string): WebhookProtection | false {
  const value = raw['webhookProtection'];
  if (value === undefined) {
    return WEBHOOK_PROTECTION_BY_DEFAULT.has(env)
      ? { wafRateLimitPer5Min: DEFAULT_WAF_RATE_LIMIT_PER_5_MIN }
      : false;
  }
  // `-c` overrides arrive as strings.
  if (value === false || value === 'false') return false;
  const problem = new EnvironmentConfigError(
    `${env}: webhookProtection must be false or { "wafRateLimitPer5Min": <integer ${WAF_RATE_LIMIT_MIN}..${WAF_RATE_LIMIT_MAX}> }`,
  );
  if (!isJsonObject(value)) throw problem;
  const limit = value['wafRateLimitPer5Min'];
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < WAF_RATE_LIMIT_MIN ||
    limit > WAF_RATE_LIMIT_MAX
  ) {
    throw problem;
  }
  return { wafRateLimitPer5Min: limit };
}

function tracing(raw: Raw, env: string): Record<TracedFunction, TracingMode> {
  const modes = tracingModes(raw['tracing'] ?? 'active');
  if (modes === undefined) {
    throw new EnvironmentConfigError(`${env}: tracing ${TRACING_PROBLEM}`);
  }
  return modes;
}

/** What a `tracing` setting must be. */
export const TRACING_PROBLEM =
  `must be one of ${TRACING_MODES.join(', ')}, or an object of those by function ` +
  `("default", ${TRACED_FUNCTIONS.map((f) => `"${f}"`).join(', ')})`;

/** The mode of every function for a `tracing` setting, or `undefined` when the setting is not one. */
export function tracingModes(value: unknown): Record<TracedFunction, TracingMode> | undefined {
  const isMode = (v: unknown): v is TracingMode =>
    typeof v === 'string' && (TRACING_MODES as readonly string[]).includes(v);
  if (!isJsonObject(value)) {
    if (!isMode(value)) return undefined;
    return Object.fromEntries(TRACED_FUNCTIONS.map((f) => [f, value])) as Record<TracedFunction, TracingMode>;
  }
  for (const key of Object.keys(value)) {
    if (key !== 'default' && !(TRACED_FUNCTIONS as readonly string[]).includes(key)) return undefined;
  }
  const fallback = value['default'] ?? 'active';
  if (!isMode(fallback)) return undefined;
  const modes: Partial<Record<TracedFunction, TracingMode>> = {};
  for (const f of TRACED_FUNCTIONS) {
    const mode = value[f] ?? fallback;
    if (!isMode(mode)) return undefined;
    modes[f] = mode;
  }
  return modes as Record<TracedFunction, TracingMode>;
}

/** Options of {@link parseEnvironmentConfig}. */
export interface ParseOptions {
  /** An alarm topic object is given besides these settings (IdvPipeline's `alarmTopic`): a target. */
  readonly alarmTopicGiven?: boolean;
}

/**
 * Validates one environment's raw settings (from `cdk.json` context `environments.<name>`) and applies
 * the defaults. Errors name the environment and the setting, never echo values that could be secret.
 */
export function parseEnvironmentConfig(
  name: string,
  raw: unknown,
  options: ParseOptions = {},
): EnvironmentConfig {
  if (!ENV_NAME.test(name)) {
    throw new EnvironmentConfigError(
      `environment name "${name}" must be lower-case letters, digits and dashes`,
    );
  }
  if (!isJsonObject(raw)) throw new EnvironmentConfigError(`${name}: settings must be an object`);

  const serviceBaseUrl = optionalString(raw, name, 'serviceBaseUrl');
  if (serviceBaseUrl === undefined) throw new EnvironmentConfigError(`${name}: serviceBaseUrl must be set`);
  let url: URL;
  try {
    url = new URL(serviceBaseUrl);
  } catch (cause) {
    throw new EnvironmentConfigError(`${name}: serviceBaseUrl must be an absolute URL`, { cause });
  }
  if (url.protocol !== 'https:') throw new EnvironmentConfigError(`${name}: serviceBaseUrl must use https`);
  // The client's rule too: user info would put credentials into the functions' environment, and the
  // functions would refuse the URL only at start-up.
  const problem = baseUrlProblem(serviceBaseUrl);
  if (problem) throw new EnvironmentConfigError(`${name}: serviceBaseUrl ${problem}`);

  if (raw['retentionDays'] === undefined && RETENTION_REQUIRED.has(name)) {
    throw new EnvironmentConfigError(
      `${name}: retentionDays must be set explicitly (days results are kept); ` +
        `add "retentionDays" to context.environments.${name} in cdk.json`,
    );
  }
  const retentionDays = integer(raw, name, 'retentionDays', 1, DEFAULT_RETENTION_DAYS);

  const logRetentionDays = integer(raw, name, 'logRetentionDays', 1, 30);
  if (!LOG_RETENTION_VALUES.has(logRetentionDays)) {
    throw new EnvironmentConfigError(
      `${name}: logRetentionDays must be one of ${[...LOG_RETENTION_VALUES].join(', ')}`,
    );
  }

  const pollSchedule = optionalString(raw, name, 'pollSchedule') ?? 'rate(1 minute)';
  if (!/^(rate|cron)\(.+\)$/.test(pollSchedule)) {
    throw new EnvironmentConfigError(
      `${name}: pollSchedule must be an EventBridge rate(...) or cron(...) expression`,
    );
  }
  // The poll is the safety net that finds every result, and the PollNotRunning alarm expects a run at
  // least every 15 minutes: a slower rate would leave results waiting and keep that alarm firing.
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(pollSchedule);
  if (rate && (!rate[2]!.startsWith('minute') || Number(rate[1]) > 10 || Number(rate[1]) < 1)) {
    throw new EnvironmentConfigError(
      `${name}: pollSchedule must run at least every 10 minutes (the spec recommends rate(1 minute))`,
    );
  }

  const scopesRaw = raw['scopes'] ?? DEFAULT_PIPELINE_SCOPES;
  if (!Array.isArray(scopesRaw) || scopesRaw.length === 0) {
    throw new EnvironmentConfigError(`${name}: scopes must be a non-empty list`);
  }
  const known: readonly string[] = KNOWN_SCOPES;
  for (const scope of scopesRaw) {
    if (typeof scope !== 'string' || !known.includes(scope)) {
      throw new EnvironmentConfigError(`${name}: scopes may only contain ${KNOWN_SCOPES.join(', ')}`);
    }
  }

  const logLevel = (optionalString(raw, name, 'logLevel') ?? 'INFO').toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new EnvironmentConfigError(`${name}: logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const alarmEmail = optionalString(raw, name, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new EnvironmentConfigError(`${name}: alarmEmail must be an e-mail address`);
  }

  const alarmTopicArn = optionalString(raw, name, 'alarmTopicArn');
  if (alarmTopicArn !== undefined && !SNS_TOPIC_ARN.test(alarmTopicArn)) {
    throw new EnvironmentConfigError(
      `${name}: alarmTopicArn must be an SNS topic ARN (arn:aws:sns:region:account:name)`,
    );
  }
  // Alarms nobody receives protect nothing: a lost result would only show in a dashboard.
  if (
    ALARM_TARGET_REQUIRED.has(name) &&
    alarmEmail === undefined &&
    alarmTopicArn === undefined &&
    options.alarmTopicGiven !== true
  ) {
    throw new EnvironmentConfigError(
      `${name}: an alarm target must be set: "alarmEmail" (an address subscribed to the alarm topic) or ` +
        `"alarmTopicArn" (an SNS topic every alarm notifies) in context.environments.${name} in cdk.json`,
    );
  }

  const removalPolicy = optionalString(raw, name, 'removalPolicy') ?? 'retain';
  if (!(REMOVAL_POLICY_SETTINGS as readonly string[]).includes(removalPolicy)) {
    throw new EnvironmentConfigError(
      `${name}: removalPolicy must be one of ${REMOVAL_POLICY_SETTINGS.map((p) => `"${p}"`).join(', ')}`,
    );
  }

  const serviceEnvironment = optionalString(raw, name, 'serviceEnvironment') ?? name;
  if (!(ENVIRONMENTS as readonly string[]).includes(serviceEnvironment)) {
    throw new EnvironmentConfigError(`${name}: serviceEnvironment must be one of ${ENVIRONMENTS.join(', ')}`);
  }

  const concurrency = serviceConcurrency(raw, name);

  // Lambda's range; below 256 MB the SDK, the parser and a part buffer leave too little room.
  const fetchResultMemoryMb = integer(raw, name, 'fetchResultMemoryMb', 128, 256);
  if (fetchResultMemoryMb > 10_240)
    throw new EnvironmentConfigError(`${name}: fetchResultMemoryMb must be at most 10240`);

  const eventCustomerReference =
    optionalString(raw, name, 'eventCustomerReference') ??
    defaultCustomerReferenceMode(serviceEnvironment as ServiceEnvironment);
  if (!(CUSTOMER_REFERENCE_MODES as readonly string[]).includes(eventCustomerReference)) {
    throw new EnvironmentConfigError(
      `${name}: eventCustomerReference must be one of ${CUSTOMER_REFERENCE_MODES.join(', ')}`,
    );
  }

  const account = optionalString(raw, name, 'account');
  const region = optionalString(raw, name, 'region');
  return {
    name,
    ...(account !== undefined && { account }),
    ...(region !== undefined && { region }),
    serviceEnvironment: serviceEnvironment as ServiceEnvironment,
    serviceBaseUrl,
    serviceBaseUrlIsPlaceholder: isPlaceholderHost(url.hostname),
    pollSchedule,
    retentionDays,
    logRetentionDays,
    ...(alarmEmail !== undefined && { alarmEmail }),
    ...(alarmTopicArn !== undefined && { alarmTopicArn }),
    scopes: scopesRaw as string[],
    ...concurrency,
    fetchResultMemoryMb,
    logLevel: logLevel as LogLevel,
    pendingAlarmMinutes: integer(raw, name, 'pendingAlarmMinutes', 1, 30),
    webhookRateLimit: integer(raw, name, 'webhookRateLimit', 1, 20),
    webhookBurstLimit: integer(raw, name, 'webhookBurstLimit', 1, 40),
    webhookProtection: webhookProtection(raw, name),
    removalPolicy: removalPolicy as RemovalPolicySetting,
    eventCustomerReference: eventCustomerReference as CustomerReferenceMode,
    metricsServiceName: METRICS.serviceName,
    tracing: tracing(raw, name),
  };
}

/** The service's rate when cdk.json names none: a cautious guess, since the spec states no rate. */
export const DEFAULT_SERVICE_RATE_LIMIT = 10;

/**
 * The service rate and what follows from it (docs/deploy.md, "Service rate and concurrency"): the event
 * source's maximum concurrency, the reserved concurrency and each container's pace.
 */
function serviceConcurrency(
  raw: Raw,
  name: string,
): Pick<
  EnvironmentConfig,
  'serviceRateLimit' | 'fetchConcurrency' | 'fetchReservedConcurrency' | 'servicePacePerContainer'
> {
  const serviceRateLimit = integer(raw, name, 'serviceRateLimit', 1, DEFAULT_SERVICE_RATE_LIMIT);
  if (serviceRateLimit > 10_000)
    throw new EnvironmentConfigError(`${name}: serviceRateLimit must be at most 10000`);
  // SQS event sources accept 2..1000; the value itself is what protects the service from a backlog.
  const fetchConcurrency = integer(raw, name, 'fetchConcurrency', 2, concurrencyForRate(serviceRateLimit));
  if (fetchConcurrency > 1000)
    throw new EnvironmentConfigError(`${name}: fetchConcurrency must be at most 1000`);
  const reserved = raw['fetchReservedConcurrency'];
  let fetchReservedConcurrency: number | false = fetchConcurrency;
  if (reserved === false || reserved === 'false') fetchReservedConcurrency = false;
  else if (reserved !== undefined) {
    fetchReservedConcurrency = integer(raw, name, 'fetchReservedConcurrency', 1);
    if (fetchReservedConcurrency < fetchConcurrency) {
      throw new EnvironmentConfigError(
        `${name}: fetchReservedConcurrency must be at least fetchConcurrency (${fetchConcurrency}), or false: below it the event source is throttled`,
      );
    }
  }
  return {
    serviceRateLimit,
    fetchConcurrency,
    fetchReservedConcurrency,
    servicePacePerContainer: paceOfContainer(serviceRateLimit, fetchConcurrency),
  };
}

/** Domains reserved for examples and tests (RFC 2606, RFC 6761): never a real service. */
const PLACEHOLDER_DOMAINS = [
  'example',
  'example.com',
  'example.net',
  'example.org',
  'invalid',
  'test',
  'localhost',
];

/** True for a host name on a domain reserved for examples and tests. */
export function isPlaceholderHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return PLACEHOLDER_DOMAINS.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/**
 * Reads the `environments` context (an object keyed by environment name) and returns the validated
 * settings of the selected environments: all of them when `selected` is undefined or `all`.
 */
export function loadEnvironments(environments: unknown, selected?: string): EnvironmentConfig[] {
  if (!isJsonObject(environments) || Object.keys(environments).length === 0) {
    throw new EnvironmentConfigError('cdk.json context "environments" must define at least one environment');
  }
  if (selected === undefined || selected === 'all') {
    return Object.entries(environments).map(([name, raw]) => parseEnvironmentConfig(name, raw));
  }
  if (!(selected in environments)) {
    throw new EnvironmentConfigError(
      `unknown environment "${selected}"; configured: ${Object.keys(environments).join(', ')}`,
    );
  }
  return [parseEnvironmentConfig(selected, environments[selected])];
}
