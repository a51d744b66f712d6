/**
 * The one rule set of the pipeline's settings: every rule and default of `IdvPipelineProps`, whichever way
 * they arrive — typed props in a platform team's app ({@link pipelineSettingsOf}), or this repository's
 * cdk.json, which infra/config.ts decodes (shape and types only) into the same plain input
 * ({@link settingsOf}). Every problem is an {@link IdvPipelineValidationError} naming the prop, the same
 * for the same bad value either way. No value of aws-cdk-lib is imported here: the CLI reads cdk.json
 * with these rules and carries no CDK.
 */
import { ENVIRONMENTS, KNOWN_SCOPES, type ServiceEnvironment } from '../shared/api/enums';
import { baseUrlProblem } from '../shared/client/oauth';
import {
  CUSTOMER_REFERENCE_MODES,
  type CustomerReferenceMode,
  DEFAULT_PIPELINE_SCOPES,
  defaultCustomerReferenceMode,
} from '../shared/config';
import { isJsonObject } from '../shared/json-object';
import { concurrencyForRate, paceOfContainer } from '../shared/pipeline/fetch-budget';
import { DEFAULT_LATE_READS_PER_OBJECT, DEFAULT_STANDARD_DAYS } from '../shared/storage-plan';

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
/**
 * The functions whose tracing is set one by one: their folders under `functions/`. Each mode sets the
 * function's Lambda tracing (the invocation's segment); webhook, poll and fetch-result also create the
 * Powertools tracer for subsegments of their AWS and service calls, while projector (a Firehose transform
 * that calls nothing) and retention-check (three reads an hour) record the invocation alone.
 */
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
  /**
   * The result objects' storage plan (docs/storage.md): `false` keeps every object in S3 Standard.
   * @default 1 day in Standard first, 0.1 late reads per object
   */
  readonly storageClasses: false | StorageClassSettings;
}

/**
 * How result objects move to cheaper S3 classes that still read at once (docs/storage.md): the plan
 * from the retention, with these two figures.
 */
export interface StorageClassOptions {
  /** Days every object stays in S3 Standard first, for its first reads. @default 1 */
  readonly standardDays?: number;
  /** Full reads of each object expected after those days (a dispute, an audit). @default 0.1 */
  readonly lateReadsPerObject?: number;
}

/** `storageClasses` validated, defaults applied: what the data bucket's storage plan is computed from. */
export interface StorageClassSettings {
  readonly standardDays: number;
  readonly lateReadsPerObject: number;
}

/** Settings of the webhook stage's WAF web ACL. */
export interface WebhookProtection {
  /** Requests one source IP may make in any 5 minutes before WAF blocks it (WAF accepts 10 or more). */
  readonly wafRateLimitPer5Min: number;
}

/** Per-IP limit of the default web ACL: 2 requests/s sustained, a tenth of the stage throttle. */
export const DEFAULT_WAF_RATE_LIMIT_PER_5_MIN = 600;
/** WAF's bounds for a rate-based rule's limit. */
export const WAF_RATE_LIMIT_MIN = 10;
export const WAF_RATE_LIMIT_MAX = 2_000_000_000;

/** Retention values CloudWatch Logs accepts (a log group rejects anything else at deploy time). */
export const LOG_RETENTION_VALUES = new Set([
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
]);
/** What an environment name may hold: it becomes part of stack and resource names. */
export const ENV_NAME = /^[a-z][a-z0-9-]{0,19}$/;

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

/** The service's rate when cdk.json names none: a cautious guess, since the spec states no rate. */
export const DEFAULT_SERVICE_RATE_LIMIT = 10;

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
 * A prop of `IdvPipeline` that cannot be used, thrown at construction (in the style of aws-cdk-lib's
 * `ValidationError`): `code` is stable for programs, `prop` names the prop, the message says what it
 * must be and never echoes a value that could be a secret.
 */
export class IdvPipelineValidationError extends Error {
  /** `IdvPipeline.<prop>`: stable, for programs and tests. */
  readonly code: string;
  /** The prop at fault. */
  readonly prop: string;
  /** What the prop must be (the message without its prefix and place). */
  readonly problem: string;
  /** Where the value came from, when not from the props: a construct path, or a cdk.json setting. */
  readonly where?: string;

  constructor(prop: string, problem: string, options?: ErrorOptions & { readonly where?: string }) {
    super(`IdvPipeline: ${prop} ${problem}${options?.where ? ` (${options.where})` : ''}`, options);
    this.name = 'IdvPipelineValidationError';
    this.code = `IdvPipeline.${prop}`;
    this.prop = prop;
    this.problem = problem;
    if (options?.where) this.where = options.where;
  }

  /** The same error, placed (`at <construct path>`, or the cdk.json setting the value came from). */
  at(where: string): IdvPipelineValidationError {
    return new IdvPipelineValidationError(this.prop, this.problem, { cause: this.cause, where });
  }
}

/** Environments with production's rules: retention and an alarm target required, placeholders refused. */
const PRODUCTION = 'production';

function integerIn(prop: string, value: unknown, fallback: number, min: number, max?: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || (max !== undefined && v > max)) {
    const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new IdvPipelineValidationError(prop, `must be an integer ${range}`);
  }
  return v;
}

/**
 * The addresses of `settings` that are placeholders (a domain reserved for examples and tests: the
 * service URL, the alarm e-mail), each as `prop (value)`: in production they would send the pipeline's
 * requests or its alarms nowhere.
 */
export function placeholderProps(settings: PipelineSettings): string[] {
  const found: string[] = [];
  if (settings.serviceBaseUrlIsPlaceholder) found.push(`serviceBaseUrl (${settings.serviceBaseUrl})`);
  const mailDomain = settings.alarmEmail?.split('@')[1];
  if (mailDomain !== undefined && isPlaceholderHost(mailDomain)) {
    found.push(`alarmEmail (an address at ${mailDomain})`);
  }
  return found;
}

/**
 * The props' values as plain data: what both entries hand to {@link settingsOf}. Durations are given in
 * days and minutes (fractions kept, so that the rules can refuse them); `undefined` is "not set".
 */
export interface SettingsInput {
  readonly environmentName: unknown;
  readonly serviceBaseUrl: unknown;
  /** The URL is a token, known only at deploy time (the function URL of a simulator in the same app). */
  readonly serviceBaseUrlIsToken?: boolean;
  readonly serviceEnvironment?: unknown;
  readonly retentionDays?: number;
  readonly logRetentionDays?: unknown;
  readonly pollSchedule?: unknown;
  readonly scopes?: unknown;
  readonly logLevel?: unknown;
  readonly alarmEmail?: unknown;
  /** An alarm topic is given (the prop, or cdk.json's alarmTopicArn): a target besides the e-mail. */
  readonly alarmTopicGiven?: boolean;
  readonly serviceRateLimit?: unknown;
  readonly fetchConcurrency?: unknown;
  readonly fetchReservedConcurrency?: unknown;
  readonly fetchResultMemorySize?: unknown;
  readonly webhookProtection?: unknown;
  readonly webhookRateLimit?: unknown;
  readonly webhookBurstLimit?: unknown;
  readonly tracing?: unknown;
  readonly eventCustomerReference?: unknown;
  readonly pendingAlarmMinutes?: number;
  readonly storageClasses?: unknown;
}

/** Every rule and default of the settings, once. */
export function settingsOf(input: SettingsInput, metricsServiceName: string): PipelineSettings {
  const name = input.environmentName;
  if (typeof name !== 'string' || !ENV_NAME.test(name)) {
    throw new IdvPipelineValidationError(
      'environmentName',
      'must be 1-20 lower-case letters, digits and dashes, starting with a letter',
    );
  }
  const url = input.serviceBaseUrl;
  // A token is known only at deploy time: the functions check it on first use (shared/client/oauth.ts),
  // as they check any base URL.
  const deployTimeUrl = input.serviceBaseUrlIsToken === true && typeof url === 'string';
  if (!deployTimeUrl) {
    if (typeof url !== 'string' || !URL.canParse(url)) {
      throw new IdvPipelineValidationError('serviceBaseUrl', 'must be an absolute URL');
    }
    if (new URL(url).protocol !== 'https:') {
      throw new IdvPipelineValidationError('serviceBaseUrl', 'must use https');
    }
    // User info would put credentials into the functions' environment; the functions would refuse the
    // URL only at start-up.
    const urlProblem = baseUrlProblem(url);
    if (urlProblem) throw new IdvPipelineValidationError('serviceBaseUrl', urlProblem);
  }

  // No silent default: how long identity data is kept is the deployer's decision, in every environment.
  const retentionDays = input.retentionDays;
  if (retentionDays === undefined) {
    throw new IdvPipelineValidationError('retention', 'must be set (how long results are kept, whole days)');
  }
  if (!Number.isInteger(retentionDays) || retentionDays < 1) {
    throw new IdvPipelineValidationError('retention', 'must be a whole number of days, at least 1');
  }
  const logRetentionDays = input.logRetentionDays ?? 30;
  if (typeof logRetentionDays !== 'number' || !LOG_RETENTION_VALUES.has(logRetentionDays)) {
    throw new IdvPipelineValidationError(
      'logRetention',
      `must be a logs.RetentionDays value other than INFINITE (${[...LOG_RETENTION_VALUES].join(', ')} days)`,
    );
  }

  const pollSchedule = input.pollSchedule ?? 'rate(1 minute)';
  const rate =
    typeof pollSchedule === 'string'
      ? /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(pollSchedule)
      : null;
  // The poll is the safety net that finds every result; PollNotRunning expects a run every 15 minutes.
  if (
    typeof pollSchedule !== 'string' ||
    !/^(rate|cron)\(.+\)$/.test(pollSchedule) ||
    (rate && (!rate[2]!.startsWith('minute') || Number(rate[1]) > 10 || Number(rate[1]) < 1))
  ) {
    throw new IdvPipelineValidationError(
      'pollSchedule',
      'must be an EventBridge rate(...) or cron(...) expression running at least every 10 minutes',
    );
  }

  const scopes = input.scopes ?? DEFAULT_PIPELINE_SCOPES;
  const known: readonly string[] = KNOWN_SCOPES;
  if (
    !Array.isArray(scopes) ||
    scopes.length === 0 ||
    scopes.some((s) => typeof s !== 'string' || !known.includes(s))
  ) {
    throw new IdvPipelineValidationError('scopes', `must be a non-empty list of ${KNOWN_SCOPES.join(', ')}`);
  }

  // Any case (`debug`, `Debug`): the Powertools level names are upper-case.
  const logLevel =
    typeof input.logLevel === 'string' ? input.logLevel.toUpperCase() : (input.logLevel ?? 'INFO');
  if (typeof logLevel !== 'string' || !(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new IdvPipelineValidationError('logLevel', `must be one of ${LOG_LEVELS.join(', ')} (any case)`);
  }

  const alarmEmail = input.alarmEmail;
  if (
    alarmEmail !== undefined &&
    (typeof alarmEmail !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail))
  ) {
    throw new IdvPipelineValidationError('alarmEmail', 'must be an e-mail address');
  }
  // Alarms nobody receives protect nothing: a lost result would only show in a dashboard.
  if (name === PRODUCTION && alarmEmail === undefined && input.alarmTopicGiven !== true) {
    throw new IdvPipelineValidationError(
      'alarmEmail',
      'or alarmTopic must be set in production (alarms must reach someone)',
    );
  }

  const serviceEnvironment = input.serviceEnvironment ?? name;
  if (
    typeof serviceEnvironment !== 'string' ||
    !(ENVIRONMENTS as readonly string[]).includes(serviceEnvironment)
  ) {
    throw new IdvPipelineValidationError(
      'serviceEnvironment',
      `must be one of ${ENVIRONMENTS.join(', ')} (the default is environmentName)`,
    );
  }

  const serviceRateLimit = integerIn(
    'serviceRateLimit',
    input.serviceRateLimit,
    DEFAULT_SERVICE_RATE_LIMIT,
    1,
    10_000,
  );
  // SQS event sources accept 2..1000; the value itself is what protects the service from a backlog.
  const fetchConcurrency = integerIn(
    'fetchConcurrency',
    input.fetchConcurrency,
    concurrencyForRate(serviceRateLimit),
    2,
    1000,
  );
  const reserved = input.fetchReservedConcurrency ?? fetchConcurrency;
  if (reserved !== false && (!Number.isInteger(reserved) || (reserved as number) < fetchConcurrency)) {
    throw new IdvPipelineValidationError(
      'fetchReservedConcurrency',
      `must be false or an integer of at least fetchConcurrency (${fetchConcurrency}): below it the event source is throttled`,
    );
  }

  const protection = webhookProtectionOf(input.webhookProtection, name);
  const tracing = tracingModes(input.tracing ?? 'active');
  if (tracing === undefined) throw new IdvPipelineValidationError('tracing', TRACING_PROBLEM);

  const eventCustomerReference =
    input.eventCustomerReference ?? defaultCustomerReferenceMode(serviceEnvironment as ServiceEnvironment);
  if (
    typeof eventCustomerReference !== 'string' ||
    !(CUSTOMER_REFERENCE_MODES as readonly string[]).includes(eventCustomerReference)
  ) {
    throw new IdvPipelineValidationError(
      'eventCustomerReference',
      `must be one of ${CUSTOMER_REFERENCE_MODES.join(', ')}`,
    );
  }
  const pendingAlarmMinutes = input.pendingAlarmMinutes ?? 30;
  if (!Number.isInteger(pendingAlarmMinutes) || pendingAlarmMinutes < 1) {
    throw new IdvPipelineValidationError('pendingAlarmThreshold', 'must be whole minutes, at least 1');
  }

  return {
    name,
    serviceEnvironment: serviceEnvironment as ServiceEnvironment,
    serviceBaseUrl: url as string,
    serviceBaseUrlIsPlaceholder: !deployTimeUrl && isPlaceholderHost(new URL(url as string).hostname),
    pollSchedule,
    retentionDays,
    logRetentionDays,
    ...(alarmEmail !== undefined && { alarmEmail }),
    scopes: [...(scopes as string[])],
    serviceRateLimit,
    fetchConcurrency,
    fetchReservedConcurrency: reserved as number | false,
    servicePacePerContainer: paceOfContainer(serviceRateLimit, fetchConcurrency),
    // Lambda's range; below 256 MB the SDK, the parser and a part buffer leave too little room.
    fetchResultMemoryMb: integerIn('fetchResultMemorySize', input.fetchResultMemorySize, 256, 128, 10_240),
    logLevel: logLevel as LogLevel,
    pendingAlarmMinutes,
    webhookRateLimit: integerIn('webhookRateLimit', input.webhookRateLimit, 20, 1),
    webhookBurstLimit: integerIn('webhookBurstLimit', input.webhookBurstLimit, 40, 1),
    webhookProtection: protection,
    eventCustomerReference: eventCustomerReference as CustomerReferenceMode,
    metricsServiceName,
    tracing,
    storageClasses: storageClassesOf(input.storageClasses),
  };
}

/** `storageClasses`: `false`, or both figures in range. @default {} */
export function storageClassesOf(value: unknown = {}): false | StorageClassSettings {
  if (value === false) return false;
  if (!isJsonObject(value)) {
    throw new IdvPipelineValidationError('storageClasses', 'must be false or an object');
  }
  const unknownKey = Object.keys(value).find((key) => key !== 'standardDays' && key !== 'lateReadsPerObject');
  if (unknownKey !== undefined) {
    throw new IdvPipelineValidationError('storageClasses', 'takes only standardDays and lateReadsPerObject');
  }
  // S3 lifecycle `Days` are whole days; beyond a year in Standard no transition is worth planning.
  const standardDays = integerIn(
    'storageClasses.standardDays',
    value['standardDays'],
    DEFAULT_STANDARD_DAYS,
    0,
    365,
  );
  const lateReadsPerObject = value['lateReadsPerObject'] ?? DEFAULT_LATE_READS_PER_OBJECT;
  if (
    typeof lateReadsPerObject !== 'number' ||
    !Number.isFinite(lateReadsPerObject) ||
    lateReadsPerObject < 0 ||
    lateReadsPerObject > 1000
  ) {
    throw new IdvPipelineValidationError(
      'storageClasses.lateReadsPerObject',
      'must be a number from 0 to 1000',
    );
  }
  return { standardDays, lateReadsPerObject };
}

/** `webhookProtection`: false, or a WAF rate limit in WAF's range. @default WAF in production */
function webhookProtectionOf(value: unknown, name: string): WebhookProtection | false {
  const protection =
    value ?? (name === PRODUCTION ? { wafRateLimitPer5Min: DEFAULT_WAF_RATE_LIMIT_PER_5_MIN } : false);
  if (protection === false) return false;
  if (typeof protection !== 'object' || protection === null || Array.isArray(protection)) {
    throw new IdvPipelineValidationError(
      'webhookProtection',
      `must be false or { wafRateLimitPer5Min: <integer ${WAF_RATE_LIMIT_MIN}..${WAF_RATE_LIMIT_MAX}> }`,
    );
  }
  const limit = integerIn(
    'webhookProtection.wafRateLimitPer5Min',
    (protection as { wafRateLimitPer5Min?: unknown }).wafRateLimitPer5Min,
    0,
    WAF_RATE_LIMIT_MIN,
    WAF_RATE_LIMIT_MAX,
  );
  return { wafRateLimitPer5Min: limit };
}
