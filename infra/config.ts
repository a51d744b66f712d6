/**
 * cdk.json's `environments`, decoded: each environment's settings are checked for shape and JSON types
 * only and become the plain input of IdvPipeline's one rule set (infra/idv-pipeline-settings.ts), which
 * validates them and applies the defaults exactly as it does for the props: the same bad value gives the
 * same coded `IdvPipelineValidationError` either way, here with the cdk.json setting it came from. What
 * only this repository's app reads (`account`, `region`, `alarmTopicArn`, `removalPolicy`) is decoded
 * here too. No value of aws-cdk-lib is imported: the CLI reads cdk.json with this module.
 */
import { isJsonObject } from '../shared/json-object';
import { METRICS } from '../shared/metrics-names';
import {
  IdvPipelineValidationError,
  type PipelineSettings,
  type SettingsInput,
  settingsOf,
} from './idv-pipeline-settings';

// The settings' types and constants, where the constructs and the CLI have always imported them.
export {
  DEFAULT_SERVICE_RATE_LIMIT,
  DEFAULT_WAF_RATE_LIMIT_PER_5_MIN,
  ENV_NAME,
  isPlaceholderHost,
  LOG_LEVELS,
  LOG_RETENTION_VALUES,
  type LogLevel,
  type PipelineSettings,
  type StorageClassOptions,
  type StorageClassSettings,
  TRACED_FUNCTIONS,
  TRACING_MODES,
  TRACING_PROBLEM,
  type TracedFunction,
  type TracingMode,
  type TracingSetting,
  tracingModes,
  WAF_RATE_LIMIT_MAX,
  WAF_RATE_LIMIT_MIN,
  type WebhookProtection,
} from './idv-pipeline-settings';

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

/**
 * Thrown when the `environments` context itself is missing or names no such environment (a setting's
 * value is an `IdvPipelineValidationError`, as through the props).
 */
export class EnvironmentConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EnvironmentConfigError';
  }
}

/** The cdk.json key of each prop whose name or unit differs (`retentionDays` is `retention` in days). */
const KEY_OF_PROP: Readonly<Record<string, string>> = {
  environmentName: '',
  retention: 'retentionDays',
  logRetention: 'logRetentionDays',
  fetchResultMemorySize: 'fetchResultMemoryMb',
  pendingAlarmThreshold: 'pendingAlarmMinutes',
  'webhookProtection.wafRateLimitPer5Min': 'webhookProtection.wafRateLimitPer5Min',
};

const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

type Raw = Record<string, unknown>;

/** Decodes the values of one environment, each by its JSON type; a wrong type names the prop. */
class Decoder {
  constructor(
    private readonly raw: Raw,
    private readonly env: string,
  ) {}

  /** Where a prop's value came from: `cdk.json context.environments.<env>.<key>`. */
  where(prop: string): string {
    const key = KEY_OF_PROP[prop] ?? prop;
    return `cdk.json context.environments.${this.env}${key === '' ? '' : `.${key}`}`;
  }

  #refuse(key: string, prop: string, problem: string): never {
    throw new IdvPipelineValidationError(prop, problem, { where: this.where(prop) || key });
  }

  /** A string; `""` counts as not set. */
  string(key: string, prop = key): string | undefined {
    const value = this.raw[key];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') this.#refuse(key, prop, 'must be a string');
    return value;
  }

  /** A number; `-c` overrides arrive as strings, so "90" is 90. */
  number(key: string, prop = key): number | undefined {
    const value = this.raw[key];
    if (value === undefined) return undefined;
    const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof parsed !== 'number' || Number.isNaN(parsed)) this.#refuse(key, prop, 'must be a number');
    return parsed;
  }

  /** A number, or `false` (also "false" from `-c`). */
  numberOrFalse(key: string): number | false | undefined {
    const value = this.raw[key];
    return value === false || value === 'false' ? false : this.number(key);
  }

  /** `false` ("false" from `-c`), or an object of numbers. */
  webhookProtection(): false | { wafRateLimitPer5Min?: number } | undefined {
    const value = this.raw['webhookProtection'];
    if (value === undefined || value === false || value === 'false')
      return value === undefined ? undefined : false;
    if (!isJsonObject(value)) {
      this.#refuse(
        'webhookProtection',
        'webhookProtection',
        'must be false or { "wafRateLimitPer5Min": <integer> }',
      );
    }
    const limit = value['wafRateLimitPer5Min'];
    if (limit !== undefined && typeof limit !== 'number') {
      this.#refuse('webhookProtection', 'webhookProtection.wafRateLimitPer5Min', 'must be a number');
    }
    return limit === undefined ? {} : { wafRateLimitPer5Min: limit };
  }

  /** A list of strings. */
  strings(key: string): string[] | undefined {
    const value = this.raw[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      this.#refuse(key, key, 'must be a list of strings');
    }
    return value as string[];
  }

  /** `false` ("false" from `-c`), or an object (its fields' rules are the props'). */
  falseOrObject(key: string): unknown {
    const value = this.raw[key];
    if (value === undefined || value === false || value === 'false')
      return value === undefined ? undefined : false;
    if (!isJsonObject(value)) this.#refuse(key, key, 'must be false or an object');
    return value;
  }

  /** A value whose type the rules check themselves (`tracing`: a mode, or modes by function). */
  checkedByRules(key: string): unknown {
    return this.raw[key];
  }
}

/** Options of {@link parseEnvironmentConfig}. */
export interface ParseOptions {
  /** An alarm topic object is given besides these settings (IdvPipeline's `alarmTopic`): a target. */
  readonly alarmTopicGiven?: boolean;
}

/**
 * One environment of cdk.json (`context.environments.<name>`): decoded, then validated by the props' rule
 * set with its defaults. Errors name the prop and the cdk.json setting, never echo a value.
 */
export function parseEnvironmentConfig(
  name: string,
  raw: unknown,
  options: ParseOptions = {},
): EnvironmentConfig {
  const decode = new Decoder(isJsonObject(raw) ? raw : {}, name);
  if (!isJsonObject(raw)) {
    throw new EnvironmentConfigError(`cdk.json context.environments.${name} must be an object of settings`);
  }
  const alarmTopicArn = decode.string('alarmTopicArn');
  if (alarmTopicArn !== undefined && !SNS_TOPIC_ARN.test(alarmTopicArn)) {
    throw new EnvironmentConfigError(
      `${name}: alarmTopicArn must be an SNS topic ARN (arn:aws:sns:region:account:name)`,
    );
  }
  const removalPolicy = decode.string('removalPolicy') ?? 'retain';
  if (!(REMOVAL_POLICY_SETTINGS as readonly string[]).includes(removalPolicy)) {
    throw new IdvPipelineValidationError(
      'removalPolicy',
      `must be one of ${REMOVAL_POLICY_SETTINGS.map((p) => `"${p}"`).join(', ')}`,
      { where: decode.where('removalPolicy') },
    );
  }
  const input: SettingsInput = {
    environmentName: name,
    serviceBaseUrl: decode.string('serviceBaseUrl'),
    serviceEnvironment: decode.string('serviceEnvironment'),
    retentionDays: decode.number('retentionDays', 'retention'),
    logRetentionDays: decode.number('logRetentionDays', 'logRetention'),
    pollSchedule: decode.string('pollSchedule'),
    scopes: decode.strings('scopes'),
    logLevel: decode.string('logLevel'),
    alarmEmail: decode.string('alarmEmail'),
    alarmTopicGiven: alarmTopicArn !== undefined || options.alarmTopicGiven === true,
    serviceRateLimit: decode.number('serviceRateLimit'),
    fetchConcurrency: decode.number('fetchConcurrency'),
    fetchReservedConcurrency: decode.numberOrFalse('fetchReservedConcurrency'),
    fetchResultMemorySize: decode.number('fetchResultMemoryMb', 'fetchResultMemorySize'),
    webhookProtection: decode.webhookProtection(),
    webhookRateLimit: decode.number('webhookRateLimit'),
    webhookBurstLimit: decode.number('webhookBurstLimit'),
    tracing: decode.checkedByRules('tracing'),
    eventCustomerReference: decode.string('eventCustomerReference'),
    pendingAlarmMinutes: decode.number('pendingAlarmMinutes', 'pendingAlarmThreshold'),
    storageClasses: decode.falseOrObject('storageClasses'),
  };
  let settings: PipelineSettings;
  try {
    settings = settingsOf(input, METRICS.serviceName);
  } catch (error) {
    if (error instanceof IdvPipelineValidationError) throw error.at(decode.where(error.prop));
    throw error;
  }
  const account = decode.string('account');
  const region = decode.string('region');
  return {
    ...settings,
    ...(account !== undefined && { account }),
    ...(region !== undefined && { region }),
    ...(alarmTopicArn !== undefined && { alarmTopicArn }),
    removalPolicy: removalPolicy as RemovalPolicySetting,
  };
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
