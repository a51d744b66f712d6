import { App, Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { IdvPipeline } from '../../infra/idv-pipeline';
import type { IdvPipelineProps } from '../../infra/idv-pipeline-props';

/**
 * CloudFormation's length limits of every physical name a pipeline may set, by resource type and property
 * path (from each resource type's reference page). A name past its limit synthesises and then fails at
 * deploy time ("ArchiveName: length 53 exceeds maximum 48").
 */
const NAME_LIMITS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'AWS::Events::EventBus': { Name: 256 },
  'AWS::Events::Archive': { ArchiveName: 48 },
  'AWS::Events::Rule': { Name: 64 },
  'AWS::EventSchemas::Registry': { RegistryName: 64 },
  'AWS::EventSchemas::Schema': { SchemaName: 385 },
  'AWS::CloudWatch::Alarm': { AlarmName: 255 },
  'AWS::CloudWatch::Dashboard': { DashboardName: 255 },
  'AWS::Athena::WorkGroup': { Name: 128 },
  'AWS::Athena::NamedQuery': { Name: 128 },
  'AWS::IAM::ManagedPolicy': { ManagedPolicyName: 128 },
  'AWS::IAM::Role': { RoleName: 64 },
  'AWS::IAM::Policy': { PolicyName: 128 },
  'AWS::SecretsManager::Secret': { Name: 512 },
  'AWS::KMS::Alias': { AliasName: 256 },
  'AWS::WAFv2::WebACL': { Name: 128, 'VisibilityConfig.MetricName': 128 },
  'AWS::Lambda::Function': { FunctionName: 64 },
  'AWS::DynamoDB::Table': { TableName: 255 },
  'AWS::S3::Bucket': { BucketName: 63 },
  'AWS::SQS::Queue': { QueueName: 80 },
  'AWS::SNS::Topic': { TopicName: 256 },
  'AWS::Logs::LogGroup': { LogGroupName: 512 },
  'AWS::Logs::LogStream': { LogStreamName: 512 },
  'AWS::KinesisFirehose::DeliveryStream': { DeliveryStreamName: 64 },
  'AWS::Glue::Database': { 'DatabaseInput.Name': 255 },
  'AWS::Glue::Table': { 'TableInput.Name': 255 },
  'AWS::ApiGateway::RestApi': { Name: 1024 },
  'AWS::Scheduler::Schedule': { Name: 64 },
};
/** Per-rule metric names of a web ACL (WAF: 1-128 characters). */
const WAF_RULE_METRIC_LIMIT = 128;

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

function at(value: unknown, dotted: string): unknown {
  return dotted
    .split('.')
    .reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);
}

/** `type.path = name (length)` of every literal name past its limit, and how many names were checked. */
function namesPastLimits(templates: Template[]): { checked: string[]; tooLong: string[] } {
  const checked: string[] = [];
  const tooLong: string[] = [];
  const check = (where: string, name: unknown, limit: number) => {
    if (typeof name !== 'string') return;
    checked.push(where);
    if (name.length > limit) tooLong.push(`${where} = ${name} (${name.length} > ${limit})`);
  };
  for (const template of templates) {
    for (const resource of Object.values(template.toJSON().Resources as Record<string, Resource>)) {
      for (const [property, limit] of Object.entries(NAME_LIMITS[resource.Type] ?? {})) {
        check(`${resource.Type}.${property}`, at(resource.Properties, property), limit);
      }
      if (resource.Type === 'AWS::WAFv2::WebACL') {
        for (const rule of (resource.Properties?.['Rules'] as Record<string, unknown>[]) ?? []) {
          check(
            'AWS::WAFv2::WebACL.Rules.VisibilityConfig.MetricName',
            at(rule, 'VisibilityConfig.MetricName'),
            WAF_RULE_METRIC_LIMIT,
          );
        }
      }
    }
  }
  return { checked, tooLong };
}

function templatesOf(stack: Stack): Template[] {
  const nested = stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack);
  return [Template.fromStack(stack), ...nested.map((n) => Template.fromStack(n))];
}

const PROPS: IdvPipelineProps = {
  environmentName: 'production',
  serviceBaseUrl: 'https://service.idv.acme.io',
  retention: Duration.days(90),
  alarmEmail: 'oncall@acme.io',
  removalPolicy: RemovalPolicy.RETAIN,
};

describe('IdvPipeline physical names', () => {
  it.each([
    ['derived from a long stack name and construct path', {}],
    ['from the longest namePrefix', { namePrefix: `p${'x'.repeat(38)}9`, metricsServiceName: 'm' }],
  ])('fit every resource limit when %s', (_, extra) => {
    // Prepare
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'PlatformAppStackWithAVeryLongNameForTesting');
    const group = new Construct(stack, 'IdentityVerificationForTheWholeCompanyGroup');

    // Act
    new IdvPipeline(group, 'VerificationPipelineForTheWholeCompany', {
      ...PROPS,
      webhookProtection: { wafRateLimitPer5Min: 600 },
      ...extra,
    });
    const { checked, tooLong } = namesPastLimits(templatesOf(stack));

    // Assess
    expect(tooLong).toEqual([]);
    // The names the pipeline must know at synth time are among those checked.
    for (const name of [
      'AWS::Events::Archive.ArchiveName',
      'AWS::Events::EventBus.Name',
      'AWS::KinesisFirehose::DeliveryStream.DeliveryStreamName',
      'AWS::Athena::WorkGroup.Name',
      'AWS::Glue::Database.DatabaseInput.Name',
      'AWS::WAFv2::WebACL.Rules.VisibilityConfig.MetricName',
    ]) {
      expect(checked).toContain(name);
    }
  });
});
