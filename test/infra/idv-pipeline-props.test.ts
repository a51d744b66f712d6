import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { IdvPipeline } from '../../infra/idv-pipeline';
import type { IdvPipelineProps } from '../../infra/idv-pipeline-props';
import { IdvPipelineValidationError } from '../../infra/idv-pipeline-settings';

const REAL: IdvPipelineProps = {
  environmentName: 'production',
  serviceBaseUrl: 'https://api.idv.eu',
  retention: Duration.days(90),
  alarmEmail: 'oncall@company.eu',
  analytics: false,
};

function build(props: IdvPipelineProps, context: Record<string, unknown> = {}): Stack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new Stack(app, 'Platform');
  new IdvPipeline(stack, 'Verification', props);
  return stack;
}

function refusal(props: IdvPipelineProps, context: Record<string, unknown> = {}): IdvPipelineValidationError {
  try {
    build(props, context);
  } catch (error) {
    if (error instanceof IdvPipelineValidationError) return error;
    throw error;
  }
  throw new Error('IdvPipeline accepted the props');
}

/** DeletionPolicy of every resource of `type` (of the results table: the one with indexes). */
function deletionPolicies(template: Template, type: string): unknown[] {
  return Object.values(template.findResources(type))
    .filter((r) => type !== 'AWS::DynamoDB::Table' || r['Properties']['GlobalSecondaryIndexes'] !== undefined)
    .map((r) => r['DeletionPolicy']);
}

/** The resources that hold results or what reads them: the table, key, buckets, secrets, logs. */
const DATA_TYPES = [
  'AWS::DynamoDB::Table',
  'AWS::KMS::Key',
  'AWS::S3::Bucket',
  'AWS::SecretsManager::Secret',
  'AWS::Logs::LogGroup',
];

describe('IdvPipelineProps validation', () => {
  it.each<[string, Partial<IdvPipelineProps>, string]>([
    ['an environment name with capitals', { environmentName: 'Prod' }, 'environmentName'],
    ['an http service URL', { serviceBaseUrl: 'http://api.idv.eu' }, 'serviceBaseUrl'],
    ['a service URL with user info', { serviceBaseUrl: 'https://u:p@api.idv.eu' }, 'serviceBaseUrl'],
    ['a retention of hours', { retention: Duration.hours(36) }, 'retention'],
    ['a log retention CloudWatch refuses', { logRetention: 2 as logs.RetentionDays }, 'logRetention'],
    ['a poll every hour', { pollSchedule: 'rate(1 hour)' }, 'pollSchedule'],
    ['an unknown scope', { scopes: ['admin'] }, 'scopes'],
    [
      'a reserved concurrency below the maximum',
      { fetchConcurrency: 5, fetchReservedConcurrency: 3 },
      'fetchReservedConcurrency',
    ],
    ['fetch-result with 64 MB', { fetchResultMemorySize: 64 }, 'fetchResultMemorySize'],
    [
      'a WAF limit under 10',
      { webhookProtection: { wafRateLimitPer5Min: 5 } },
      'webhookProtection.wafRateLimitPer5Min',
    ],
    ['a tracing mode of a function that does not exist', { tracing: { nope: 'off' } as never }, 'tracing'],
    ['production without an alarm target', { alarmEmail: undefined }, 'alarmEmail'],
    ['a removal policy that is none', { removalPolicy: 'keep' as RemovalPolicy }, 'removalPolicy'],
  ])('refuses %s with a coded error naming the prop', (_, change, prop) => {
    // Act
    const error = refusal({ ...REAL, ...change });

    // Assess
    expect(error.prop).toBe(prop);
    expect(error.code).toBe(`IdvPipeline.${prop}`);
    expect(error.message).toMatch(new RegExp(`^IdvPipeline: ${prop.replace('.', '\\.')} `));
  });
});

describe('IdvPipelineProps removalPolicy', () => {
  it('SNAPSHOT retains every store (CloudFormation snapshots none of them) and says so in an info annotation', () => {
    // Act
    const stack = build({ ...REAL, removalPolicy: RemovalPolicy.SNAPSHOT });
    const template = Template.fromStack(stack);
    const policies = DATA_TYPES.flatMap((type) => deletionPolicies(template, type));

    // Assess: `Snapshot` on a table, bucket or key is what the CDK CLI refuses (SnapshotRemovalNotSupported).
    expect(policies).not.toContain('Snapshot');
    expect(policies).not.toContain('Delete');
    expect(deletionPolicies(template, 'AWS::DynamoDB::Table')).toEqual(['Retain']);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      DeletionProtectionEnabled: true,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(deletionPolicies(template, 'AWS::KMS::Key')).toEqual(['Retain']);
    expect(new Set(deletionPolicies(template, 'AWS::S3::Bucket'))).toEqual(new Set(['Retain']));
    expect(new Set(deletionPolicies(template, 'AWS::SecretsManager::Secret'))).toEqual(new Set(['Retain']));
    Annotations.fromStack(stack).hasInfo(
      '/Platform/Verification',
      Match.stringLikeRegexp(
        'removalPolicy SNAPSHOT: .*results table .*point-in-time recovery .*object version',
      ),
    );
  });

  it('RETAIN_ON_UPDATE_OR_DELETE is honoured on every stateful resource', () => {
    // Act
    const template = Template.fromStack(
      build({ ...REAL, removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE }),
    );
    const deleted = DATA_TYPES.flatMap((type) => deletionPolicies(template, type)).filter(
      (p) => p === 'Delete',
    );

    // Assess
    for (const type of [
      'AWS::DynamoDB::Table',
      'AWS::KMS::Key',
      'AWS::S3::Bucket',
      'AWS::SecretsManager::Secret',
    ]) {
      expect(new Set(deletionPolicies(template, type)), type).toEqual(new Set(['RetainExceptOnCreate']));
    }
    expect(deleted).toEqual([]);
  });

  it('RETAIN keeps everything and protects the table; DESTROY deletes it', () => {
    // Act
    const retained = Template.fromStack(build(REAL));
    const destroyed = Template.fromStack(build({ ...REAL, removalPolicy: RemovalPolicy.DESTROY }));

    // Assess
    expect(deletionPolicies(retained, 'AWS::DynamoDB::Table')).toContain('Retain');
    retained.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    expect(deletionPolicies(destroyed, 'AWS::DynamoDB::Table')).toContain('Delete');
  });
});

describe('IdvPipelineProps placeholders', () => {
  it.each<[string, Partial<IdvPipelineProps>, string]>([
    ['service URL', { serviceBaseUrl: 'https://verification-service.example' }, 'serviceBaseUrl'],
    ['alarm e-mail', { alarmEmail: 'idv-oncall@example.com' }, 'alarmEmail'],
    ['alarm e-mail on a .test domain', { alarmEmail: 'oncall@company.test' }, 'alarmEmail'],
  ])('refuses a placeholder %s in production, naming it and the escape hatch', (_, change, prop) => {
    // Act
    const error = refusal({ ...REAL, ...change });

    // Assess
    expect(error.prop).toBe(prop);
    expect(error.message).toContain(`${prop} (`);
    expect(error.message).toContain('allowPlaceholders: true (cdk -c allowPlaceholders=true)');
  });

  it.each<[string, Partial<IdvPipelineProps>, Record<string, unknown>]>([
    ['the prop', { allowPlaceholders: true }, {}],
    ['the context', {}, { allowPlaceholders: 'true' }],
    ['the former context name', {}, { allowPlaceholderServiceUrls: true }],
  ])('lets the template check through with a warning, allowed by %s', (_, change, context) => {
    // Act
    const stack = build({ ...REAL, alarmEmail: 'idv-oncall@example.com', ...change }, context);

    // Assess
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp('alarmEmail .* is a placeholder'));
  });

  it('warns, and builds, outside production', () => {
    // Act
    const stack = build({
      ...REAL,
      environmentName: 'staging',
      serviceBaseUrl: 'https://staging.service.example',
    });

    // Assess
    Annotations.fromStack(stack).hasWarning(
      '*',
      Match.stringLikeRegexp('serviceBaseUrl .* is a placeholder'),
    );
  });
});
