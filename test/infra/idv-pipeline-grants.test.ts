import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { IdvPipeline } from '../../infra/idv-pipeline';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { type IamStatement, statementsOfRole } from './stack-fixture';

/** A pipeline and a reader role in one stack, the grant applied, and the role's statements resolved. */
function granted(grant: (pipeline: IdvPipeline, reader: iam.Role) => void) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Readers');
  const pipeline = new IdvPipeline(stack, 'Pipeline', {
    environmentName: 'staging',
    serviceBaseUrl: 'https://api.idv.eu',
    retention: Duration.days(30),
    removalPolicy: RemovalPolicy.DESTROY,
    analytics: false,
  });
  const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
  grant(pipeline, reader);
  const template = Template.fromStack(stack);
  const statements = statementsOfRole(
    template,
    stack.resolve((reader.node.defaultChild as iam.CfnRole).logicalId),
  );
  return { stack, pipeline, template, statements };
}

/** Statements as `{ actions, resources, condition }` with tokens resolved, for exact comparison. */
function shapes(statements: IamStatement[]) {
  return statements.map((s) => {
    const raw = s as IamStatement & { Condition?: unknown };
    return {
      actions: [raw.Action].flat().sort(),
      resources: [raw.Resource].flat(),
      condition: raw.Condition,
    };
  });
}

function arn(stack: Stack, construct: { node: { defaultChild?: unknown } }): unknown {
  return {
    'Fn::GetAtt': [stack.resolve((construct.node.defaultChild as { logicalId: string }).logicalId), 'Arn'],
  };
}

const VIA = (service: string) => ({
  StringEquals: {
    'kms:ViaService': { 'Fn::Join': ['', [`${service}.`, { Ref: 'AWS::Region' }, '.amazonaws.com']] },
  },
});

describe('IdvPipeline grants for downstream readers', () => {
  it('grantReadTable: gets and queries of the table and its indexes, the key only through DynamoDB', () => {
    // Act
    const { stack, pipeline, statements } = granted((p, reader) => p.grantReadTable(reader));
    const table = arn(stack, pipeline.resultsTable as dynamodb.Table);

    // Assess
    expect(shapes(statements)).toEqual([
      {
        actions: ['dynamodb:BatchGetItem', 'dynamodb:DescribeTable', 'dynamodb:GetItem', 'dynamodb:Query'],
        resources: [table, { 'Fn::Join': ['', [table, '/index/*']] }],
        condition: undefined,
      },
      {
        actions: ['kms:Decrypt', 'kms:DescribeKey'],
        resources: [arn(stack, pipeline.encryptionKey as kms.Key)],
        condition: VIA('dynamodb'),
      },
    ]);
  });

  it('grantReadResultObjects: objects under results/ only, decrypted only through S3', () => {
    // Act
    const { stack, pipeline, statements } = granted((p, reader) => p.grantReadResultObjects(reader));
    const bucket = arn(stack, pipeline.dataBucket as s3.Bucket);

    // Assess
    expect(shapes(statements)).toEqual([
      {
        actions: ['s3:GetObject'],
        resources: [{ 'Fn::Join': ['', [bucket, '/results/*']] }],
        condition: undefined,
      },
      {
        actions: ['kms:Decrypt'],
        resources: [arn(stack, pipeline.encryptionKey as kms.Key)],
        condition: VIA('s3'),
      },
    ]);
  });

  it('grantReadResults: exactly the two grants together', () => {
    // Act
    const both = granted((p, reader) => p.grantReadResults(reader)).statements;
    const table = granted((p, reader) => p.grantReadTable(reader)).statements;
    const objects = granted((p, reader) => p.grantReadResultObjects(reader)).statements;

    // Assess
    expect(shapes(both)).toEqual([...shapes(table), ...shapes(objects)]);
  });

  it('addResultRule: a rule on the pipeline bus for its source and the asked detail types, to the target', () => {
    // Act
    let inbox: sqs.Queue | undefined;
    const { stack, pipeline, template } = granted((p, reader) => {
      const scope = Stack.of(reader);
      inbox = new sqs.Queue(scope, 'Inbox', { enforceSSL: true });
      p.addResultRule(scope, 'Stored', new targets.SqsQueue(inbox), [DETAIL_TYPES.resultStored]);
    });

    // Assess
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: stack.resolve(pipeline.eventBus.eventBusName),
      EventPattern: { source: [EVENT_SOURCE], 'detail-type': ['VerificationResultStored'] },
      Targets: [Match.objectLike({ Arn: arn(stack, inbox!) })],
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'events.amazonaws.com' } })]),
      },
    });
  });
});
