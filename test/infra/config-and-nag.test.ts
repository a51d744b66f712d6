import { App, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { isPlaceholderHost, loadEnvironments, parseEnvironmentConfig } from '../../infra/config';
import { IdvPipelineValidationError } from '../../infra/idv-pipeline-settings';
import { PipelineStack, stackName } from '../../infra/pipeline-stack';
import { cdkJsonContext, synthesise } from './stack-fixture';

const minimal = { serviceBaseUrl: 'https://service.example', retentionDays: 30 };

describe('environment configuration', () => {
  it.each(['production', 'staging'])('rejects %s without an explicit retention, saying so', (name) => {
    // Prepare
    const raw = { serviceBaseUrl: 'https://service.example', alarmEmail: 'a@b.example' };

    // Act
    const parse = () => parseEnvironmentConfig(name, raw);

    // Assess
    expect(parse).toThrow(IdvPipelineValidationError);
    expect(parse).toThrow(
      `IdvPipeline: retention must be set (how long results are kept, whole days) (cdk.json context.environments.${name}.retentionDays)`,
    );
  });

  it('rejects a production stack built from settings lacking retentionDays', () => {
    // Prepare
    const { retentionDays: _dropped, ...production } = (
      cdkJsonContext()['environments'] as Record<string, Record<string, unknown>>
    )['production']!;

    // Act
    const build = () => loadEnvironments({ production }, 'production');

    // Assess
    expect(build).toThrow(/retention must be set .*production\.retentionDays/);
  });

  it('applies the defaults for staging', () => {
    // Prepare
    const raw = { ...minimal };

    // Act
    const config = parseEnvironmentConfig('staging', raw);

    // Assess
    expect(config).toMatchObject({
      serviceEnvironment: 'staging',
      pollSchedule: 'rate(1 minute)',
      retentionDays: 30,
      serviceRateLimit: 10,
      fetchConcurrency: 5,
      fetchReservedConcurrency: 5,
      servicePacePerContainer: 2,
      logLevel: 'INFO',
      scopes: ['productapi.poll.read', 'productapi.result.read'],
      removalPolicy: 'retain',
      eventCustomerReference: 'include',
    });
  });

  it.each([
    [
      {},
      { serviceRateLimit: 10, fetchConcurrency: 5, fetchReservedConcurrency: 5, servicePacePerContainer: 2 },
    ],
    [
      { serviceRateLimit: 1 },
      { fetchConcurrency: 2, fetchReservedConcurrency: 2, servicePacePerContainer: 0.5 },
    ],
    [
      { serviceRateLimit: 100 },
      { fetchConcurrency: 50, fetchReservedConcurrency: 50, servicePacePerContainer: 2 },
    ],
    [
      { serviceRateLimit: 25, fetchConcurrency: 3 },
      { fetchConcurrency: 3, fetchReservedConcurrency: 3, servicePacePerContainer: 8.33 },
    ],
    [
      { fetchReservedConcurrency: false },
      { fetchConcurrency: 5, fetchReservedConcurrency: false, servicePacePerContainer: 2 },
    ],
    [{ fetchReservedConcurrency: 20 }, { fetchConcurrency: 5, fetchReservedConcurrency: 20 }],
  ])('derives the concurrency and pace from the service rate: %j', (settings, expected) => {
    // Act
    const config = parseEnvironmentConfig('staging', { ...minimal, ...settings });

    // Assess
    expect(config).toMatchObject(expected);
  });

  it('omits customer references from production events unless the environment says otherwise', () => {
    // Act
    const production = parseEnvironmentConfig('production', {
      ...minimal,
      retentionDays: 90,
      alarmEmail: 'a@b.example',
    });
    const included = parseEnvironmentConfig('production', {
      ...minimal,
      retentionDays: 90,
      alarmEmail: 'a@b.example',
      eventCustomerReference: 'include',
    });

    // Assess
    expect(production.eventCustomerReference).toBe('omit');
    expect(included.eventCustomerReference).toBe('include');
  });

  it.each([
    [{ ...minimal, serviceBaseUrl: 'http://service.example' }, 'serviceBaseUrl', 'serviceBaseUrl'],
    [{ ...minimal, serviceBaseUrl: 'https://user:pw@service.example' }, 'serviceBaseUrl', 'serviceBaseUrl'],
    [{ retentionDays: 30 }, 'serviceBaseUrl', 'serviceBaseUrl'],
    [{ ...minimal, fetchConcurrency: 1 }, 'fetchConcurrency', 'fetchConcurrency'],
    [{ ...minimal, fetchConcurrency: 1001 }, 'fetchConcurrency', 'fetchConcurrency'],
    [{ ...minimal, serviceRateLimit: 0 }, 'serviceRateLimit', 'serviceRateLimit'],
    [{ ...minimal, serviceRateLimit: 2.5 }, 'serviceRateLimit', 'serviceRateLimit'],
    [
      { ...minimal, fetchConcurrency: 8, fetchReservedConcurrency: 4 },
      'fetchReservedConcurrency',
      'fetchReservedConcurrency',
    ],
    [{ ...minimal, retentionDays: 0 }, 'retention', 'retentionDays'],
    [{ ...minimal, retentionDays: 'ninety' }, 'retention', 'retentionDays'],
    [{ ...minimal, logRetentionDays: 31 }, 'logRetention', 'logRetentionDays'],
    [{ ...minimal, scopes: ['admin'] }, 'scopes', 'scopes'],
    [{ ...minimal, logLevel: 'LOUD' }, 'logLevel', 'logLevel'],
    [{ ...minimal, pollSchedule: 'every minute' }, 'pollSchedule', 'pollSchedule'],
    [{ ...minimal, pollSchedule: 'rate(1 hour)' }, 'pollSchedule', 'pollSchedule'],
    [{ ...minimal, pollSchedule: 'rate(30 minutes)' }, 'pollSchedule', 'pollSchedule'],
    [{ ...minimal, serviceEnvironment: 'dev' }, 'serviceEnvironment', 'serviceEnvironment'],
    [{ ...minimal, eventCustomerReference: 'hash' }, 'eventCustomerReference', 'eventCustomerReference'],
    [{ ...minimal, removalPolicy: 'keep' }, 'removalPolicy', 'removalPolicy'],
  ])('rejects %j naming the prop and the cdk.json setting', (raw, prop, key) => {
    // Act
    const parse = () => parseEnvironmentConfig('staging', raw);

    // Assess
    expect(parse).toThrow(IdvPipelineValidationError);
    expect(parse).toThrow(
      new RegExp(`^IdvPipeline: ${prop} .*\\(cdk\\.json context\\.environments\\.staging\\.${key}\\)$`),
    );
  });

  it('selects one environment, all of them, or fails on an unknown name', () => {
    // Prepare
    const environments = cdkJsonContext()['environments'];

    // Act
    const all = loadEnvironments(environments).map((c) => c.name);
    const one = loadEnvironments(environments, 'staging').map((c) => c.name);

    // Assess
    expect(all).toEqual(['staging', 'production']);
    expect(one).toEqual(['staging']);
    expect(() => loadEnvironments(environments, 'qa')).toThrow('unknown environment "qa"');
  });
});

describe('alarm target', () => {
  const production = { ...minimal, retentionDays: 90 };

  it('is required in production: an e-mail address or a topic ARN, named in the error', () => {
    // Act
    const parse = () => parseEnvironmentConfig('production', production);

    // Assess
    expect(parse).toThrow(IdvPipelineValidationError);
    expect(parse).toThrow('IdvPipeline: alarmEmail or alarmTopic must be set in production');
  });

  it('refuses a topic ARN that is not one', () => {
    // Act
    const parse = () => parseEnvironmentConfig('production', { ...production, alarmTopicArn: 'oncall' });

    // Assess
    expect(parse).toThrow('production: alarmTopicArn must be an SNS topic ARN');
  });

  it('subscribes the e-mail address to the alarm topic in production (cdk.json)', () => {
    // Act
    const { template, config } = synthesise('production');

    // Assess
    expect(config.alarmEmail).toBeDefined();
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: config.alarmEmail,
    });
  });

  it('sends every alarm to a configured topic ARN as well', () => {
    // Prepare
    const arn = 'arn:aws:sns:eu-west-1:123456789012:oncall';

    // Act
    const { template } = synthesise('production', { alarmEmail: undefined, alarmTopicArn: arn });

    // Assess
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(5);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toContainEqual(arn);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('both environments synthesise with zero unacknowledged cdk-nag findings', () => {
  it.each(['staging', 'production'])('%s', (environment) => {
    // Prepare
    const { stack, template } = synthesise(environment);

    // Act
    const reports = [new AwsSolutionsChecks(), new ServerlessChecks()].map((pack) =>
      pack.validateScope(stack),
    );

    // Assess
    expect(stack.stackName).toBe(`IdvPipeline-${environment}`);
    expect(
      reports.flatMap((report) =>
        report.violations.map((v) => `${v.ruleName} at ${v.violatingResources[0]?.constructPath}`),
      ),
    ).toEqual([]);
    template.resourceCountIs('AWS::Lambda::Function', 4);
  });

  it('keeps production data when the stack is deleted', () => {
    // Prepare
    const { template } = synthesise('production');

    // Act
    const tables = Object.values(template.findResources('AWS::DynamoDB::Table'));

    // Assess
    expect(tables[0]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: { DeletionProtectionEnabled: true },
    });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain' });
  });

  it('fails app synthesis on a finding nobody acknowledged', () => {
    // Prepare
    const context = cdkJsonContext();
    const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
    const [config] = loadEnvironments(context['environments'], 'staging');
    const stack = new PipelineStack(app, stackName('staging'), { config: config! });
    // A wildcard grant without an acknowledgement, as a careless change would add.
    stack.poller.pollFunction.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:*'], resources: ['*'] }),
    );
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    // Act
    const synth = () => app.synth();

    // Assess
    expect(synth).toThrow('AwsSolutions-IAM5[Action::s3:*]');
  });
});

describe('placeholder service URLs', () => {
  it.each([
    ['verification-service.example', true],
    ['staging.verification-service.example', true],
    ['api.example.com', true],
    ['svc.invalid', true],
    ['localhost', true],
    ['EXAMPLE.ORG.', true],
    ['api.verification.eu', false],
    ['example.company.com', false],
    ['notexample.com', false],
  ])('%s is a placeholder: %s', (host, expected) => {
    expect(isPlaceholderHost(host)).toBe(expected);
  });
});
