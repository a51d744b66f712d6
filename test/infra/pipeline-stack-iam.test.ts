/**
 * The synthesized staging stack, each function's IAM statements: least privilege. The rest of the stack is
 * in pipeline-stack.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  actionsOf,
  type IamStatement,
  type SynthesisedStack,
  stackHelpers,
  synthesise,
} from './stack-fixture';

let synth: SynthesisedStack;
beforeAll(() => {
  synth = synthesise('staging');
});
const { logicalId, statementsOf, allActions } = stackHelpers(() => synth);

describe('IAM, least privilege per function', () => {
  it('lets the webhook function only read its secret and send to the queue', () => {
    // Prepare
    const statements = statementsOf(synth.stack.webhookApi.webhookFunction);
    const queueArn = { 'Fn::GetAtt': [logicalId(synth.stack.resultsQueue.queue), 'Arn'] };

    // Act
    const actions = allActions(statements);
    const sqsStatements = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    const secretStatements = statements.filter((s) =>
      actionsOf(s).some((a) => a.startsWith('secretsmanager:')),
    );

    // Assess
    expect(actions.filter((a) => /^(s3|dynamodb|events|sns):/.test(a))).toEqual([]);
    expect(actions).not.toContain('sqs:ReceiveMessage');
    expect(actions).not.toContain('sqs:DeleteMessage');
    expect(sqsStatements.map((s) => s.Resource)).toEqual([queueArn]);
    expect(actionsOf(sqsStatements[0]!)).toContain('sqs:SendMessage');
    expect(secretStatements.map((s) => s.Resource)).toEqual([
      { Ref: logicalId(synth.stack.secrets.webhook) },
    ]);
    expect(actionsOf(secretStatements[0]!)).toEqual(['secretsmanager:GetSecretValue']);
  });

  it('grants each function exactly the actions its code (or its event source) calls', () => {
    // Prepare
    const fns = {
      webhook: synth.stack.webhookApi.webhookFunction,
      poll: synth.stack.poller.pollFunction,
      fetchResult: synth.stack.resultFetcher.fetchResultFunction,
    };
    const logsAndTracing = [
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ];

    // Act
    const granted = Object.fromEntries(
      Object.entries(fns).map(([name, fn]) => [name, [...new Set(allActions(statementsOf(fn)))].sort()]),
    );

    // Assess
    expect(granted['webhook']).toEqual(
      [
        ...logsAndTracing,
        'secretsmanager:GetSecretValue',
        'sqs:SendMessage',
        'kms:Decrypt',
        'kms:GenerateDataKey',
      ].sort(),
    );
    expect(granted['poll']).toEqual(
      [
        ...logsAndTracing,
        'secretsmanager:GetSecretValue',
        'secretsmanager:PutSecretValue',
        'dynamodb:PutItem',
        'sqs:SendMessage',
        'kms:Decrypt',
        'kms:GenerateDataKey',
        // The enqueue-markers table is on the stack key (issue 20): DynamoDB uses it for the poll's writes.
        'kms:Encrypt',
        'kms:DescribeKey',
      ].sort(),
    );
    expect(granted['fetchResult']).toEqual(
      [
        ...logsAndTracing,
        'secretsmanager:GetSecretValue',
        'secretsmanager:PutSecretValue',
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        's3:PutObject',
        // Multipart staging of large blobs (issue 10): copy source, clean-up and abort, on staging/ only.
        's3:GetObject',
        's3:DeleteObject',
        's3:AbortMultipartUpload',
        'events:PutEvents',
        // The SQS event source mapping polls with the function's role.
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'kms:Decrypt',
        'kms:Encrypt',
        'kms:GenerateDataKey',
        'kms:DescribeKey',
      ].sort(),
    );
  });

  it('lets the functions use the key only through the service that encrypts for them', () => {
    // Prepare
    const fns = [
      synth.stack.webhookApi.webhookFunction,
      synth.stack.poller.pollFunction,
      synth.stack.resultFetcher.fetchResultFunction,
    ];
    const eventSourceDecrypt = (s: IamStatement): boolean =>
      JSON.stringify(actionsOf(s)) === JSON.stringify(['kms:Decrypt']) && !('Condition' in s);

    // Act
    const kmsStatements = fns
      .map(statementsOf)
      .flatMap((statements) => statements.filter((s) => actionsOf(s).some((a) => a.startsWith('kms:'))));
    const direct = kmsStatements.filter((s) => !('Condition' in s));

    // Assess
    expect(allActions(kmsStatements).filter((a) => a.includes('*'))).toEqual([]);
    // Only Lambda's own queue poller (fetch-result's event source) decrypts without a service in between.
    expect(direct).toHaveLength(1);
    expect(eventSourceDecrypt(direct[0]!)).toBe(true);
    for (const statement of kmsStatements.filter((s) => 'Condition' in s)) {
      expect(JSON.stringify(statement)).toContain('kms:ViaService');
    }
  });

  it('keeps the poll function away from S3, the results table, the bus and the webhook secret', () => {
    // Prepare
    const statements = statementsOf(synth.stack.poller.pollFunction);

    // Act
    const actions = allActions(statements);
    const secretResources = statements
      .filter((s) => actionsOf(s).some((a) => a.startsWith('secretsmanager:')))
      .map((s) => JSON.stringify(s.Resource));

    // Assess
    expect(actions.filter((a) => /^(s3|events):/.test(a))).toEqual([]);
    // DynamoDB: PutItem on its enqueue markers, nothing else (item 6 of docs/reliability.md).
    expect(
      statements
        .filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))
        .map((s) => [actionsOf(s), s.Resource]),
    ).toEqual([
      // One resource: the recommended flag @aws-cdk/aws-iam:minimizePolicies writes it unwrapped.
      [['dynamodb:PutItem'], { 'Fn::GetAtt': [logicalId(synth.stack.poller.markersTable), 'Arn'] }],
    ]);
    expect(actions).toContain('sqs:SendMessage');
    expect(secretResources).not.toContain(JSON.stringify({ Ref: logicalId(synth.stack.secrets.webhook) }));
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: 'secretsmanager:PutSecretValue',
        Resource: { Ref: logicalId(synth.stack.secrets.tokenCache) },
      }),
    );
  });

  it('gives fetch-result item writes, PutObject under results/ and PutEvents, nothing broader', () => {
    // Prepare
    const statements = statementsOf(synth.stack.resultFetcher.fetchResultFunction);

    // Act
    const actions = allActions(statements);
    const s3Actions = actions.filter((a) => a.startsWith('s3:'));
    const dynamoActions = actions.filter((a) => a.startsWith('dynamodb:'));
    const putObject = statements.find((s) => actionsOf(s).includes('s3:PutObject'));

    // Assess
    // Streaming (issue 10): large blobs are staged under staging/, where reading, deleting and aborting are
    // allowed; under results/ the function still may only put.
    expect([...new Set(s3Actions)].sort()).toEqual([
      's3:AbortMultipartUpload',
      's3:DeleteObject',
      's3:GetObject',
      's3:PutObject',
    ]);
    expect(JSON.stringify(putObject?.Resource)).toContain('/results/*');
    for (const statement of statements) {
      const extra = actionsOf(statement).filter((a) => a.startsWith('s3:') && a !== 's3:PutObject');
      if (extra.length === 0) continue;
      expect(JSON.stringify(statement.Resource)).toContain('/staging/*');
      expect(JSON.stringify(statement.Resource)).not.toContain('/results/');
    }
    expect(dynamoActions.sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect(actions).toContain('events:PutEvents');
    expect(actions).not.toContain('sqs:SendMessage');
    expect(actions).not.toContain('secretsmanager:UpdateSecret');
    expect(JSON.stringify(statements)).not.toContain(logicalId(synth.stack.secrets.webhook));
  });

  it('scopes the only wildcard resource to X-Ray', () => {
    // Prepare
    const fns = [
      synth.stack.webhookApi.webhookFunction,
      synth.stack.poller.pollFunction,
      synth.stack.resultFetcher.fetchResultFunction,
    ];

    // Act
    const wildcard = fns.flatMap(statementsOf).filter((s) => s.Resource === '*');

    // Assess
    expect([...new Set(wildcard.flatMap(actionsOf))].sort()).toEqual([
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
  });
});
