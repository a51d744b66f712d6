/**
 * The AWS side of issue 22, synthesised alone (IdvPipeline composes it: idv-pipeline.test.ts): result events →
 * Firehose (SSE with the stack key) → the Iceberg table in Glue (Parquet, day partition, result_id as
 * unique key), compaction, the results view and saved queries in the encrypted workgroup, and an analyst
 * policy that reaches only the table, the view and the query results.
 */
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEnvironments } from '../../infra/config';
import { AnalyticsIceberg, ICEBERG_TABLE_PREFIX } from '../../infra/constructs/analytics-iceberg';
import { ResourceNames } from '../../infra/resource-names';
import { PROJECTION_COLUMNS } from '../../shared/analytics/columns';
import { SAVED_QUERY_NAMES } from '../../shared/analytics/queries';
import { DETAIL_TYPES } from '../../shared/events/names';
import { cdkJsonContext } from './stack-fixture';

let template: Template;
let stack: Stack;

beforeAll(() => {
  const context = cdkJsonContext();
  const environments = context['environments'] as Record<string, Record<string, unknown>>;
  const [config] = loadEnvironments({ production: environments['production'] }, 'production');
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  stack = new Stack(app, 'AnalyticsIcebergTest', { env: { account: '111122223333', region: 'eu-west-1' } });
  const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  const bus = new events.EventBus(stack, 'Bus', { eventBusName: 'idv-test-bus' });
  const logged: string[] = [];
  new AnalyticsIceberg(stack, 'Analytics', {
    functionSettings: config!,
    retentionDays: config!.retentionDays,
    eventCustomerReference: config!.eventCustomerReference,
    encryptionKey: key,
    bus,
    names: new ResourceNames(stack, 'idv-pipeline-production'),
    accessLogs: { logAccessOf: (_bucket: s3.Bucket, prefix: string) => logged.push(prefix) },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  template = Template.fromStack(stack);
});

const keyArn = () => ({ 'Fn::GetAtt': [Match.stringLikeRegexp('^Key'), 'Arn'] });

describe('analytics on Iceberg', () => {
  it('delivers the three result events from the bus to the delivery stream', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.stringLikeRegexp('^Bus') },
      EventPattern: {
        'detail-type': [
          DETAIL_TYPES.resultStored,
          DETAIL_TYPES.resultUnavailable,
          DETAIL_TYPES.resultChanged,
        ],
      },
      Targets: [
        Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeliveryStream'), 'Arn'] } }),
      ],
    });
  });

  it('encrypts the stream with the stack key and writes the Iceberg table with result_id and version as unique key', () => {
    template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      DeliveryStreamType: 'DirectPut',
      DeliveryStreamEncryptionConfigurationInput: { KeyType: 'CUSTOMER_MANAGED_CMK', KeyARN: keyArn() },
      IcebergDestinationConfiguration: Match.objectLike({
        AppendOnly: false,
        DestinationTableConfigurationList: [
          Match.objectLike({
            DestinationDatabaseName: 'idv_pipeline_production',
            DestinationTableName: 'result_rows',
            UniqueKeys: ['result_id', 'version'],
          }),
        ],
        ProcessingConfiguration: Match.objectLike({ Enabled: true }),
        S3Configuration: Match.objectLike({
          EncryptionConfiguration: { KMSEncryptionConfig: { AWSKMSKeyARN: keyArn() } },
        }),
      }),
    });
  });

  it('creates an Iceberg v2 table of every projection column, Parquet, partitioned by day, result_id its identifier', () => {
    const tables = template.findResources('AWS::Glue::Table', {
      Properties: { OpenTableFormatInput: Match.anyValue() },
    });
    const [table] = Object.values(tables);
    const input = table!['Properties'].OpenTableFormatInput.IcebergInput;
    expect(input).toMatchObject({ MetadataOperation: 'CREATE', Version: '2' });
    const { Schema, PartitionSpec, Properties } = input.IcebergTableInput;
    expect(Schema.Fields.map((f: { Name: string }) => f.Name)).toEqual(PROJECTION_COLUMNS.map((c) => c.name));
    const resultId = Schema.Fields.find((f: { Name: string }) => f.Name === 'result_id');
    expect(resultId).toMatchObject({ Required: true });
    expect(Schema.IdentifierFieldIds).toEqual([resultId.Id]);
    const day = Schema.Fields.find((f: { Name: string }) => f.Name === 'day');
    expect(PartitionSpec.Fields).toEqual([
      expect.objectContaining({ Name: 'day', SourceId: day.Id, Transform: 'identity' }),
    ]);
    expect(Properties).toMatchObject({ 'write.format.default': 'parquet' });
    expect(JSON.stringify(input.IcebergTableInput.Location)).toContain(ICEBERG_TABLE_PREFIX);
  });

  it('compacts, expires snapshots and deletes orphan files with Glue table optimizers', () => {
    for (const type of ['compaction', 'retention', 'orphan_file_deletion']) {
      template.hasResourceProperties('AWS::Glue::TableOptimizer', {
        TableName: 'result_rows',
        Type: type,
        TableOptimizerConfiguration: Match.objectLike({ Enabled: true }),
      });
    }
  });

  it("lets the optimizers read and rewrite the table's SSE-KMS files: the key through S3", () => {
    // The optimizer role is the only role Glue assumes here.
    const [roleId] = Object.keys(
      template.findResources('AWS::IAM::Role', {
        Properties: {
          AssumeRolePolicyDocument: {
            Statement: [Match.objectLike({ Principal: { Service: 'glue.amazonaws.com' } })],
          },
        },
      }),
    );
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: roleId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            Resource: keyArn(),
            Condition: { StringEquals: { 'kms:ViaService': Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it('keeps the table in a KMS-encrypted, TLS-only bucket', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: keyArn() },
            BucketKeyEnabled: true,
          },
        ],
      },
    });
    expect(JSON.stringify(template.findResources('AWS::S3::BucketPolicy'))).toContain(
      '"aws:SecureTransport":"false"',
    );
  });

  it('defines the results view and every saved query in the enforced, SSE-KMS workgroup', () => {
    template.hasResourceProperties('AWS::Glue::Table', {
      TableInput: Match.objectLike({ Name: 'results', TableType: 'VIRTUAL_VIEW' }),
    });
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: Match.objectLike({
        EnforceWorkGroupConfiguration: true,
        ResultConfiguration: Match.objectLike({
          EncryptionConfiguration: { EncryptionOption: 'SSE_KMS', KmsKey: keyArn() },
        }),
      }),
    });
    const queries = Object.values(template.findResources('AWS::Athena::NamedQuery'));
    expect(queries.map((q) => q['Properties'].Name).sort()).toEqual([...SAVED_QUERY_NAMES].sort());
  });

  it('gives the transform nothing but its logs, and tells it the table and the customer-reference setting', () => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function')).find((f) =>
      JSON.stringify(f['Properties'].Environment ?? {}).includes('IDV_ANALYTICS_TABLE'),
    );
    expect(fn!['Properties'].Environment.Variables).toMatchObject({
      IDV_ANALYTICS_DATABASE: 'idv_pipeline_production',
      IDV_ANALYTICS_TABLE: 'result_rows',
      IDV_EVENT_CUSTOMER_REFERENCE: 'omit',
    });
  });

  it('lets analysts reach only the workgroup, the table, the view, the table files and the query results', () => {
    const [policy] = Object.values(template.findResources('AWS::IAM::ManagedPolicy'));
    const statements = policy!['Properties'].PolicyDocument.Statement as {
      Sid: string;
      Action: string[] | string;
      Resource: unknown;
    }[];
    const text = JSON.stringify(statements);
    expect(statements.map((s) => s.Sid).sort()).toEqual(
      [
        'AthenaWorkgroup',
        'GlueCatalog',
        'KeyThroughS3ForAnalyticsObjects',
        'ListAnalyticsBucket',
        'QueryResults',
        'ReadTable',
      ].sort(),
    );
    expect(text).not.toMatch(/firehose|lambda|dynamodb|secretsmanager|sqs|glue:UpdateTable|s3:DeleteObject/i);
    expect(text).toContain(`${ICEBERG_TABLE_PREFIX}*`);
    expect(text).toContain('athena-results/*');
    expect(text).toContain('table/idv_pipeline_production/result_rows');
    expect(text).toContain('table/idv_pipeline_production/results"');
  });
});
