/**
 * The synthesized staging stack: encryption, the queue and its event source, the functions, the table, bus
 * and API, alarms and outputs (the functions' IAM statements: pipeline-stack-iam.test.ts).
 */
import { Match } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PipelineFunction } from '../../infra/constructs/pipeline-function';
import { FETCH_RESULT_TIMEOUT } from '../../infra/constructs/result-fetcher';
import { ENV } from '../../shared/config';
import { DETAIL_TYPES } from '../../shared/events/names';
import { METRICS } from '../../shared/metrics-names';
import { RESULTS_TABLE } from '../../shared/store/table-schema';
import { type SynthesisedStack, stackHelpers, synthesise } from './stack-fixture';

let synth: SynthesisedStack;
beforeAll(() => {
  synth = synthesise('staging');
});
const { logicalId, statementsOf, allActions, environmentOf } = stackHelpers(() => synth);

describe('encryption at rest and in transit', () => {
  it('encrypts queue, DLQ, table, bucket, secrets, topic and every log group with the rotating key', () => {
    // Prepare
    const keyArn = { 'Fn::GetAtt': [Match.stringLikeRegexp('^EncryptionKey'), 'Arn'] };

    // Act
    const template = synth.template;

    // Assess
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.resourcePropertiesCountIs('AWS::SQS::Queue', { KmsMasterKeyId: keyArn }, 2);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: keyArn },
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          Match.objectLike({
            ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: keyArn },
          }),
        ],
      },
    });
    template.resourcePropertiesCountIs('AWS::SecretsManager::Secret', { KmsKeyId: keyArn }, 3);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: keyArn });
    // Three pipeline functions, the retention check and the API access log.
    template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { KmsKeyId: keyArn }, 5);
    template.resourceCountIs('AWS::Logs::LogGroup', 5);
  });

  it('denies non-TLS access to both buckets and both queues', () => {
    // Prepare
    const denyInsecure = Match.objectLike({
      Effect: 'Deny',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    });

    // Act
    const template = synth.template;

    // Assess
    template.resourcePropertiesCountIs(
      'AWS::S3::BucketPolicy',
      { PolicyDocument: { Statement: Match.arrayWith([denyInsecure]) } },
      2,
    );
    template.resourcePropertiesCountIs(
      'AWS::SQS::QueuePolicy',
      { PolicyDocument: { Statement: Match.arrayWith([denyInsecure]) } },
      2,
    );
  });

  it('blocks public access, versions, logs and expires the data bucket after the retention', () => {
    // Prepare
    const bucketId = logicalId(synth.stack.pipeline.node.findChild('DataBucket').node.findChild('Bucket'));

    // Act
    const bucket = synth.template.toJSON().Resources[bucketId].Properties;

    // Assess
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.LoggingConfiguration.DestinationBucketName).toBeDefined();
    expect(bucket.LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({ ExpirationInDays: synth.config.retentionDays, Status: 'Enabled' }),
    );
  });

  it('expires old versions and delete markers with lifecycle rules S3 accepts', () => {
    // Prepare
    const buckets = synth.template.findResources('AWS::S3::Bucket');
    const dataBucketId = logicalId(
      synth.stack.pipeline.node.findChild('DataBucket').node.findChild('Bucket'),
    );

    // Act
    const rules = Object.values(buckets).flatMap(
      (bucket) => (bucket.Properties.LifecycleConfiguration?.Rules ?? []) as Record<string, unknown>[],
    );
    const dataRules = buckets[dataBucketId]!.Properties.LifecycleConfiguration.Rules as Record<
      string,
      unknown
    >[];

    // Assess: S3 answers MalformedXML to ExpiredObjectDeleteMarker (even false) next to days or a date.
    for (const rule of rules) {
      if ('ExpiredObjectDeleteMarker' in rule) {
        expect(rule).not.toHaveProperty('ExpirationInDays');
        expect(rule).not.toHaveProperty('ExpirationDate');
      }
    }
    // Retention is only real when the noncurrent versions and the markers left behind go as well.
    expect(dataRules).toContainEqual(
      expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 1 } }),
    );
    expect(dataRules).toContainEqual(expect.objectContaining({ ExpiredObjectDeleteMarker: true }));
  });

  it('creates the credentials secret empty and generates a 40-character alphanumeric webhook secret', () => {
    // Prepare
    const template = synth.template;

    // Act
    const secrets = template.findResources('AWS::SecretsManager::Secret');

    // Assess
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Name: 'idv-pipeline/staging/client-credentials',
      SecretString: '{}',
    });
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Name: 'idv-pipeline/staging/webhook-path-secret',
      GenerateSecretString: { PasswordLength: 40, ExcludePunctuation: true, IncludeSpace: false },
    });
    expect(JSON.stringify(secrets)).not.toMatch(/clientSecret"?\s*:/);
  });
});

describe('queue, schedule and event source', () => {
  it('has a DLQ, a maxReceiveCount and a visibility timeout of at least 6x the fetch timeout', () => {
    // Prepare
    const queue = synth.template.toJSON().Resources[logicalId(synth.stack.resultsQueue.queue)].Properties;
    const fetchFn = synth.stack.resultFetcher.fetchResultFunction.function.node.defaultChild as CfnFunction;

    // Act
    const fetchTimeout = fetchFn.timeout!;

    // Assess
    expect(fetchTimeout).toBe(FETCH_RESULT_TIMEOUT.toSeconds());
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fetchTimeout);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(synth.stack.resultsQueue.deadLetterQueue), 'Arn'] },
      maxReceiveCount: 5,
    });
  });

  it('runs the poll function every minute', () => {
    // Prepare
    const pollFn = logicalId(synth.stack.poller.pollFunction.function);

    // Act
    const template = synth.template;

    // Assess
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [pollFn, 'Arn'] } })],
    });
  });

  it('reports batch item failures and caps the fetch concurrency', () => {
    // Prepare
    const fetchFn = logicalId(synth.stack.resultFetcher.fetchResultFunction.function);

    // Act
    const template = synth.template;

    // Assess
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fetchFn },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(synth.stack.resultsQueue.queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: synth.config.fetchConcurrency },
    });
  });

  it('reserves the event source maximum for fetch-result and paces each container at its share of the service rate', () => {
    // Prepare
    const fetchFn = synth.stack.resultFetcher.fetchResultFunction.function;
    const { config } = synth;

    // Act
    const properties = synth.template.toJSON().Resources[logicalId(fetchFn)].Properties;

    // Assess
    expect(config.fetchReservedConcurrency).toBe(config.fetchConcurrency);
    expect(properties.ReservedConcurrentExecutions).toBe(config.fetchConcurrency);
    expect(properties.Environment.Variables[ENV.serviceRequestsPerSecond]).toBe(
      String(config.serviceRateLimit / config.fetchConcurrency),
    );
  });

  it('reserves no concurrency when the environment says false', () => {
    // Act
    const unreserved = synthesise('staging', { fetchReservedConcurrency: false });
    const fetchFn = unreserved.stack.resultFetcher.fetchResultFunction.function;
    const id = unreserved.stack.resolve((fetchFn.node.defaultChild as CfnFunction).logicalId) as string;
    const properties = unreserved.template.toJSON().Resources[id].Properties;

    // Assess
    expect(properties.ReservedConcurrentExecutions).toBeUndefined();
    unreserved.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: unreserved.config.fetchConcurrency },
    });
  });
});

describe('functions', () => {
  it('all run Node 24 on ARM64 with active tracing, source maps and the Powertools variables', () => {
    // Prepare
    const template = synth.template;

    // Act
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));

    // Assess
    // webhook, poll, fetch-result and the retention check (analytics' transform is in its nested stack).
    expect(functions).toHaveLength(4);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON' },
        Environment: {
          Variables: {
            NODE_OPTIONS: '--enable-source-maps',
            POWERTOOLS_SERVICE_NAME: METRICS.serviceName,
            POWERTOOLS_METRICS_NAMESPACE: METRICS.namespace,
            POWERTOOLS_LOG_LEVEL: synth.config.logLevel,
            [ENV.environment]: 'staging',
          },
        },
      });
    }
  });

  it('gives every function the tracer: X-Ray write permissions and the tracer variables', () => {
    // Prepare
    const fns = [
      synth.stack.webhookApi.webhookFunction,
      synth.stack.poller.pollFunction,
      synth.stack.resultFetcher.fetchResultFunction,
    ];

    // Act
    const traced = fns.map((fn) => ({
      actions: allActions(statementsOf(fn))
        .filter((action) => action.startsWith('xray:'))
        .sort(),
      environment: environmentOf(fn),
    }));

    // Assess
    for (const fn of traced) {
      expect(fn.actions).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      expect(fn.environment).toMatchObject({
        POWERTOOLS_SERVICE_NAME: METRICS.serviceName,
        POWERTOOLS_TRACE_ENABLED: 'true',
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
        POWERTOOLS_TRACER_CAPTURE_ERROR: 'false',
      });
    }
  });

  it('sets exactly the environment variables each function loads from shared/config', () => {
    // Prepare
    const idvNames = (fn: PipelineFunction): string[] =>
      Object.keys(environmentOf(fn))
        .filter((name) => name.startsWith('IDV_'))
        .sort();

    // Act
    const webhook = idvNames(synth.stack.webhookApi.webhookFunction);
    const poll = idvNames(synth.stack.poller.pollFunction);
    const fetch = idvNames(synth.stack.resultFetcher.fetchResultFunction);

    // Assess
    expect(webhook).toEqual([ENV.environment, ENV.resultsQueueUrl, ENV.webhookSecretId].sort());
    expect(poll).toEqual(
      [
        ENV.environment,
        ENV.serviceBaseUrl,
        ENV.scopes,
        ENV.credentialsSecretId,
        ENV.tokenCacheSecretId,
        ENV.resultsQueueUrl,
        ENV.pollMarkersTableName,
        ENV.pollMarkerWindowSeconds,
      ].sort(),
    );
    expect(fetch).toEqual(
      [
        ENV.environment,
        ENV.serviceBaseUrl,
        ENV.scopes,
        ENV.credentialsSecretId,
        ENV.tokenCacheSecretId,
        ENV.resultsTableName,
        ENV.dataBucketName,
        ENV.eventBusName,
        ENV.retentionDays,
        ENV.eventCustomerReference,
        ENV.serviceRequestsPerSecond,
      ].sort(),
    );
    // Only the local emulator switch is never set by the stack.
    const unset = Object.values(ENV).filter((name) => ![...webhook, ...poll, ...fetch].includes(name));
    expect(unset).toEqual([ENV.s3ForcePathStyle]);
  });

  it('passes the configured values, not placeholders', () => {
    // Prepare
    const fetch = environmentOf(synth.stack.resultFetcher.fetchResultFunction);

    // Act
    const values = {
      baseUrl: fetch[ENV.serviceBaseUrl],
      scopes: fetch[ENV.scopes],
      retention: fetch[ENV.retentionDays],
      customerReference: fetch[ENV.eventCustomerReference],
    };

    // Assess
    expect(values).toEqual({
      baseUrl: synth.config.serviceBaseUrl,
      scopes: synth.config.scopes.join(','),
      retention: String(synth.config.retentionDays),
      customerReference: synth.config.eventCustomerReference,
    });
  });
});

describe('table, bus and API', () => {
  it('has PITR, the TTL attribute and the indexes of RESULTS_TABLE', () => {
    // Prepare
    const expectedIndexes = Object.values(RESULTS_TABLE.indexes).map((index) =>
      Match.objectLike({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
      }),
    );

    // Act
    const template = synth.template;

    // Assess
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: RESULTS_TABLE.partitionKey, KeyType: 'HASH' }],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: RESULTS_TABLE.ttlAttribute, Enabled: true },
      GlobalSecondaryIndexes: Match.arrayWith(expectedIndexes),
    });
  });

  it('archives the bus and registers one schema per detail type', () => {
    // Prepare
    const template = synth.template;

    // Act
    const schemas = Object.values(template.findResources('AWS::EventSchemas::Schema'));

    // Assess
    template.hasResourceProperties('AWS::Events::Archive', { EventPattern: { source: ['idv.pipeline'] } });
    template.hasResourceProperties('AWS::Events::Archive', {
      ArchiveName: Match.stringLikeRegexp('^[.\\-_A-Za-z0-9]{1,43}-archive$'),
    });
    const outputs = template.findOutputs('EventArchiveName');
    expect(Object.keys(outputs)).toHaveLength(1);
    expect(schemas.map((s) => JSON.parse(s.Properties.Content).title).sort()).toEqual(
      Object.values(DETAIL_TYPES).sort(),
    );
  });

  it('routes both webhooks with validation, throttling and access logs', () => {
    // Prepare
    const template = synth.template;

    // Act
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));

    // Assess
    expect(methods).toHaveLength(2);
    for (const method of methods) {
      expect(method.Properties).toMatchObject({
        HttpMethod: 'POST',
        RequestValidatorId: expect.anything(),
        RequestParameters: { 'method.request.path.token': true },
        Integration: { Type: 'AWS_PROXY' },
      });
    }
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: '{token}' });
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'result' });
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'upload' });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          ThrottlingRateLimit: synth.config.webhookRateLimit,
          ThrottlingBurstLimit: synth.config.webhookBurstLimit,
          DataTraceEnabled: false,
        }),
      ]),
    });
    // The access log never records the real path, which contains the secret segment.
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]!;
    expect(stage.Properties.AccessLogSetting.Format).not.toContain('$context.path');
  });
});

describe('alarms, dashboard and outputs', () => {
  it('alarms on DLQ depth, queue age, function errors, poll failures and pending results', () => {
    // Prepare
    const topic = { Ref: logicalId(synth.stack.monitoring.topic) };

    // Act
    const alarms = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm')).map(
      (a) => a.Properties,
    );
    const byName = (suffix: string) => alarms.find((a) => a.AlarmName === `idv-pipeline-staging-${suffix}`);

    // Assess
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([topic]);
    expect(byName('DeadLetterQueueNotEmpty')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(byName('QueueOldestMessageAge')).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage' });
    for (const fn of ['Webhook', 'Poll', 'FetchResult']) {
      expect(byName(`${fn}FunctionErrors`)).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda' });
    }
    expect(byName('PollFailures')).toMatchObject({
      Namespace: METRICS.namespace,
      MetricName: METRICS.names.pollFailures,
      Dimensions: expect.arrayContaining([{ Name: METRICS.environmentDimension, Value: 'staging' }]),
    });
    expect(byName('ResultsPendingTooLong')).toMatchObject({
      MetricName: METRICS.names.oldestPendingAgeSeconds,
      Threshold: synth.config.pendingAlarmMinutes * 60,
    });
  });

  it('has a dashboard and the operator outputs, none of them a secret value', () => {
    // Prepare
    const template = synth.template;

    // Act
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

    // Assess
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining([
        'WebhookBaseUrl',
        'EventBusName',
        'ResultsTableName',
        'DataBucketName',
        'ResultsQueueUrl',
        'DeadLetterQueueUrl',
        'CredentialsSecretName',
        'WebhookSecretName',
      ]),
    );
    expect(JSON.stringify(outputs)).not.toContain('resolve:secretsmanager');
    expect(JSON.stringify(outputs.WebhookBaseUrl!.Value)).toContain('/webhooks/');
  });
});
