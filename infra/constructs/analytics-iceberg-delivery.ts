import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { RESULTS_RAW_TABLE } from '../../shared/analytics/queries';
import { ANALYTICS_ENV, type CustomerReferenceMode, ENV } from '../../shared/config';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { ERASURE_KEY_SUFFIX } from '../../shared/store/erasure-record';
import { RESULTS_TABLE } from '../../shared/store/table-schema';
import { acknowledgeWildcards } from '../nag-findings';
import type { ResourceNames } from '../resource-names';
import { keyUseThrough } from './encryption-key';
import { type FunctionNetwork, type FunctionSettings, PipelineFunction } from './pipeline-function';

/** Properties of {@link createIcebergDelivery}: the settings it shares with `AnalyticsIceberg` and its table. */
export interface IcebergDeliveryProps {
  /** Tracing, log retention and level, and metrics dimensions of the transformation function. */
  readonly functionSettings: FunctionSettings;
  /** Whether the rows keep the events' `customerReference` (the transformation's mode). */
  readonly eventCustomerReference: CustomerReferenceMode;
  /** The stack key: encrypts the stream's buffer, the delivery errors and the logs. */
  readonly encryptionKey: kms.IKey;
  /** The pipeline's bus: its result events go to the delivery stream. */
  readonly bus: events.IEventBus;
  /** The pipeline's names (the rule's, with a prefix only). */
  readonly names: ResourceNames;
  /** The VPC subnets the transformation function runs in. @default no VPC */
  readonly network?: FunctionNetwork;
  /** What happens to the log groups when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
  /** Delivery buffer interval. @default 300 seconds */
  readonly bufferInterval?: Duration;
  /** Name of the delivery stream. */
  readonly streamName: string;
  /** The analytics bucket: the table's files and the delivery errors. */
  readonly bucket: s3.IBucket;
  /** Glue database of the table. */
  readonly databaseName: string;
  /** The Iceberg table the stream writes into (created before the stream). */
  readonly table: glue.CfnTable;
  /** ARN of that table in the Glue catalog. */
  readonly tableArn: string;
  /** Key prefix of the table's files in the bucket. */
  readonly tablePrefix: string;
  /** Key prefix of the records Firehose could not deliver or transform. */
  readonly errorsPrefix: string;
  /**
   * The results table, whose `<id>#erasure` records the transformation reads (BatchGetItem of those keys
   * only) to drop the events of erased results. @default none (a replay can bring an erased row back)
   */
  readonly erasureTable?: dynamodb.ITable;
}

/** What {@link createIcebergDelivery} made. */
export interface IcebergDelivery {
  /** The transformation Lambda (the projection). */
  readonly transform: PipelineFunction;
  readonly deliveryStream: firehose.CfnDeliveryStream;
}

/**
 * The write path of the analytics Iceberg table, in `scope`: the transformation function, the Firehose
 * delivery stream with its role and logs, and the rule that sends the bus's result events to it.
 */
export function createIcebergDelivery(scope: Construct, props: IcebergDeliveryProps): IcebergDelivery {
  const transform = createTransform(scope, props);
  const deliveryStream = createDeliveryStream(scope, props, transform);
  subscribe(scope, props, deliveryStream);
  return { transform, deliveryStream };
}

/** The projection as Firehose's transformation: it reads events and returns rows, nothing else. */
function createTransform(scope: Construct, props: IcebergDeliveryProps): PipelineFunction {
  const fn = new PipelineFunction(scope, 'TransformFunction', {
    entry: 'functions/projector/transform.ts',
    description: 'Projects result events into rows of the analytics Iceberg table (no personal data).',
    functionSettings: props.functionSettings,
    timeout: Duration.minutes(1),
    memorySize: 256,
    logRemovalPolicy: props.removalPolicy,
    logEncryptionKey: props.encryptionKey,
    network: props.network,
  });
  fn.addEnvironment(ANALYTICS_ENV.analyticsDatabase, props.databaseName);
  fn.addEnvironment(ANALYTICS_ENV.analyticsTable, RESULTS_RAW_TABLE);
  fn.addEnvironment(ENV.eventCustomerReference, props.eventCustomerReference);
  if (props.erasureTable) grantErasureLookup(fn, props.erasureTable, props.encryptionKey);
  return fn;
}

/**
 * The transformation's one read of the results table: BatchGetItem of erasure records (keys ending
 * `#erasure`), through the stack key that encrypts the table. It cannot read a result item.
 */
function grantErasureLookup(fn: PipelineFunction, table: dynamodb.ITable, key: kms.IKey): void {
  fn.addEnvironment(ENV.resultsTableName, table.tableName);
  fn.function.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'ReadErasureRecords',
      actions: ['dynamodb:BatchGetItem'],
      resources: [table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`*${ERASURE_KEY_SUFFIX}`] },
        // The key only: the record's counts and receipt are not the transformation's business.
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [RESULTS_TABLE.partitionKey] },
        StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
      },
    }),
  );
  fn.function.addToRolePolicy(keyUseThrough(key, 'dynamodb', ['kms:Decrypt']));
}

/** The delivery stream: Direct PUT (from the rule), SSE with the stack key, into the Iceberg table. */
function createDeliveryStream(
  scope: Construct,
  props: IcebergDeliveryProps,
  transform: PipelineFunction,
): firehose.CfnDeliveryStream {
  const stack = Stack.of(scope);
  const { bucket, streamName, tablePrefix, errorsPrefix } = props;
  const logGroup = new logs.LogGroup(scope, 'DeliveryLogs', {
    logGroupName: `/aws/kinesisfirehose/${streamName}`,
    retention: logs.RetentionDays.ONE_MONTH,
    encryptionKey: props.encryptionKey,
    removalPolicy: props.removalPolicy,
  });
  const logStream = logGroup.addStream('DestinationDelivery', { logStreamName: 'DestinationDelivery' });
  const role = new iam.Role(scope, 'DeliveryRole', {
    assumedBy: new iam.ServicePrincipal('firehose.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
    }),
    description: 'Firehose: writes the analytics Iceberg table, and nothing else of the stack.',
  });
  // Glue: the catalog entries of this table only (Firehose commits each batch through them).
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['glue:GetTable', 'glue:GetDatabase', 'glue:UpdateTable'],
      resources: [
        stack.formatArn({ service: 'glue', resource: 'catalog' }),
        stack.formatArn({ service: 'glue', resource: 'database', resourceName: props.databaseName }),
        props.tableArn,
      ],
    }),
  );
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['s3:ListBucket', 's3:GetBucketLocation', 's3:ListBucketMultipartUploads'],
      resources: [bucket.bucketArn],
    }),
  );
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
      resources: [bucket.arnForObjects(`${tablePrefix}*`), bucket.arnForObjects(`${errorsPrefix}*`)],
    }),
  );
  role.addToPolicy(keyUseThrough(props.encryptionKey, 's3', ['kms:GenerateDataKey', 'kms:Decrypt']));
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['lambda:InvokeFunction', 'lambda:GetFunctionConfiguration'],
      resources: [transform.function.functionArn],
    }),
  );
  role.addToPolicy(
    new iam.PolicyStatement({ actions: ['logs:PutLogEvents'], resources: [logGroup.logGroupArn] }),
  );
  const stream = new firehose.CfnDeliveryStream(scope, 'DeliveryStream', {
    deliveryStreamName: streamName,
    deliveryStreamType: 'DirectPut',
    deliveryStreamEncryptionConfigurationInput: {
      keyType: 'CUSTOMER_MANAGED_CMK',
      keyArn: props.encryptionKey.keyArn,
    },
    icebergDestinationConfiguration: {
      roleArn: role.roleArn,
      catalogConfiguration: {
        catalogArn: stack.formatArn({ service: 'glue', resource: 'catalog' }),
      },
      destinationTableConfigurationList: [
        {
          destinationDatabaseName: props.databaseName,
          destinationTableName: RESULTS_RAW_TABLE,
          // One row per result and version: each record is an update keyed by both (the transform says so).
          uniqueKeys: ['result_id', 'version'],
          s3ErrorOutputPrefix: errorsPrefix,
        },
      ],
      appendOnly: false,
      bufferingHints: {
        intervalInSeconds: (props.bufferInterval ?? Duration.seconds(300)).toSeconds(),
        sizeInMBs: 128,
      },
      // Firehose retries a failed commit for up to an hour, then writes the records to the error prefix.
      retryOptions: { durationInSeconds: 3600 },
      processingConfiguration: {
        enabled: true,
        processors: [
          {
            type: 'Lambda',
            parameters: [
              { parameterName: 'LambdaArn', parameterValue: transform.function.functionArn },
              { parameterName: 'BufferSizeInMBs', parameterValue: '1' },
              { parameterName: 'BufferIntervalInSeconds', parameterValue: '60' },
            ],
          },
        ],
      },
      cloudWatchLoggingOptions: {
        enabled: true,
        logGroupName: logGroup.logGroupName,
        logStreamName: logStream.logStreamName,
      },
      s3BackupMode: 'FailedDataOnly',
      s3Configuration: {
        bucketArn: bucket.bucketArn,
        roleArn: role.roleArn,
        prefix: errorsPrefix,
        errorOutputPrefix: errorsPrefix,
        encryptionConfiguration: { kmsEncryptionConfig: { awskmsKeyArn: props.encryptionKey.keyArn } },
      },
    },
  });
  stream.node.addDependency(role);
  stream.addResourceDependency(props.table);
  // Firehose encrypts the stream's buffer with the stack key.
  props.encryptionKey.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal('firehose.amazonaws.com')],
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: ['*'],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'firehose',
            resource: 'deliverystream',
            resourceName: streamName,
          }),
        },
      },
    }),
  );
  acknowledgeWildcards(
    role,
    [bucket.arnForObjects(`${tablePrefix}*`), bucket.arnForObjects(`${errorsPrefix}*`)],
    'Object keys of the Iceberg table and of delivery errors are per file, unknown in advance; limited to those two prefixes of the analytics bucket.',
  );
  // Firehose invokes the transformation synchronously and retries it; what still fails goes to
  // delivery-errors/ (alarmed): an asynchronous-invocation DLQ would never be used.
  Validations.of(transform.function).acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason:
      'Invoked synchronously by Firehose only (data transformation): failed records go to the delivery-errors/ prefix of the analytics bucket, alarmed.',
  });
  return stream;
}

/** The rule on the pipeline bus: the two result events go to the delivery stream. */
function subscribe(
  scope: Construct,
  props: IcebergDeliveryProps,
  deliveryStream: firehose.CfnDeliveryStream,
): void {
  const rule = new events.Rule(scope, 'ResultEventsRule', {
    ruleName: props.names.optional('analytics-firehose'),
    eventBus: props.bus,
    description: 'Result events of the pipeline → the analytics delivery stream (Iceberg).',
    eventPattern: {
      source: [EVENT_SOURCE],
      detailType: [DETAIL_TYPES.resultStored, DETAIL_TYPES.resultUnavailable, DETAIL_TYPES.resultChanged],
    },
  });
  // No DLQ on the target: EventBridge retries for 24 hours, and a row it still could not deliver comes
  // back by replaying the bus archive (every row is an upsert on result_id, docs/analytics.md).
  Validations.of(rule).acknowledge({
    id: 'Serverless-EventBusDLQ',
    reason:
      'EventBridge retries the Firehose target for 24 hours; an event still undelivered is replayed from the bus archive (upserts on result_id make a replay harmless).',
  });
  rule.addTarget(
    new targets.FirehoseDeliveryStream(
      firehose.DeliveryStream.fromDeliveryStreamAttributes(scope, 'StreamRef', {
        deliveryStreamArn: deliveryStream.attrArn,
        deliveryStreamName: deliveryStream.ref,
      }),
    ),
  );
}
