/**
 * Erasure on request and the retention check (docs/erasure.md, "How it runs"; docs/pipeline.md, "Retention").
 *
 * - `policy`: a managed policy with exactly what `idv results erase` needs, and nothing the pipeline's
 *   functions have: find a result (the item, the transaction and reference indexes), delete every
 *   version of its objects under `results/` and `staging/` and abort its uploads, delete its item,
 *   publication and polling records and enqueue marker (the item kinds of shared/erasure/traces.ts),
 *   write its erasure record (only keys ending `#erasure`),
 *   delete its analytics row, and publish `VerificationResultErased` (no other detail-type). Attach it
 *   with {@link Erasure.grantErase} to the operators' erasure role only: the fetch function and the
 *   analysts cannot erase.
 * - `retentionCheck`: a daily function (the house {@link PipelineFunction}) that counts anything past
 *   retention still stored, into the `ResultsPastRetention` metric; `pastRetentionAlarm` fires above
 *   zero, and when the check did not report at all.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PROJECTION_PREFIX } from '../../shared/analytics/projection';
import { ANALYTICS_ENV, ENV } from '../../shared/config';
import { type CopyBounds, formatCopyBounds, resolveCopyBounds } from '../../shared/erasure/bounds';
import { PAST_RETENTION_METRIC } from '../../shared/erasure/retention';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { METRICS } from '../../shared/metrics-names';
import { ERASURE_KEY_SUFFIX } from '../../shared/store/erasure-record';
import { RESULTS_PREFIX, STAGING_PREFIX } from '../../shared/store/keys';
import { PUBLICATION_KEY_SUFFIX } from '../../shared/store/publication';
import { RESULTS_TABLE } from '../../shared/store/table-schema';
import { acknowledgeWildcards } from '../nag-findings';
import { type FunctionNetwork, type FunctionSettings, PipelineFunction } from './pipeline-function';

/** Properties of {@link Erasure}. */
export interface ErasureProps {
  /**
   * Tracing, log retention and level, and metrics dimensions of the retention check; its alarm watches
   * the metric with those dimensions.
   */
  readonly functionSettings: FunctionSettings;
  /** Days a stored result is kept: what the retention check counts as past retention. */
  readonly retentionDays: number;
  /** The results table (items, publication and erasure records). */
  readonly table: dynamodb.ITable;
  /** The poll's enqueue markers table. */
  readonly markersTable: dynamodb.ITable;
  /** The data bucket (versioned). */
  readonly dataBucket: s3.IBucket;
  /** The analytics bucket of the projection. @default none (no projection to erase or check) */
  readonly analyticsBucket?: s3.IBucket;
  /** The pipeline's bus. */
  readonly eventBus: events.IEventBus;
  /**
   * The results queue and its DLQ, whose messages of an erased result the erasure deletes
   * (`shared/erasure/queue-purge.ts`). @default none (the erasure reports the queues as not reached)
   */
  readonly queues?: sqs.IQueue[];
  /** The stack key: it encrypts the tables (the erasure reads and writes items through it). */
  readonly encryptionKey: kms.IKey;
  /** What happens to the check's log group when the stack is deleted. */
  readonly logRemovalPolicy: RemovalPolicy;
  /** When the retention check runs. @default every day at 03:17 UTC */
  readonly checkSchedule?: events.Schedule;
  /** Where the alarm notifies. @default none (the alarm state stays in CloudWatch) */
  readonly alarmActions?: cloudwatchActions.SnsAction[];
  /** The alarm's name. @default CloudFormation names it */
  readonly alarmName?: string;
  /** The VPC subnets the retention check runs in. @default no VPC */
  readonly network?: FunctionNetwork;
  /**
   * The copy bounds the stack's stores were configured with: the erasure receipt's dates follow from them
   * (published as {@link Erasure.copyBoundsJson}, the `ErasureBounds` output).
   * @default resolveCopyBounds({}, retentionDays)
   */
  readonly copyBounds?: CopyBounds;
}

/** The erasure policy and the scheduled retention check. */
export class Erasure extends Construct {
  /** Everything `idv results erase` needs; attach with {@link grantErase}. */
  readonly policy: iam.ManagedPolicy;
  readonly #statements: iam.PolicyStatement[];
  /** The daily retention check. */
  readonly retentionCheck: PipelineFunction;
  /** Fires when the check finds data past retention, or did not report. */
  readonly pastRetentionAlarm: cloudwatch.Alarm;
  /** The copy bounds of the stack, which the erasure receipt names. */
  readonly copyBounds: CopyBounds;
  /** The same as JSON: the `ErasureBounds` output, which `idv results erase` reads for its receipt. */
  readonly copyBoundsJson: string;

  constructor(scope: Construct, id: string, props: ErasureProps) {
    super(scope, id);
    this.copyBounds = props.copyBounds ?? resolveCopyBounds({}, props.retentionDays);
    this.copyBoundsJson = formatCopyBounds(this.copyBounds);
    this.#statements = eraseStatements(props);
    this.policy = new iam.ManagedPolicy(this, 'ErasePolicy', {
      description: 'idv results erase: remove one result everywhere (docs/erasure.md)',
      statements: [...this.#statements],
    });
    acknowledgeWildcards(
      this.policy,
      this.#statements.flatMap((statement) => statement.resources),
      'Erasure finds a result through the two indexes and removes every version of its objects, one folder per result under results/ and staging/ (unknown in advance).',
    );
    Validations.of(this.policy).acknowledge({
      id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      reason:
        'DynamoDB generates data keys of the stack key for the erasure record it writes; only through DynamoDB (kms:ViaService).',
    });
    this.retentionCheck = this.#retentionCheck(props);
    this.pastRetentionAlarm = this.#alarm(props);
  }

  /** The policy's statements, for a principal that takes no managed policy (grow them with {@link addStatements}). */
  get statements(): readonly iam.PolicyStatement[] {
    return this.#statements;
  }

  /**
   * Adds what erasing a result in one more store takes (the analytics table's row) to the policy and to
   * {@link statements} alike; `wildcardReason` says why a resource is a pattern, for cdk-nag.
   */
  addStatements(statements: readonly iam.PolicyStatement[], wildcardReason: string): void {
    this.policy.addStatements(...statements);
    this.#statements.push(...statements);
    acknowledgeWildcards(
      this.policy,
      statements.flatMap((statement) => statement.resources),
      wildcardReason,
    );
  }

  /** Lets `role` erase results (the operators' erasure role; never a function's or an analyst's). */
  grantErase(role: iam.IRole): void {
    role.addManagedPolicy(this.policy);
  }

  #retentionCheck(props: ErasureProps): PipelineFunction {
    const check = new PipelineFunction(this, 'RetentionCheck', {
      entry: 'functions/retention-check/handler.ts',
      functionSettings: props.functionSettings,
      description: 'Daily: counts results past their retention still stored (ResultsPastRetention)',
      timeout: Duration.minutes(10),
      logRemovalPolicy: props.logRemovalPolicy,
      logEncryptionKey: props.encryptionKey,
      network: props.network,
    });
    // Read-only: a Scan of the table's keys and TTLs, listings of the two buckets' prefixes.
    check.addEnvironment(ENV.resultsTableName, props.table.tableName);
    props.table.grant(check.function, 'dynamodb:Scan');
    acknowledgeWildcards(
      check.function.role!,
      [`${props.table.tableArn}/index/*`],
      'ITable.grant names the indexes with the table; the check scans the table itself, reading only.',
    );
    props.encryptionKey.grantDecrypt(check.function);
    check.addEnvironment(ENV.dataBucketName, props.dataBucket.bucketName);
    check.addEnvironment(ENV.retentionDays, String(props.retentionDays));
    check.function.addToRolePolicy(
      listStatement(props.dataBucket, [RESULTS_PREFIX], ['s3:ListBucketVersions']),
    );
    if (props.analyticsBucket) {
      check.addEnvironment(ANALYTICS_ENV.analyticsBucketName, props.analyticsBucket.bucketName);
      check.function.addToRolePolicy(listStatement(props.analyticsBucket, [PROJECTION_PREFIX], []));
    }
    const schedule = new events.Rule(this, 'Schedule', {
      description: 'Runs the retention check once a day',
      schedule: props.checkSchedule ?? events.Schedule.cron({ hour: '3', minute: '17' }),
      targets: [new targets.LambdaFunction(check.function, { retryAttempts: 2 })],
    });
    // A failed or missed run reports no metric, which the alarm counts as a finding; the next day's run
    // checks everything again. A dead-lettered schedule event would hold nothing to redo.
    const nextRunRepairs =
      'A failed run publishes no ResultsPastRetention value, which its alarm treats as breaching; the next daily run checks everything again.';
    Validations.of(schedule).acknowledge({ id: 'Serverless-EventBusDLQ', reason: nextRunRepairs });
    Validations.of(check.function).acknowledge({ id: 'Serverless-LambdaDLQ', reason: nextRunRepairs });
    return check;
  }

  #alarm(props: ErasureProps): cloudwatch.Alarm {
    const metric = new cloudwatch.Metric({
      namespace: METRICS.namespace,
      metricName: PAST_RETENTION_METRIC,
      // Powertools adds the `service` dimension; the function adds the environment.
      dimensionsMap: {
        service: props.functionSettings.metricsServiceName,
        [METRICS.environmentDimension]: props.functionSettings.serviceEnvironment,
      },
      statistic: 'Maximum',
      period: Duration.days(1),
    });
    const alarm = new cloudwatch.Alarm(this, 'PastRetentionAlarm', {
      metric,
      alarmName: props.alarmName,
      alarmDescription:
        'Results past their retention are still stored (or the daily check did not report): run `idv results retention --check` (docs/pipeline.md, Retention).',
      threshold: 0,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      // A check that failed or did not run reports nothing: that is a finding too.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    for (const action of props.alarmActions ?? []) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    return alarm;
  }
}

/** `s3:ListBucket` (and `extra` listing actions) on `bucket`, for keys under `prefixes` only. */
function listStatement(
  bucket: s3.IBucket,
  prefixes: string[],
  extra: string[],
  sid?: string,
): iam.PolicyStatement {
  return new iam.PolicyStatement({
    ...(sid && { sid }),
    actions: ['s3:ListBucket', ...extra],
    resources: [bucket.bucketArn],
    conditions: { StringLike: { 's3:prefix': prefixes.map((p) => `${p}*`) } },
  });
}

/** The statements of the erasure policy, one concern each. */
function eraseStatements(props: ErasureProps): iam.PolicyStatement[] {
  const { table, markersTable, dataBucket, analyticsBucket } = props;
  const { indexes } = RESULTS_TABLE;
  const statements = [
    // Find the results: one item, or a transaction's / a reference's through their indexes.
    new iam.PolicyStatement({
      sid: 'FindResults',
      actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
      resources: [
        table.tableArn,
        `${table.tableArn}/index/${indexes.byTransactionId.indexName}`,
        `${table.tableArn}/index/${indexes.byCustomerReference.indexName}`,
      ],
    }),
    // Every item kind of shared/erasure/traces.ts in this table goes (result, publication, polling record).
    new iam.PolicyStatement({
      sid: 'DeleteResultItems',
      actions: ['dynamodb:DeleteItem'],
      resources: [table.tableArn],
    }),
    // The erasure record is the one item written, and only under a key ending `#erasure`.
    new iam.PolicyStatement({
      sid: 'WriteErasureRecord',
      actions: ['dynamodb:PutItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`*${ERASURE_KEY_SUFFIX}`] } },
    }),
    // The fence (shared/erasure/fence.ts): one conditional update of the publication record, only under a
    // key ending `#publication`, so fetches in flight are waited out and no claim is taken afterwards.
    new iam.PolicyStatement({
      sid: 'FencePublication',
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`*${PUBLICATION_KEY_SUFFIX}`] } },
    }),
    new iam.PolicyStatement({
      sid: 'DeleteEnqueueMarker',
      actions: ['dynamodb:GetItem', 'dynamodb:DeleteItem'],
      resources: [markersTable.tableArn],
    }),
    // The tables are encrypted with the stack key; DynamoDB uses it on the caller's behalf.
    new iam.PolicyStatement({
      sid: 'TableKey',
      actions: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:DescribeKey'],
      resources: [props.encryptionKey.keyArn],
      conditions: {
        StringEquals: { 'kms:ViaService': `dynamodb.${Stack.of(props.table).region}.amazonaws.com` },
      },
    }),
    // Every version of the result's objects, and its unfinished uploads.
    listStatement(
      dataBucket,
      [RESULTS_PREFIX, STAGING_PREFIX],
      ['s3:ListBucketVersions'],
      'ListResultObjects',
    ),
    new iam.PolicyStatement({
      sid: 'ListUploads',
      actions: ['s3:ListBucketMultipartUploads'],
      resources: [dataBucket.bucketArn],
    }),
    new iam.PolicyStatement({
      sid: 'DeleteResultObjects',
      actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
      resources: [
        dataBucket.arnForObjects(`${RESULTS_PREFIX}*`),
        dataBucket.arnForObjects(`${STAGING_PREFIX}*`),
      ],
    }),
    new iam.PolicyStatement({
      sid: 'AbortStagedUploads',
      actions: ['s3:AbortMultipartUpload'],
      resources: [dataBucket.arnForObjects(`${STAGING_PREFIX}*`)],
    }),
    // The announcement, and no other event.
    new iam.PolicyStatement({
      sid: 'PublishErased',
      actions: ['events:PutEvents'],
      resources: [props.eventBus.eventBusArn],
      conditions: {
        StringEquals: { 'events:detail-type': DETAIL_TYPES.resultErased, 'events:source': EVENT_SOURCE },
      },
    }),
  ];
  if (props.queues?.length) {
    // The erased results' messages: received (hidden for the walk), deleted, the others let go at once.
    statements.push(
      new iam.PolicyStatement({
        sid: 'PurgeErasedMessages',
        actions: [
          'sqs:ReceiveMessage',
          'sqs:DeleteMessage',
          'sqs:ChangeMessageVisibility',
          'sqs:GetQueueAttributes',
        ],
        resources: props.queues.map((queue) => queue.queueArn),
      }),
      new iam.PolicyStatement({
        sid: 'QueueKey',
        actions: ['kms:Decrypt'],
        resources: [props.encryptionKey.keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `sqs.${Stack.of(props.table).region}.amazonaws.com` },
        },
      }),
    );
  }
  if (analyticsBucket) {
    statements.push(
      listStatement(analyticsBucket, [PROJECTION_PREFIX], ['s3:ListBucketVersions'], 'ListProjection'),
      new iam.PolicyStatement({
        sid: 'DeleteProjectionRows',
        actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
        resources: [analyticsBucket.arnForObjects(`${PROJECTION_PREFIX}*`)],
      }),
    );
  }
  return statements;
}
