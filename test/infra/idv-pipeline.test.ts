import { App, Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { pipelineOutputs } from '../../bin/cli/deployment';
import { IdvPipelineVpcEndpoints } from '../../infra/constructs/vpc-endpoints';
import { IdvPipeline } from '../../infra/idv-pipeline';
import type { IdvPipelineProps } from '../../infra/idv-pipeline-props';
import { IdvPipelineValidationError } from '../../infra/idv-pipeline-settings';
import { ENV } from '../../shared/config';
import { OUTPUT_KEYS } from '../../shared/deployment-outputs';
import { METRICS } from '../../shared/metrics-names';
import { actionsOf, type IamStatement, statementsOfRole } from './stack-fixture';

const BASE: IdvPipelineProps = {
  environmentName: 'staging',
  serviceBaseUrl: 'https://staging.service.example',
  retention: Duration.days(30),
  removalPolicy: RemovalPolicy.DESTROY,
};

/** An app that does not bundle the functions (esbuild work the assertions do not need). */
function newApp(): App {
  return new App({ context: { 'aws:cdk:bundling-stacks': [] } });
}

/** Every stack template under `stack`, nested stacks included. */
function templatesOf(stack: Stack): Template[] {
  const nested = stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack);
  return [Template.fromStack(stack), ...nested.map((n) => Template.fromStack(n))];
}

/** cdk-nag AwsSolutions + Serverless findings under `scope`, as `rule at path`. */
function nagFindings(scope: IConstruct): string[] {
  return [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack
      .validateScope(scope)
      .violations.map((v) => `${v.ruleName} at ${v.violatingResources[0]?.constructPath}`),
  );
}

/** Properties that name a resource uniquely in an account and region. */
const UNIQUE_NAMES: Readonly<Record<string, string>> = {
  'AWS::Events::EventBus': 'Name',
  'AWS::Events::Archive': 'ArchiveName',
  'AWS::Events::Rule': 'Name',
  'AWS::EventSchemas::Registry': 'RegistryName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::CloudWatch::Dashboard': 'DashboardName',
  'AWS::Athena::WorkGroup': 'Name',
  'AWS::IAM::ManagedPolicy': 'ManagedPolicyName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::KMS::Alias': 'AliasName',
  'AWS::WAFv2::WebACL': 'Name',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::Logs::LogGroup': 'LogGroupName',
};

/** The unique physical names the templates set (the Glue database's too). */
function physicalNames(templates: Template[]): string[] {
  const names: string[] = [];
  for (const template of templates) {
    for (const resource of Object.values(template.toJSON().Resources ?? {})) {
      const { Type: type, Properties: properties = {} } = resource as {
        Type: string;
        Properties?: Record<string, unknown>;
      };
      const key = UNIQUE_NAMES[type];
      if (key !== undefined && properties[key] !== undefined) {
        names.push(`${type}=${JSON.stringify(properties[key])}`);
      }
      if (type === 'AWS::Glue::Database') {
        names.push(`${type}=${(properties['DatabaseInput'] as { Name: string }).Name}`);
      }
    }
  }
  return names;
}

/** A dependency cycle among the resources of `template` (CloudFormation refuses those), or []. */
function dependencyCycle(template: Template): string[] {
  const resources = template.toJSON().Resources as Record<string, { DependsOn?: string | string[] }>;
  const edges = new Map<string, Set<string>>();
  for (const [id, resource] of Object.entries(resources)) {
    const targets = new Set<string>([resource.DependsOn ?? []].flat());
    JSON.stringify(resource, (key, value: unknown) => {
      if (key === 'Ref' && typeof value === 'string') targets.add(value);
      if (key === 'Fn::GetAtt' && Array.isArray(value)) targets.add(String(value[0]));
      return value;
    });
    edges.set(id, new Set([...targets].filter((t) => t in resources && t !== id)));
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, trail: string[]): string[] => {
    if (state.get(id) === 'done') return [];
    if (state.get(id) === 'visiting') return [...trail.slice(trail.indexOf(id)), id];
    state.set(id, 'visiting');
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next, [...trail, id]);
      if (cycle.length > 0) return cycle;
    }
    state.set(id, 'done');
    return [];
  };
  for (const id of edges.keys()) {
    const cycle = visit(id, []);
    if (cycle.length > 0) return cycle;
  }
  return [];
}

describe('IdvPipeline, side by side', () => {
  it('synthesises two pipelines in one stack and in a second stack without a colliding name or a nag finding', () => {
    // Prepare
    const app = newApp();
    const first = new Stack(app, 'TeamA');
    const second = new Stack(app, 'TeamB');

    // Act
    new IdvPipeline(first, 'Blue', BASE);
    new IdvPipeline(first, 'Green', { ...BASE, environmentName: 'green', serviceEnvironment: 'staging' });
    new IdvPipeline(second, 'Blue', BASE);
    const names = [first, second].flatMap((stack) => physicalNames(templatesOf(stack)));
    app.synth();

    // Assess
    expect(names.length).toBeGreaterThanOrEqual(9);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    expect(names.join('\n')).not.toMatch(/idv-pipeline-staging/);
    expect(templatesOf(first).map(dependencyCycle)).toEqual(templatesOf(first).map(() => []));
    expect(nagFindings(first)).toEqual([]);
    expect(nagFindings(second)).toEqual([]);
  });

  it('gives each pipeline its own metrics service dimension, watched by its own alarms', () => {
    // Prepare
    const stack = new Stack(newApp(), 'TeamA');
    const pipelines = [
      new IdvPipeline(stack, 'Blue', BASE),
      new IdvPipeline(stack, 'Green', { ...BASE, environmentName: 'green', serviceEnvironment: 'staging' }),
    ];
    const template = Template.fromStack(stack);

    // Act
    const dimensions = pipelines.map((pipeline) => {
      const poll = pipeline.poller.pollFunction.function.node.defaultChild as CfnFunction;
      const variables = (stack.resolve(poll.environment) as { variables: Record<string, string> }).variables;
      const alarm = pipeline.monitoring.alarms['PollFailures']!.node.defaultChild as CfnAlarm;
      const alarmDimensions = template.toJSON().Resources[stack.resolve(alarm.logicalId)].Properties
        .Dimensions as { Name: string; Value: string }[];
      return {
        emitted: variables[METRICS.serviceNameVariable],
        watched: alarmDimensions.find((d) => d.Name === 'service')?.Value,
      };
    });

    // Assess
    expect(dimensions[0]!.emitted).not.toBe(dimensions[1]!.emitted);
    for (const { emitted, watched } of dimensions) expect(watched).toBe(emitted);
  });

  it('writes stack outputs that `idv --stack … --pipeline ID` tells apart', () => {
    // Prepare
    const stack = new Stack(newApp(), 'TeamA');
    new IdvPipeline(stack, 'Blue', BASE);
    new IdvPipeline(stack, 'Green', { ...BASE, environmentName: 'green', serviceEnvironment: 'staging' });
    const outputs = Object.fromEntries(
      Object.entries(Template.fromStack(stack).toJSON().Outputs as Record<string, unknown>).map(([key]) => [
        key,
        `value of ${key}`,
      ]),
    );

    // Act
    const green = pipelineOutputs(outputs, 'Green', 'stack TeamA', 'results list');
    const unnamed = () => pipelineOutputs(outputs, undefined, 'stack TeamA', 'results list');

    // Assess
    expect(Object.keys(green).sort()).toEqual([...OUTPUT_KEYS].sort());
    expect(green.ResultsTableName).toMatch(/^value of GreenResultsTableName[0-9A-F]{8}$/);
    expect(unnamed).toThrow('holds 2 pipelines (Blue, Green)');
  });

  it("leaves the account's API Gateway logging role to the landing zone when asked", () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'LandingZone');

    // Act
    const pipeline = new IdvPipeline(stack, 'P', { ...BASE, apiGatewayAccountRole: false });
    app.synth();

    // Assess
    Template.fromStack(stack).resourceCountIs('AWS::ApiGateway::Account', 0);
    expect(nagFindings(pipeline)).toEqual([]);
  });

  it('refuses a name prefix AWS names could not carry', () => {
    // Act
    const build = () => new IdvPipeline(new Stack(newApp(), 'S'), 'P', { ...BASE, namePrefix: 'Team_A' });

    // Assess
    expect(build).toThrow(IdvPipelineValidationError);
    expect(build).toThrow(
      'IdvPipeline: namePrefix must be 1-40 lower-case letters, digits and dashes, starting with a letter (S/P)',
    );
  });

  it("fixes today's names only when a prefix is given", () => {
    // Prepare
    const stack = new Stack(newApp(), 'Named');

    // Act
    new IdvPipeline(stack, 'Pipeline', { ...BASE, namePrefix: 'idv-pipeline-staging' });
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'idv-pipeline-staging' });
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'idv-pipeline-staging' });
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'idv-pipeline-staging-webhooks' });
  });
});

describe('IdvPipeline, permissions boundary', () => {
  it('reaches every role, the nested analytics stack and the API Gateway logging role included', () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'Bounded');
    const boundary = new iam.ManagedPolicy(stack, 'Boundary', {
      statements: [new iam.PolicyStatement({ actions: ['*'], resources: ['*'] })],
    });
    new IdvPipeline(stack, 'Pipeline', BASE);

    // Act
    iam.PermissionsBoundary.of(stack).apply(boundary);
    app.synth();
    const roles = templatesOf(stack).flatMap((t) => Object.values(t.findResources('AWS::IAM::Role')));

    // Assess
    expect(roles.length).toBeGreaterThanOrEqual(5);
    for (const role of roles) expect(role.Properties.PermissionsBoundary).toBeDefined();
  });
});

describe('IdvPipeline, existing resources', () => {
  function withExisting() {
    const app = newApp();
    const stack = new Stack(app, 'Platform');
    const key = new kms.Key(stack, 'PlatformKey', { enableKeyRotation: true });
    const bucket = new s3.Bucket(stack, 'PlatformBucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: key,
      enforceSSL: true,
    });
    const bus = new events.EventBus(stack, 'PlatformBus', { kmsKey: key });
    const topic = new sns.Topic(stack, 'OnCall', { masterKey: key });
    const pipeline = new IdvPipeline(stack, 'Pipeline', {
      ...BASE,
      encryptionKey: key,
      dataBucket: bucket,
      eventBus: bus,
      alarmTopic: topic,
    });
    return { app, stack, key, bucket, bus, topic, pipeline };
  }

  it('uses the given key, bucket, bus and topic instead of creating its own', () => {
    // Prepare
    const { stack, pipeline, bucket, bus, topic, key } = withExisting();

    // Act
    const template = Template.fromStack(stack);
    const fetchResult = pipeline.resultFetcher.fetchResultFunction.function.node.defaultChild as CfnFunction;
    const variables = (stack.resolve(fetchResult.environment) as { variables: Record<string, unknown> })
      .variables;

    // Assess
    template.resourceCountIs('AWS::KMS::Key', 1);
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.resourceCountIs('AWS::SNS::Topic', 1);
    expect(pipeline.encryptionKey).toBe(key);
    expect(pipeline.dataBucket).toBe(bucket);
    expect(pipeline.eventBus).toBe(bus);
    expect(pipeline.alarmTopic).toBe(topic);
    expect(variables[ENV.dataBucketName]).toEqual(stack.resolve(bucket.bucketName));
    expect(variables[ENV.eventBusName]).toEqual(stack.resolve(bus.eventBusName));
  });

  it("adds the services' statements to a key of the app and stays nag-clean", () => {
    // Prepare
    const { app, stack, pipeline } = withExisting();

    // Act
    const template = Template.fromStack(stack);
    const keyPolicy = JSON.stringify(Object.values(template.findResources('AWS::KMS::Key'))[0]);
    app.synth();

    // Assess
    expect(keyPolicy).toContain('logs.');
    expect(keyPolicy).toContain('cloudwatch.amazonaws.com');
    expect(dependencyCycle(template)).toEqual([]);
    expect(nagFindings(pipeline)).toEqual([]);
  });

  it('acknowledges exactly its prefix grants on a bucket imported by name', () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'Imported');
    const bucket = s3.Bucket.fromBucketName(stack, 'Results', 'platform-results');

    // Act
    const pipeline = new IdvPipeline(stack, 'Pipeline', { ...BASE, dataBucket: bucket });
    app.synth();

    // Assess
    expect(pipeline.dataBucket.bucketName).toBe('platform-results');
    expect(nagFindings(pipeline)).toEqual([]);
  });

  it('requires an alarm target in production, and takes the given topic as one', () => {
    // Prepare
    const production = { ...BASE, environmentName: 'production', serviceBaseUrl: 'https://api.idv.eu' };

    // Act
    const bare = () => new IdvPipeline(new Stack(newApp(), 'Bare'), 'Pipeline', production);
    const withTopic = () => {
      const stack = new Stack(newApp(), 'WithTopic');
      return new IdvPipeline(stack, 'Pipeline', {
        ...production,
        alarmTopic: sns.Topic.fromTopicArn(stack, 'OnCall', 'arn:aws:sns:eu-west-1:123456789012:on-call'),
      });
    };

    // Assess
    expect(bare).toThrow(IdvPipelineValidationError);
    expect(withTopic).not.toThrow();
  });
});

describe('IdvPipeline, in a VPC', () => {
  it('runs every function in the private subnets with the endpoints they use, nag-clean', () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'Networked');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    // The VPC is the platform's (its flow logs too): only the pipeline's resources are checked here.
    vpc.addFlowLog('FlowLog');

    // Act
    const pipeline = new IdvPipeline(stack, 'Pipeline', { ...BASE, vpc });
    app.synth();
    const templates = templatesOf(stack);
    const functions = templates.flatMap((t) => Object.values(t.findResources('AWS::Lambda::Function')));
    const endpoints = Template.fromStack(stack).findResources('AWS::EC2::VPCEndpoint');
    const services = Object.values(endpoints).map((e) => JSON.stringify(e.Properties.ServiceName));

    // Assess
    expect(functions).toHaveLength(5);
    for (const fn of functions) expect(fn.Properties.VpcConfig.SubnetIds).toBeDefined();
    for (const service of ['s3', 'dynamodb', 'sqs', 'secretsmanager', 'events', 'xray']) {
      expect(services.some((name) => name.includes(`.${service}`))).toBe(true);
    }
    expect(pipeline.functionSecurityGroup).toBeDefined();
    expect(nagFindings(pipeline)).toEqual([]);
  });
});

/** Endpoints per service name (`com.amazonaws.<region>.sqs`…) across `templates`. */
function endpointsPerService(templates: Template[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const template of templates) {
    for (const endpoint of Object.values(template.findResources('AWS::EC2::VPCEndpoint'))) {
      const service = JSON.stringify(endpoint.Properties.ServiceName).replace(/.*\.([a-z0-9]+)\W*$/, '$1');
      counts[service] = (counts[service] ?? 0) + 1;
    }
  }
  return counts;
}

describe('IdvPipeline, two in one VPC', () => {
  const ONE_EACH = { s3: 1, dynamodb: 1, sqs: 1, secretsmanager: 1, events: 1, xray: 1 };

  it('shares the endpoints of one stack: one per service, both security groups admitted', () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'Shared');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });

    // Act
    new IdvPipeline(stack, 'Blue', { ...BASE, vpc });
    new IdvPipeline(stack, 'Green', {
      ...BASE,
      environmentName: 'green',
      serviceEnvironment: 'staging',
      vpc,
    });
    const template = Template.fromStack(stack);
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'));

    // Assess
    expect(endpointsPerService([template])).toEqual(ONE_EACH);
    // Four interface endpoints, each admitting both pipelines' functions on 443.
    expect(ingress.filter((rule) => rule.Properties.FromPort === 443)).toHaveLength(8);
  });

  it('takes IdvPipelineVpcEndpoints owned by another stack, creating none of its own', () => {
    // Prepare
    const app = newApp();
    const network = new Stack(app, 'Network');
    const vpc = new ec2.Vpc(network, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const endpoints = new IdvPipelineVpcEndpoints(network, 'Endpoints', { vpc });
    const teamA = new Stack(app, 'TeamA');
    const teamB = new Stack(app, 'TeamB');

    // Act
    new IdvPipeline(teamA, 'Pipeline', { ...BASE, vpc, vpcEndpoints: endpoints });
    new IdvPipeline(teamB, 'Pipeline', { ...BASE, vpc, vpcEndpoints: endpoints });
    const [net, a, b] = [network, teamA, teamB].map((stack) => Template.fromStack(stack));

    // Assess
    expect(endpointsPerService([net!, a!, b!])).toEqual(ONE_EACH);
    expect(endpointsPerService([a!, b!])).toEqual({});
  });

  it('refuses endpoints of another VPC', () => {
    // Prepare
    const stack = new Stack(newApp(), 'Mixed');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const other = new ec2.Vpc(stack, 'Other', { maxAzs: 2, natGateways: 1 });
    const endpoints = new IdvPipelineVpcEndpoints(stack, 'Endpoints', { vpc: other });

    // Act
    const build = () => new IdvPipeline(stack, 'Pipeline', { ...BASE, vpc, vpcEndpoints: endpoints });

    // Assess
    expect(build).toThrow(/IdvPipeline: vpcEndpoints must be the endpoints of the pipeline's vpc/);
  });
});

describe('IdvPipeline, grants', () => {
  it('lets a reader get and query results and read their objects, nothing else', () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'Readers');
    const pipeline = new IdvPipeline(stack, 'Pipeline', BASE);
    const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });

    // Act
    pipeline.grantReadResults(reader);
    pipeline.grantReadAnalytics(reader);
    app.synth();
    const template = Template.fromStack(stack);
    const statements: IamStatement[] = statementsOfRole(
      template,
      stack.resolve((reader.node.defaultChild as iam.CfnRole).logicalId) as string,
    );
    const actions = statements.flatMap(actionsOf);

    // Assess
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:GetItem', 's3:GetObject']));
    expect(actions).toEqual(expect.arrayContaining(['athena:StartQueryExecution']));
    expect(actions.filter((a) => /Put|Delete|Update|Write|secretsmanager|sqs:/.test(a))).toEqual([
      's3:PutObject',
    ]);
    expect(nagFindings(reader)).toEqual([]);
  });

  it('lets only the erasure grantee erase: no function role and no analyst can delete an object version', () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'Erasers');
    const pipeline = new IdvPipeline(stack, 'Pipeline', BASE);
    const operators = new iam.Role(stack, 'Operators', { assumedBy: new iam.AccountRootPrincipal() });
    const analyst = new iam.Role(stack, 'Analyst', { assumedBy: new iam.AccountRootPrincipal() });

    // Act
    pipeline.grantErase(operators);
    pipeline.grantReadAnalytics(analyst);
    app.synth();
    const templates = templatesOf(stack);
    const erasePolicyId = stack.resolve(
      (pipeline.erasure.policy.node.defaultChild as iam.CfnManagedPolicy).logicalId,
    ) as string;
    const statementsOf = (type: string, except?: string) =>
      templates.flatMap((t) =>
        Object.entries(t.findResources(type))
          .filter(([id]) => id !== except)
          .flatMap(([, r]) => r.Properties.PolicyDocument.Statement as IamStatement[]),
      );
    const erases = (a: string) => a === 's3:DeleteObjectVersion' || a === 's3:DeleteObject*' || a === 's3:*';

    // Assess: the inline policies (every function role, Firehose, the optimizer, the analyst grant) and
    // the other managed policies (the analyst policy) hold no version delete; the erasure policy does.
    expect(statementsOf('AWS::IAM::Policy').flatMap(actionsOf).filter(erases)).toEqual([]);
    expect(statementsOf('AWS::IAM::ManagedPolicy', erasePolicyId).flatMap(actionsOf).filter(erases)).toEqual(
      [],
    );
    const root = Template.fromStack(stack);
    expect(
      (root.toJSON().Resources[erasePolicyId].Properties.PolicyDocument.Statement as IamStatement[]).flatMap(
        actionsOf,
      ),
    ).toContain('s3:DeleteObjectVersion');
    const holders = Object.entries(root.findResources('AWS::IAM::Role'))
      .filter(([, r]) => JSON.stringify(r.Properties.ManagedPolicyArns ?? []).includes(erasePolicyId))
      .map(([id]) => id);
    expect(holders).toEqual([stack.resolve((operators.node.defaultChild as iam.CfnRole).logicalId)]);
    const outputs = Object.entries(root.toJSON().Outputs as Record<string, { Value: unknown }>);
    expect(outputs.find(([key]) => key.startsWith('PipelineErasurePolicyArn'))?.[1].Value).toEqual({
      Ref: erasePolicyId,
    });
    expect(nagFindings(operators)).toEqual([]);
  });

  it('alarms on analytics delivery, polling metadata and retention through the alarm topic', () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'Watched');

    // Act
    const pipeline = new IdvPipeline(stack, 'Pipeline', BASE);
    app.synth();
    const alarms = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm')).map(
      (a) => a.Properties as Record<string, unknown>,
    );
    const topic = stack.resolve(pipeline.alarmTopic.topicArn);
    const byMetric = (name: string) => alarms.find((a) => a['MetricName'] === name);

    // Assess
    for (const name of [
      'DeliveryToIceberg.FailedRowCount',
      METRICS.names.pollMetadataFailures,
      METRICS.names.resultsWithoutPollRecord,
      'ResultsPastRetention',
    ]) {
      const alarm = byMetric(name);
      expect(alarm, name).toBeDefined();
      expect(alarm!['AlarmActions'], name).toEqual([topic]);
    }
    expect(byMetric('DeliveryToIceberg.FailedRowCount')!['Namespace']).toBe('AWS/Firehose');
    expect(byMetric('ResultsPastRetention')!['Dimensions']).toEqual(
      expect.arrayContaining([{ Name: 'service', Value: pipeline.settings.metricsServiceName }]),
    );
  });

  it('puts analytics into the pipeline stack itself when asked, still nag-clean', () => {
    // Prepare
    const app = newApp();
    const stack = new Stack(app, 'Flat');

    // Act
    const pipeline = new IdvPipeline(stack, 'Pipeline', { ...BASE, analytics: { nestedStack: false } });
    app.synth();

    // Assess
    Template.fromStack(stack).resourceCountIs('AWS::Athena::WorkGroup', 1);
    Template.fromStack(stack).resourceCountIs('AWS::CloudFormation::Stack', 0);
    expect(nagFindings(pipeline)).toEqual([]);
  });

  it('refuses an analytics grant when analytics is off', () => {
    // Prepare
    const stack = new Stack(newApp(), 'NoAnalytics');
    const pipeline = new IdvPipeline(stack, 'Pipeline', { ...BASE, analytics: false });

    // Act
    const grant = () =>
      pipeline.grantReadAnalytics(new iam.Role(stack, 'R', { assumedBy: new iam.AccountRootPrincipal() }));

    // Assess
    expect(grant).toThrow(/analytics/);
    Template.fromStack(stack).resourceCountIs('AWS::Athena::WorkGroup', 0);
  });
});
