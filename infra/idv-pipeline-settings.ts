/**
 * `IdvPipelineProps` validated where they arrive, into the settings the constructs read. Every problem is
 * an {@link IdvPipelineValidationError} naming the prop (the typed props are the contract; cdk.json's
 * settings are turned into these props by the repository's app, never the other way round).
 */
import { RemovalPolicy, Token } from 'aws-cdk-lib';
import { ENVIRONMENTS, KNOWN_SCOPES, type ServiceEnvironment } from '../shared/api/enums';
import { baseUrlProblem } from '../shared/client/oauth';
import {
  CUSTOMER_REFERENCE_MODES,
  DEFAULT_PIPELINE_SCOPES,
  defaultCustomerReferenceMode,
} from '../shared/config';
import { concurrencyForRate, paceOfContainer } from '../shared/pipeline/fetch-budget';
import {
  DEFAULT_SERVICE_RATE_LIMIT,
  DEFAULT_WAF_RATE_LIMIT_PER_5_MIN,
  ENV_NAME,
  isPlaceholderHost,
  LOG_LEVELS,
  LOG_RETENTION_VALUES,
  type LogLevel,
  type PipelineSettings,
  TRACING_PROBLEM,
  tracingModes,
  WAF_RATE_LIMIT_MAX,
  WAF_RATE_LIMIT_MIN,
} from './config';
import type { IdvPipelineProps } from './idv-pipeline-props';

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

  constructor(prop: string, problem: string, options?: ErrorOptions) {
    super(`IdvPipeline: ${prop} ${problem}`, options);
    this.name = 'IdvPipelineValidationError';
    this.code = `IdvPipeline.${prop}`;
    this.prop = prop;
  }
}

/** Environments with production's rules: retention and an alarm target required, placeholders refused. */
const PRODUCTION = 'production';

/**
 * `removalPolicy` as the pipeline's stores can honour it. CloudFormation takes `DeletionPolicy: Snapshot`
 * only for types it can snapshot (RDS, Neptune, DocumentDB, ElastiCache, Redshift, EC2 volumes): none of
 * the pipeline's. A table, bucket or key given `Snapshot` fails the CDK CLI's synth
 * (`SnapshotRemovalNotSupported`), and what a team asking for SNAPSHOT wants is that nothing holding
 * results is deleted: `SNAPSHOT` becomes `RETAIN` for every store (the app is told so, see
 * {@link snapshotKeeps}). Never `DESTROY` unless asked. @default RETAIN
 */
export function dataRemovalPolicyOf(policy: RemovalPolicy = RemovalPolicy.RETAIN): RemovalPolicy {
  if (!Object.values(RemovalPolicy).includes(policy)) {
    throw new IdvPipelineValidationError(
      'removalPolicy',
      `must be a RemovalPolicy (${Object.keys(RemovalPolicy).join(', ')})`,
    );
  }
  return policy === RemovalPolicy.SNAPSHOT ? RemovalPolicy.RETAIN : policy;
}

/** What `removalPolicy: SNAPSHOT` keeps and how, for the info annotation (`idv:removal-policy-snapshot`). */
export function snapshotKeeps(recoveryDays: number): string {
  return (
    'removalPolicy SNAPSHOT: CloudFormation cannot snapshot a DynamoDB table, S3 bucket or KMS key, so ' +
    'they are retained (DeletionPolicy: Retain) instead of deleted when the stack goes: the results table ' +
    `with its items and point-in-time recovery (${recoveryDays} days back, deletion protection on), the ` +
    'data and analytics buckets with every object version, the KMS key that decrypts them, the secrets ' +
    'and the log groups. Delete them by hand once no longer needed; RemovalPolicy.DESTROY deletes them ' +
    'with the stack.'
  );
}

function integerIn(prop: string, value: number | undefined, fallback: number, min: number, max?: number) {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || (max !== undefined && v > max)) {
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
 * The validated settings of `props`, defaults applied.
 * @param metricsServiceName the `service` dimension, which depends on the construct's names
 */
export function pipelineSettingsOf(props: IdvPipelineProps, metricsServiceName: string): PipelineSettings {
  const name = props.environmentName;
  if (typeof name !== 'string' || !ENV_NAME.test(name)) {
    throw new IdvPipelineValidationError(
      'environmentName',
      'must be 1-20 lower-case letters, digits and dashes, starting with a letter',
    );
  }
  const url = props.serviceBaseUrl;
  // A token (the function URL of a simulator in the same app, test/integ/) is known only at deploy time:
  // the functions check it on first use (shared/client/oauth.ts), as they check any base URL.
  const deployTimeUrl = typeof url === 'string' && Token.isUnresolved(url);
  if (!deployTimeUrl) {
    if (typeof url !== 'string' || !URL.canParse(url)) {
      throw new IdvPipelineValidationError('serviceBaseUrl', 'must be an absolute URL');
    }
    if (new URL(url).protocol !== 'https:') {
      throw new IdvPipelineValidationError('serviceBaseUrl', 'must use https');
    }
    const urlProblem = baseUrlProblem(url);
    if (urlProblem) throw new IdvPipelineValidationError('serviceBaseUrl', urlProblem);
  }

  if (props.retention === undefined) {
    throw new IdvPipelineValidationError('retention', 'must be set (how long results are kept)');
  }
  const retentionDays = props.retention.toDays({ integral: false });
  if (!Number.isInteger(retentionDays) || retentionDays < 1) {
    throw new IdvPipelineValidationError('retention', 'must be a whole number of days, at least 1');
  }
  const logRetentionDays = props.logRetention ?? 30;
  if (!LOG_RETENTION_VALUES.has(logRetentionDays)) {
    throw new IdvPipelineValidationError(
      'logRetention',
      'must be a logs.RetentionDays value other than INFINITE',
    );
  }

  const pollSchedule = props.pollSchedule ?? 'rate(1 minute)';
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(pollSchedule);
  // The poll is the safety net that finds every result; PollNotRunning expects a run every 15 minutes.
  if (
    !/^(rate|cron)\(.+\)$/.test(pollSchedule) ||
    (rate && (!rate[2]!.startsWith('minute') || Number(rate[1]) > 10 || Number(rate[1]) < 1))
  ) {
    throw new IdvPipelineValidationError(
      'pollSchedule',
      'must be an EventBridge rate(...) or cron(...) expression running at least every 10 minutes',
    );
  }

  const scopes = props.scopes ?? DEFAULT_PIPELINE_SCOPES;
  const known: readonly string[] = KNOWN_SCOPES;
  if (!Array.isArray(scopes) || scopes.length === 0 || scopes.some((s) => !known.includes(s))) {
    throw new IdvPipelineValidationError('scopes', `must be a non-empty list of ${KNOWN_SCOPES.join(', ')}`);
  }

  const logLevel = props.logLevel ?? 'INFO';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new IdvPipelineValidationError('logLevel', `must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const alarmEmail = props.alarmEmail;
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new IdvPipelineValidationError('alarmEmail', 'must be an e-mail address');
  }
  // Alarms nobody receives protect nothing: a lost result would only show in a dashboard.
  if (name === PRODUCTION && alarmEmail === undefined && props.alarmTopic === undefined) {
    throw new IdvPipelineValidationError(
      'alarmEmail',
      'or alarmTopic must be set in production (alarms must reach someone)',
    );
  }

  const serviceEnvironment = props.serviceEnvironment ?? name;
  if (!(ENVIRONMENTS as readonly string[]).includes(serviceEnvironment)) {
    throw new IdvPipelineValidationError(
      'serviceEnvironment',
      `must be one of ${ENVIRONMENTS.join(', ')} (the default is environmentName)`,
    );
  }

  const serviceRateLimit = integerIn(
    'serviceRateLimit',
    props.serviceRateLimit,
    DEFAULT_SERVICE_RATE_LIMIT,
    1,
    10_000,
  );
  const fetchConcurrency = integerIn(
    'fetchConcurrency',
    props.fetchConcurrency,
    concurrencyForRate(serviceRateLimit),
    2,
    1000,
  );
  const reserved = props.fetchReservedConcurrency ?? fetchConcurrency;
  if (reserved !== false && (!Number.isInteger(reserved) || reserved < fetchConcurrency)) {
    throw new IdvPipelineValidationError(
      'fetchReservedConcurrency',
      `must be false or an integer of at least fetchConcurrency (${fetchConcurrency}): below it the event source is throttled`,
    );
  }

  const protection =
    props.webhookProtection ??
    (name === PRODUCTION ? { wafRateLimitPer5Min: DEFAULT_WAF_RATE_LIMIT_PER_5_MIN } : false);
  if (protection !== false) {
    integerIn(
      'webhookProtection.wafRateLimitPer5Min',
      protection.wafRateLimitPer5Min,
      0,
      WAF_RATE_LIMIT_MIN,
      WAF_RATE_LIMIT_MAX,
    );
  }

  const tracing = tracingModes(props.tracing ?? 'active');
  if (tracing === undefined) throw new IdvPipelineValidationError('tracing', TRACING_PROBLEM);

  const eventCustomerReference =
    props.eventCustomerReference ?? defaultCustomerReferenceMode(serviceEnvironment as ServiceEnvironment);
  if (!(CUSTOMER_REFERENCE_MODES as readonly string[]).includes(eventCustomerReference)) {
    throw new IdvPipelineValidationError(
      'eventCustomerReference',
      `must be one of ${CUSTOMER_REFERENCE_MODES.join(', ')}`,
    );
  }
  const pendingAlarmMinutes = props.pendingAlarmThreshold?.toMinutes({ integral: false }) ?? 30;
  if (!Number.isInteger(pendingAlarmMinutes) || pendingAlarmMinutes < 1) {
    throw new IdvPipelineValidationError('pendingAlarmThreshold', 'must be whole minutes, at least 1');
  }

  return {
    name,
    serviceEnvironment: serviceEnvironment as ServiceEnvironment,
    serviceBaseUrl: url,
    serviceBaseUrlIsPlaceholder: !deployTimeUrl && isPlaceholderHost(new URL(url).hostname),
    pollSchedule,
    retentionDays,
    logRetentionDays,
    ...(alarmEmail !== undefined && { alarmEmail }),
    scopes: [...scopes],
    serviceRateLimit,
    fetchConcurrency,
    fetchReservedConcurrency: reserved,
    servicePacePerContainer: paceOfContainer(serviceRateLimit, fetchConcurrency),
    fetchResultMemoryMb: integerIn('fetchResultMemorySize', props.fetchResultMemorySize, 256, 128, 10_240),
    logLevel: logLevel as LogLevel,
    pendingAlarmMinutes,
    webhookRateLimit: integerIn('webhookRateLimit', props.webhookRateLimit, 20, 1),
    webhookBurstLimit: integerIn('webhookBurstLimit', props.webhookBurstLimit, 40, 1),
    webhookProtection: protection,
    eventCustomerReference,
    metricsServiceName,
    tracing,
  };
}
