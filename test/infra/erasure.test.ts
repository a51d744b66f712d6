/**
 * The erasure construct in a bare stack (IdvPipeline composes it: idv-pipeline.test.ts): the managed
 * policy holds exactly what `idv results erase` needs, the retention check reads only and runs daily,
 * and its alarm fires on findings and on silence. Plus, over the app's pipeline stack: no function role
 * there (fetch-result's included) can delete an object version or write an erasure record.
 */
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEnvironments } from '../../infra/config';
import { Erasure } from '../../infra/constructs/erasure';
import { ANALYTICS_ENV, ENV } from '../../shared/config';
import { DETAIL_TYPES } from '../../shared/events/names';
import { actionsOf, cdkJsonContext, type IamStatement, synthesise } from './stack-fixture';

interface Statement extends IamStatement {
  readonly Sid?: string;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

function bareStack() {
  const context = cdkJsonContext();
  const environments = context['environments'] as Record<string, unknown>;
  const [config] = loadEnvironments({ staging: environments['staging'] }, 'staging');
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'ErasureTest', { env: { account: '123456789012', region: 'eu-west-1' } });
  const key = new kms.Key(stack, 'Key');
  const table = new dynamodb.Table(stack, 'Results', {
    partitionKey: { name: 'resultId', type: dynamodb.AttributeType.STRING },
    encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: key,
  });
  const markersTable = new dynamodb.Table(stack, 'Markers', {
    partitionKey: { name: 'resultId', type: dynamodb.AttributeType.STRING },
  });
  const dataBucket = new s3.Bucket(stack, 'Data', { versioned: true });
  const analyticsBucket = new s3.Bucket(stack, 'Analytics');
  const eventBus = new events.EventBus(stack, 'Bus');
  const queues = [new sqs.Queue(stack, 'Queue'), new sqs.Queue(stack, 'Dlq')];
  const operators = new iam.Role(stack, 'Operators', { assumedBy: new iam.AccountRootPrincipal() });
  const erasure = new Erasure(stack, 'Erasure', {
    functionSettings: config!,
    retentionDays: config!.retentionDays,
    table,
    markersTable,
    dataBucket,
    analyticsBucket,
    eventBus,
    queues,
    encryptionKey: key,
    logRemovalPolicy: RemovalPolicy.DESTROY,
  });
  erasure.grantErase(operators);
  return { stack, erasure, config: config!, template: Template.fromStack(stack) };
}

describe('Erasure construct', () => {
  let built: ReturnType<typeof bareStack>;
  let statements: Statement[];

  beforeAll(() => {
    built = bareStack();
    const policies = Object.values(built.template.findResources('AWS::IAM::ManagedPolicy'));
    expect(policies).toHaveLength(1);
    statements = policies[0]!.Properties.PolicyDocument.Statement as Statement[];
  });

  const bySid = (sid: string) => statements.find((s) => s.Sid === sid)!;

  it('grants exactly the erasure actions, each on its own resources', () => {
    // Act
    const actions = statements.flatMap(actionsOf).sort();

    // Assess
    expect([...new Set(actions)]).toEqual(
      [
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'events:PutEvents',
        'kms:Decrypt',
        'kms:DescribeKey',
        'kms:Encrypt',
        'kms:GenerateDataKey*',
        's3:AbortMultipartUpload',
        's3:DeleteObject',
        's3:DeleteObjectVersion',
        's3:ListBucket',
        's3:ListBucketMultipartUploads',
        's3:ListBucketVersions',
        'dynamodb:UpdateItem',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ReceiveMessage',
      ].sort(),
    );
    expect(statements.every((s) => s.Effect === 'Allow' && s.Resource !== '*')).toBe(true);
    expect(actions.some((a) => a.includes('*') && !a.startsWith('kms:GenerateDataKey'))).toBe(false);
    expect(JSON.stringify(statements)).not.toMatch(/s3:GetObject|s3:PutObject|dynamodb:Scan|sqs:SendMessage/);
  });

  it('updates only publication records (the fence) and reaches only the two queues', () => {
    // Assess
    expect(bySid('FencePublication').Action).toBe('dynamodb:UpdateItem');
    expect(bySid('FencePublication').Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['*#publication'] },
    });
    expect((bySid('PurgeErasedMessages').Resource as unknown[]).length).toBe(2);
    expect(bySid('QueueKey').Condition).toEqual({
      StringEquals: { 'kms:ViaService': 'sqs.eu-west-1.amazonaws.com' },
    });
  });

  it('deletes object versions only under results/ and staging/, and lists only there', () => {
    // Assess
    const deletes = bySid('DeleteResultObjects');
    expect(JSON.stringify(deletes.Resource)).toMatch(/\/results\/\*/);
    expect(JSON.stringify(deletes.Resource)).toMatch(/\/staging\/\*/);
    expect((deletes.Resource as unknown[]).length).toBe(2);
    expect(bySid('ListResultObjects').Condition).toEqual({
      StringLike: { 's3:prefix': ['results/*', 'staging/*'] },
    });
    expect(JSON.stringify(bySid('AbortStagedUploads').Resource)).toMatch(/\/staging\/\*/);
    expect(JSON.stringify(bySid('DeleteProjectionRows').Resource)).toMatch(/\/analytics\/results\/\*/);
  });

  it('writes only erasure records and publishes only VerificationResultErased', () => {
    // Assess
    expect(bySid('WriteErasureRecord').Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['*#erasure'] },
    });
    expect(bySid('PublishErased').Condition).toEqual({
      StringEquals: { 'events:detail-type': DETAIL_TYPES.resultErased, 'events:source': 'idv.pipeline' },
    });
  });

  it('is attached by grantErase only', () => {
    // Assess
    const roles = built.template.findResources('AWS::IAM::Role');
    const holders = Object.entries(roles).filter(([, role]) =>
      JSON.stringify(role.Properties.ManagedPolicyArns ?? []).includes('ErasePolicy'),
    );
    expect(holders.map(([id]) => id)).toEqual([expect.stringMatching(/^Operators/)]);
  });

  it('runs a read-only retention check daily with the stack retention', () => {
    // Assess
    const { template, config } = built;
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [ENV.retentionDays]: String(config.retentionDays),
          [ENV.resultsTableName]: Match.anyValue(),
          [ENV.dataBucketName]: Match.anyValue(),
          [ANALYTICS_ENV.analyticsBucketName]: Match.anyValue(),
        }),
      },
      Timeout: 600,
    });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'cron(17 3 * * ? *)' });
    const checkPolicies = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes('RetentionCheck'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    const actions = new Set(checkPolicies.flatMap(actionsOf));
    expect(actions.has('dynamodb:Scan')).toBe(true);
    for (const write of [
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      's3:DeleteObject',
      's3:GetObject',
      'events:PutEvents',
    ])
      expect(actions.has(write), write).toBe(false);
  });

  it('alarms when anything is past retention, and when the check did not report', () => {
    // Assess
    built.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ResultsPastRetention',
      Namespace: 'IdvPipeline',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'breaching',
      Period: 86_400,
      Dimensions: Match.arrayWith([{ Name: 'environment', Value: built.config.serviceEnvironment }]),
    });
  });
});

describe("the app's pipeline stack", () => {
  it('gives no role a way to erase: no DeleteObjectVersion, no erasure record', () => {
    // Prepare
    const { template } = synthesise('staging');

    // Act
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as Statement[],
    );

    // Assess
    const versionDeletes = statements.filter((s) =>
      actionsOf(s).some((a) => a === 's3:DeleteObjectVersion' || a === 's3:DeleteObject*' || a === 's3:*'),
    );
    expect(versionDeletes).toEqual([]);
    expect(JSON.stringify(statements)).not.toContain('#erasure');
  });
});
