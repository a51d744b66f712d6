/**
 * One rule set: cdk.json's settings and IdvPipeline's props go through the same rules and defaults
 * (infra/idv-pipeline-settings.ts). The same bad value gives the same coded error either way; the same
 * good value the same settings.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { parseEnvironmentConfig } from '../../infra/config';
import { IdvPipeline } from '../../infra/idv-pipeline';
import type { IdvPipelineProps } from '../../infra/idv-pipeline-props';
import { IdvPipelineValidationError } from '../../infra/idv-pipeline-settings';

const SETTINGS = { serviceBaseUrl: 'https://api.idv.eu', retentionDays: 30 };
const PROPS: IdvPipelineProps = {
  environmentName: 'staging',
  serviceBaseUrl: 'https://api.idv.eu',
  retention: Duration.days(30),
  analytics: false,
};

function viaCdkJson(settings: Record<string, unknown>): IdvPipelineValidationError {
  try {
    parseEnvironmentConfig('staging', { ...SETTINGS, ...settings });
  } catch (error) {
    if (error instanceof IdvPipelineValidationError) return error;
    throw error;
  }
  throw new Error('cdk.json accepted the settings');
}

function viaProps(change: Partial<IdvPipelineProps>): IdvPipelineValidationError {
  try {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Platform');
    new IdvPipeline(stack, 'Verification', { ...PROPS, ...change });
  } catch (error) {
    if (error instanceof IdvPipelineValidationError) return error;
    throw error;
  }
  throw new Error('the props were accepted');
}

describe('one rule set for cdk.json and the props', () => {
  it.each<[string, Record<string, unknown>, Partial<IdvPipelineProps>]>([
    ['no retention', { retentionDays: undefined }, { retention: undefined as unknown as Duration }],
    ['a retention of 0 days', { retentionDays: 0 }, { retention: Duration.days(0) }],
    ['a retention of a day and a half', { retentionDays: 1.5 }, { retention: Duration.hours(36) }],
    [
      'a log retention CloudWatch refuses',
      { logRetentionDays: 31 },
      { logRetention: 31 as logs.RetentionDays },
    ],
    ['an http URL', { serviceBaseUrl: 'http://api.idv.eu' }, { serviceBaseUrl: 'http://api.idv.eu' }],
    ['a poll every hour', { pollSchedule: 'rate(1 hour)' }, { pollSchedule: 'rate(1 hour)' }],
    ['an unknown scope', { scopes: ['admin'] }, { scopes: ['admin'] }],
    ['an unknown log level', { logLevel: 'LOUD' }, { logLevel: 'LOUD' as never }],
    ['an e-mail that is none', { alarmEmail: 'oncall' }, { alarmEmail: 'oncall' }],
    ['a service rate of 0', { serviceRateLimit: 0 }, { serviceRateLimit: 0 }],
    ['a concurrency of 1', { fetchConcurrency: 1 }, { fetchConcurrency: 1 }],
    [
      'a reserved concurrency below the maximum',
      { fetchConcurrency: 5, fetchReservedConcurrency: 3 },
      { fetchConcurrency: 5, fetchReservedConcurrency: 3 },
    ],
    ['fetch-result with 64 MB', { fetchResultMemoryMb: 64 }, { fetchResultMemorySize: 64 }],
    [
      'a WAF limit under 10',
      { webhookProtection: { wafRateLimitPer5Min: 5 } },
      { webhookProtection: { wafRateLimitPer5Min: 5 } },
    ],
    ['a tracing mode that is none', { tracing: 'sampled' }, { tracing: 'sampled' as never }],
    [
      'a pending alarm of 0 minutes',
      { pendingAlarmMinutes: 0 },
      { pendingAlarmThreshold: Duration.minutes(0) },
    ],
    ['a throttle of 0', { webhookRateLimit: 0 }, { webhookRateLimit: 0 }],
    ['an unknown service environment', { serviceEnvironment: 'dev' }, { serviceEnvironment: 'dev' as never }],
    [
      'a customer reference mode that is none',
      { eventCustomerReference: 'hash' },
      { eventCustomerReference: 'hash' as never },
    ],
  ])('refuses %s with the same coded error both ways', (_, settings, change) => {
    // Act
    const fromCdkJson = viaCdkJson(settings);
    const fromProps = viaProps(change);

    // Assess
    expect(fromCdkJson.code).toBe(fromProps.code);
    expect(fromCdkJson.problem).toBe(fromProps.problem);
    expect(fromCdkJson.where).toMatch(/^cdk\.json context\.environments\.staging\./);
    expect(fromProps.where).toBe('Platform/Verification');
    expect(fromProps.message).toBe(
      `IdvPipeline: ${fromProps.prop} ${fromProps.problem} (Platform/Verification)`,
    );
  });

  it('requires an alarm target in production both ways', () => {
    // Act
    const fromCdkJson = (() => {
      try {
        parseEnvironmentConfig('production', SETTINGS);
      } catch (error) {
        return error as IdvPipelineValidationError;
      }
    })();
    const fromProps = viaProps({ environmentName: 'production' });

    // Assess
    expect(fromCdkJson?.code).toBe('IdvPipeline.alarmEmail');
    expect(fromProps.code).toBe('IdvPipeline.alarmEmail');
  });

  it('reads a log level in any case both ways (the Powertools names are upper-case)', () => {
    // Act
    const fromCdkJson = parseEnvironmentConfig('staging', { ...SETTINGS, logLevel: 'debug' });
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Platform');
    const fromProps = new IdvPipeline(stack, 'Verification', { ...PROPS, logLevel: 'debug' as never });

    // Assess
    expect(fromCdkJson.logLevel).toBe('DEBUG');
    expect(fromProps.settings.logLevel).toBe('DEBUG');
  });

  it('gives the same settings for the same values, defaults included', () => {
    // Act
    const fromCdkJson = parseEnvironmentConfig('staging', SETTINGS);
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Platform');
    const { metricsServiceName: _a, ...fromProps } = new IdvPipeline(stack, 'Verification', PROPS).settings;
    const { metricsServiceName: _b, removalPolicy: _c, ...settings } = fromCdkJson;

    // Assess
    expect(settings).toEqual(fromProps);
  });
});
