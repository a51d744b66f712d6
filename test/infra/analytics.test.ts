import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECTION_COLUMNS } from '../../shared/analytics/columns';
import { SAVED_QUERY_NAMES } from '../../shared/analytics/queries';
import { ANALYTICS_ENV } from '../../shared/config';
import { DETAIL_TYPES } from '../../shared/events/names';
import {
  actionsOf,
  type IamStatement,
  type SynthesisedStack,
  statementsOfRole,
  synthesise,
} from './stack-fixture';

let synth: SynthesisedStack;
const logicalId = (construct: { node: { defaultChild?: unknown } }): string =>
  synth.stack.resolve((construct.node.defaultChild as CfnRole).logicalId) as string;

/** The nested analytics stack's template, with the parent's template and stack. */
let nested: Template;

beforeAll(() => {
  synth = synthesise('staging');
  nested = Template.fromStack(Stack.of(synth.stack.analytics));
});

describe('analytics: storage and query path', () => {
  it('keeps the projection in its own KMS-encrypted, TLS-only bucket with the data retention', () => {
    // Prepare
    const { analytics } = synth.stack;
    const bucket = nested.findResources('AWS::S3::Bucket')[logicalId(analytics.bucket)]!;

    // Assess
    expect(bucket['Properties'].BucketEncryption.ServerSideEncryptionConfiguration[0]).toMatchObject({
      ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: expect.anything() },
      BucketKeyEnabled: true,
    });
    expect(bucket['Properties'].LifecycleConfiguration.Rules[0]).toMatchObject({
      ExpirationInDays: synth.config.retentionDays,
    });
    expect(JSON.stringify(bucket['Properties'].PublicAccessBlockConfiguration)).not.toContain('false');
    const policies = Object.values(nested.findResources('AWS::S3::BucketPolicy')).filter(
      (p) => JSON.stringify(p['Properties'].Bucket) === JSON.stringify({ Ref: logicalId(analytics.bucket) }),
    );
    expect(JSON.stringify(policies)).toContain('"aws:SecureTransport":"false"');
  });

  it('enforces the workgroup configuration: SSE_KMS results with the stack key, in their own prefix', () => {
    // Assess
    nested.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: 'idv-pipeline-staging-analytics',
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        ResultConfiguration: {
          OutputLocation: {
            'Fn::Join': ['', ['s3://', { Ref: logicalId(synth.stack.analytics.bucket) }, '/athena-results/']],
          },
          EncryptionConfiguration: { EncryptionOption: 'SSE_KMS', KmsKey: Match.anyValue() },
        },
      },
    });
  });

  it('describes the projection with a Glue table: JSON SerDe, partition projection on day, every column', () => {
    // Prepare
    const table = synth.stack.analytics.table;
    const input = synth.stack.resolve(table.tableInput) as {
      name: string;
      parameters: Record<string, string>;
      partitionKeys: { name: string; type: string }[];
      storageDescriptor: {
        columns: { name: string; type: string }[];
        serdeInfo: { serializationLibrary: string };
      };
    };

    // Assess
    expect(input.name).toBe('results_raw');
    expect(input.parameters).toMatchObject({
      'projection.enabled': 'true',
      'projection.day.type': 'date',
      'projection.day.format': 'yyyy-MM-dd',
    });
    // A template literal with an escaped `${`: the Glue template holds the text ${day} itself.
    expect(JSON.stringify(input.parameters['storage.location.template'])).toContain(
      `/analytics/results/day=\${day}/`,
    );
    expect(input.partitionKeys).toEqual([{ name: 'day', type: 'string' }]);
    expect(input.storageDescriptor.serdeInfo.serializationLibrary).toBe(
      'org.apache.hive.hcatalog.data.JsonSerDe',
    );
    expect([...input.storageDescriptor.columns.map((c) => c.name), 'day'].sort()).toEqual(
      PROJECTION_COLUMNS.map((c) => c.name).sort(),
    );
    expect(input.storageDescriptor.columns.find((c) => c.name === 'completed')?.type).toBe('timestamp');
    expect(nested.findResources('AWS::Glue::Crawler')).toEqual({});
    expect(synth.template.findResources('AWS::Glue::Crawler')).toEqual({});
  });

  it('defines the results view in the encoding Athena reads, with every column in order', () => {
    // Prepare
    const input = synth.stack.resolve(synth.stack.analytics.view.tableInput) as {
      name: string;
      tableType: string;
      viewOriginalText: string;
    };
    const encoded = /^\/\* Presto View: (.+) \*\/$/.exec(input.viewOriginalText)?.[1];

    // Act
    const definition = JSON.parse(Buffer.from(encoded!, 'base64').toString('utf8'));

    // Assess
    expect(input).toMatchObject({ name: 'results', tableType: 'VIRTUAL_VIEW' });
    expect(definition).toMatchObject({ catalog: 'awsdatacatalog', schema: 'idv_pipeline_staging' });
    expect(definition.columns.map((c: { name: string }) => c.name)).toEqual(
      PROJECTION_COLUMNS.map((c) => c.name),
    );
    expect(definition.originalSql).toContain('FROM results_raw');
  });

  it('saves every query in the workgroup', () => {
    // Prepare
    const named = Object.values(nested.findResources('AWS::Athena::NamedQuery'));

    // Assess
    expect(named.map((q) => q['Properties'].Name).sort()).toEqual([...SAVED_QUERY_NAMES].sort());
    for (const query of named) {
      expect(query['Properties']).toMatchObject({
        WorkGroup: 'idv-pipeline-staging-analytics',
        Database: 'idv_pipeline_staging',
      });
    }
  });

  it('runs the projector on the result events, with retries and an encrypted DLQ', () => {
    // Prepare
    const { analytics } = synth.stack;
    const role = analytics.projector.function.role as unknown as { node: { defaultChild?: unknown } };
    const statements = statementsOfRole(nested, logicalId(role));

    // Assess
    nested.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['idv.pipeline'],
        'detail-type': [DETAIL_TYPES.resultStored, DETAIL_TYPES.resultUnavailable],
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [logicalId(analytics.projector.function as never), 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalId(analytics.deadLetterQueue), 'Arn'] } },
          RetryPolicy: Match.objectLike({ MaximumEventAgeInSeconds: 86400 }),
        }),
      ],
    });
    nested.hasResourceProperties('AWS::SQS::Queue', {
      KmsMasterKeyId: Match.anyValue(),
    });
    const s3 = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    expect(s3.flatMap(actionsOf)).toEqual(['s3:PutObject']);
    expect(JSON.stringify(s3[0]!.Resource)).toContain('/analytics/results/*');
    expect(statements.flatMap(actionsOf).filter((a) => /^(dynamodb|secretsmanager|events):/.test(a))).toEqual(
      [],
    );
    // SQS: only SendMessage, to its own dead-letter queue (the function's DLQ of failed invocations).
    const sqsStatements = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqsStatements.flatMap(actionsOf)).toEqual(['sqs:SendMessage']);
    expect(JSON.stringify(sqsStatements[0]!.Resource)).toContain('ProjectorDeadLetterQueue');
    const variables = Stack.of(analytics.bucket).resolve(
      (analytics.projector.function.node.defaultChild as unknown as { environment: unknown }).environment,
    ) as { variables: Record<string, unknown> };
    expect(variables.variables[ANALYTICS_ENV.analyticsBucketName]).toEqual({
      Ref: logicalId(analytics.bucket),
    });
  });
});

describe('the analyst policy', () => {
  const statements = (): IamStatement[] => {
    const policy =
      nested.findResources('AWS::IAM::ManagedPolicy')[
        logicalId(synth.stack.analytics.analystPolicy as never)
      ]!;
    return policy['Properties'].PolicyDocument.Statement as IamStatement[];
  };

  it('grants Athena on the workgroup, Glue on the database and its tables, and the analytics bucket', () => {
    // Act
    const actions = statements().flatMap(actionsOf);

    // Assess
    expect(actions).toEqual(
      expect.arrayContaining([
        'athena:StartQueryExecution',
        'athena:GetQueryResults',
        'glue:GetTable',
        's3:GetObject',
      ]),
    );
    for (const statement of statements()) expect(statement.Resource).not.toBe('*');
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('cannot reach the data bucket, the results table or the secrets', () => {
    // Prepare
    const text = JSON.stringify(statements());
    const { stack } = synth;
    const dataBucket = synth.template.findResources('AWS::S3::Bucket');
    const forbidden = [
      ...Object.keys(synth.template.findResources('AWS::DynamoDB::Table')),
      ...Object.keys(synth.template.findResources('AWS::SecretsManager::Secret')),
      ...Object.keys(dataBucket).filter((id) => id !== logicalId(stack.analytics.bucket)),
    ];

    // Assess
    expect(forbidden.length).toBeGreaterThan(3);
    // A parent resource reaches the nested template only as a parameter named after its logical id.
    for (const id of forbidden) expect(text, id).not.toContain(id);
    expect(
      statements()
        .flatMap(actionsOf)
        .filter((a) => /^(dynamodb|secretsmanager|sqs|lambda):/.test(a)),
    ).toEqual([]);
  });

  it('uses the key only through S3 and only for objects of the analytics bucket', () => {
    // Prepare
    const kms = statements().filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));

    // Assess
    expect(kms).toHaveLength(1);
    expect(actionsOf(kms[0]!).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    const conditions = (kms[0] as unknown as { Condition: Record<string, Record<string, unknown>> })
      .Condition;
    expect(JSON.stringify(conditions['StringEquals']!['kms:ViaService'])).toContain('s3.');
    expect(JSON.stringify(conditions['StringLike']!['kms:EncryptionContext:aws:s3:arn'])).toContain(
      logicalId(synth.stack.analytics.bucket),
    );
  });
});
