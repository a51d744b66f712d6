/**
 * Several pipelines, one account: one, two and three pipelines in one stack, and spread over two stacks of
 * one app, create each account- or region-wide singleton once (`AWS::ApiGateway::Account` and the
 * CloudWatch Logs role it names) and each VPC endpoint once per VPC and service.
 */
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { describe, expect, it } from 'vitest';
import { IdvPipeline } from '../../infra/idv-pipeline';
import type { IdvPipelineProps } from '../../infra/idv-pipeline-props';

const BASE: IdvPipelineProps = {
  environmentName: 'staging',
  serviceBaseUrl: 'https://staging.service.example',
  retention: Duration.days(30),
  removalPolicy: RemovalPolicy.DESTROY,
  analytics: false,
};

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DependsOn?: string[];
}

/** Every resource of every stack of `app` (nested stacks included), each with its stack. */
function resourcesOf(app: App): { stack: Stack; id: string; resource: Resource }[] {
  const stacks = app.node.findAll().filter((c): c is Stack => c instanceof Stack);
  return stacks.flatMap((stack) =>
    Object.entries((Template.fromStack(stack).toJSON()['Resources'] ?? {}) as Record<string, Resource>).map(
      ([id, resource]) => ({ stack, id, resource }),
    ),
  );
}

/** How many of each singleton `app` creates: the account setting, its role, and endpoints by service. */
function singletons(app: App) {
  const resources = resourcesOf(app).map((r) => r.resource);
  const pushRoles = resources.filter(
    (r) =>
      r.Type === 'AWS::IAM::Role' &&
      JSON.stringify(r.Properties?.['ManagedPolicyArns'] ?? []).includes(
        'AmazonAPIGatewayPushToCloudWatchLogs',
      ),
  );
  const endpoints: Record<string, number> = {};
  for (const r of resources.filter((x) => x.Type === 'AWS::EC2::VPCEndpoint')) {
    // `com.amazonaws.<region>.<service>`, the region a reference: the service is the last segment.
    const service = /\.([a-z0-9-]+)"?\]*\}?$/.exec(JSON.stringify(r.Properties?.['ServiceName']))?.[1] ?? '?';
    endpoints[service] = (endpoints[service] ?? 0) + 1;
  }
  return {
    apiGatewayAccounts: resources.filter((r) => r.Type === 'AWS::ApiGateway::Account').length,
    cloudWatchRoles: pushRoles.length,
    stages: resources.filter((r) => r.Type === 'AWS::ApiGateway::Stage').length,
    endpoints,
  };
}

/** `count` pipelines in a shared VPC, spread over `stacks` stacks of one app (round-robin). */
function pipelines(count: number, stacks: number) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const network = new Stack(app, 'Network');
  const vpc = new ec2.Vpc(network, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const owners = Array.from({ length: stacks }, (_, i) => new Stack(app, `Team${i + 1}`));
  for (let i = 0; i < count; i++) {
    new IdvPipeline(owners[i % stacks]!, `Pipeline${i + 1}`, { ...BASE, vpc });
  }
  return { app, owners };
}

describe('several pipelines in one account and region', () => {
  it.each([
    [1, 1],
    [2, 1],
    [3, 1],
    [2, 2],
    [3, 2],
  ])(
    '%i pipeline(s) in %i stack(s): one API Gateway account setting, one role, one endpoint per service',
    (count, stacks) => {
      // Act
      const { app } = pipelines(count, stacks);
      const found = singletons(app);

      // Assess
      expect(found.stages).toBe(count);
      expect(found.apiGatewayAccounts).toBe(1);
      expect(found.cloudWatchRoles).toBe(1);
      expect(Object.keys(found.endpoints).sort()).toEqual([
        'dynamodb',
        'events',
        's3',
        'secretsmanager',
        'sqs',
        'xray',
      ]);
      expect(Object.values(found.endpoints).every((n) => n === 1)).toBe(true);
    },
  );

  it('deploys every later stage after the account setting: in its stack by DependsOn, in another stack by stack order', () => {
    // Act
    const { app, owners } = pipelines(3, 2);
    const resources = resourcesOf(app);
    const account = resources.find((r) => r.resource.Type === 'AWS::ApiGateway::Account')!;
    const stages = resources.filter((r) => r.resource.Type === 'AWS::ApiGateway::Stage');

    // Assess
    expect(account.stack).toBe(owners[0]);
    for (const stage of stages) {
      if (stage.stack === account.stack) expect(stage.resource.DependsOn).toContain(account.id);
      else expect(stage.stack.dependencies).toContain(account.stack);
    }
  });

  it('keeps one account setting per account and region: stacks pinned to two regions get one each', () => {
    // Prepare
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    for (const region of ['eu-west-1', 'eu-central-1']) {
      const stack = new Stack(app, `Team-${region}`, { env: { account: '111111111111', region } });
      new IdvPipeline(stack, 'A', BASE);
      new IdvPipeline(stack, 'B', BASE);
    }

    // Act
    const found = singletons(app);

    // Assess
    expect(found.stages).toBe(4);
    expect(found.apiGatewayAccounts).toBe(2);
  });

  it('creates none where the landing zone owns the setting', () => {
    // Act
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Landing');
    new IdvPipeline(stack, 'A', { ...BASE, apiGatewayAccountRole: false });

    // Assess
    expect(singletons(app).apiGatewayAccounts).toBe(0);
    expect(singletons(app).cloudWatchRoles).toBe(0);
  });
});
