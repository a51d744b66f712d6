import { Duration, NestedStack, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { hiveType, PARTITION_COLUMN, PROJECTION_COLUMNS, trinoType } from '../../shared/analytics/columns';
import { PROJECTION_PREFIX } from '../../shared/analytics/projection';
import {
  RESULTS_RAW_TABLE,
  RESULTS_VIEW,
  resultsViewSql,
  savedQueries,
} from '../../shared/analytics/queries';
import { ANALYTICS_ENV } from '../../shared/config';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import type { EnvironmentConfig } from '../config';
import type { ResourceNames } from '../resource-names';
import type { AccessLogDestination } from './data-bucket';
import { keyUseThrough } from './encryption-key';
import { type FunctionNetwork, PipelineFunction } from './pipeline-function';

/** Key prefix of Athena's query results in the analytics bucket. */
export const QUERY_RESULTS_PREFIX = 'athena-results/';

/** Properties of {@link Analytics}. */
export interface AnalyticsProps {
  /** Environment settings (name, retention, log settings). */
  readonly config: EnvironmentConfig;
  /** The stack key: encrypts the analytics bucket, the query results and the DLQ. */
  readonly encryptionKey: kms.IKey;
  /** The pipeline's bus: the projector subscribes to its result events. */
  readonly bus: events.IEventBus;
  /**
   * The bus's name as a plain string, for the key-policy statement of the projector's DLQ: the bus's
   * name attribute there would make the key depend on the bus, which is encrypted with the key.
   * @default unknown (a bus the user brings): the statement names the projector rule on any bus
   */
  readonly busName?: string;
  /** The pipeline's names (database, workgroup, rule, alarm, policy). */
  readonly names: ResourceNames;
  /** The VPC subnets the projector runs in. @default no VPC */
  readonly network?: FunctionNetwork;
  /** Where the analytics bucket's server access logs go. */
  readonly accessLogs: AccessLogDestination;
  /** Topic the projector's DLQ alarm notifies. */
  readonly alarmTopic: sns.ITopic;
  /** What happens to the bucket and log group when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The analytics resources as a nested stack of the pipeline stack: a unit of its own (the pipeline's
 * template, alarms and counts stay as they are; analytics can be updated apart) deployed with it.
 */
export class AnalyticsStack extends NestedStack {
  /** The analytics resources. */
  readonly analytics: Analytics;

  constructor(scope: Construct, id: string, props: AnalyticsProps) {
    super(scope, id, {
      description: `Analytics of the identity verification results (${props.config.name})`,
    });
    this.analytics = new Analytics(this, 'Resources', props);
  }
}

/**
 * SQL for analysts (docs/analytics.md): the pipeline's result events → a projector function → one
 * JSON record per result and status in an analytics bucket (no personal data); a Glue table over it
 * with partition projection on `day` (no crawler), the `results` view (one row per result), an Athena
 * workgroup that enforces KMS-encrypted results in their own prefix, the saved queries, and a managed
 * policy for analysts that reaches nothing of the pipeline's own data.
 */
export class Analytics extends Construct {
  /** Bucket of the projection (`analytics/results/`) and Athena's results (`athena-results/`). */
  readonly bucket: s3.Bucket;
  /** The projector function. */
  readonly projector: PipelineFunction;
  /** Events the projector could not write after EventBridge's retries. */
  readonly deadLetterQueue: sqs.Queue;
  /** Glue database name, e.g. `idv_pipeline_staging`. */
  readonly databaseName: string;
  /** Athena workgroup name, e.g. `idv-pipeline-staging-analytics`. */
  readonly workgroupName: string;
  /** The workgroup. */
  readonly workgroup: athena.CfnWorkGroup;
  /** The raw table and the view. */
  readonly table: glue.CfnTable;
  readonly view: glue.CfnTable;
  /** Policy to attach to analysts' roles or groups. */
  readonly analystPolicy: iam.ManagedPolicy;
  /** The analyst policy's statements, for a grant to any principal (`IdvPipeline.grantReadAnalytics`). */
  readonly analystStatements: iam.PolicyStatement[];

  constructor(scope: Construct, id: string, props: AnalyticsProps) {
    super(scope, id);
    const { config } = props;
    const stack = Stack.of(this);
    this.databaseName = props.names.glueDatabase();
    this.workgroupName = props.names.required('analytics');

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: props.encryptionKey,
      bucketKeyEnabled: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: false,
      // The projection is derived from the results: it goes when they go.
      lifecycleRules: [
        {
          id: 'retention',
          expiration: Duration.days(config.retentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });

    props.accessLogs.logAccessOf(this.bucket, 'analytics-bucket/');

    this.projector = this.createProjector(props);
    this.deadLetterQueue = this.subscribe(props);
    const database = this.createDatabase();
    this.table = this.createTable(database);
    this.view = this.createView(database);
    this.view.addResourceDependency(this.table);
    this.workgroup = this.createWorkgroup(props);
    for (const query of savedQueries()) {
      const named = new athena.CfnNamedQuery(this, `Query-${query.name}`, {
        name: query.name,
        description: query.description.slice(0, 1024),
        database: this.databaseName,
        workGroup: this.workgroupName,
        queryString: query.sql,
      });
      named.addResourceDependency(this.workgroup);
      named.addResourceDependency(this.view);
    }
    this.analystStatements = this.analystPolicyStatements(props, stack);
    this.analystPolicy = this.createAnalystPolicy(this.analystStatements, props);
  }

  /** The projector: writes under `analytics/results/` only, nothing else of the stack. */
  private createProjector(props: AnalyticsProps): PipelineFunction {
    const fn = new PipelineFunction(this, 'ProjectorFunction', {
      entry: 'functions/projector/handler.ts',
      description: 'Writes one analytics record (no personal data) per result event to the analytics bucket.',
      config: props.config,
      timeout: Duration.seconds(15),
      memorySize: 256,
      logRemovalPolicy: props.removalPolicy,
      logEncryptionKey: props.encryptionKey,
      network: props.network,
    });
    fn.addEnvironment(ANALYTICS_ENV.analyticsBucketName, this.bucket.bucketName);
    // Keys are deterministic: a redelivery overwrites. The function never reads, lists or deletes.
    fn.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects(`${PROJECTION_PREFIX}*`)],
      }),
    );
    fn.function.addToRolePolicy(keyUseThrough(props.encryptionKey, 's3', ['kms:GenerateDataKey']));
    Validations.of(fn.function.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.bucketLogicalId()}.Arn>/${PROJECTION_PREFIX}*]`,
      reason:
        'Object keys are per result and day (analytics/results/day=.../{resultId}.{status}.json), unknown in ' +
        'advance; the grant is PutObject only, limited to that prefix of the analytics bucket.',
    });
    return fn;
  }

  /** The rule on the pipeline bus, with retries and a DLQ (alarmed) for events that could not be written. */
  private subscribe(props: AnalyticsProps): sqs.Queue {
    const dlq = new sqs.Queue(this, 'ProjectorDeadLetterQueue', {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.encryptionKey,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(dlq).acknowledge(
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is the dead-letter queue of the projector rule target; it needs no DLQ of its own.',
      },
      {
        id: 'Serverless-SQSRedrivePolicy',
        reason: 'This queue is itself the dead-letter queue of the projector; it redrives nowhere.',
      },
    );
    // The rule's DLQ keeps events EventBridge could not deliver; an event the function failed on (after
    // Lambda's two retries of an asynchronous invocation) goes to the same queue through the function's DLQ.
    const projector = this.projector.function;
    (projector.node.defaultChild as lambda.CfnFunction).deadLetterConfig = { targetArn: dlq.queueArn };
    projector.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [dlq.queueArn] }),
    );
    projector.addToRolePolicy(
      keyUseThrough(props.encryptionKey, 'sqs', ['kms:GenerateDataKey', 'kms:Decrypt']),
    );
    const ruleName = props.names.required('analytics-projector');
    const rule = new events.Rule(this, 'ResultEventsRule', {
      ruleName,
      eventBus: props.bus,
      description: 'Result events of the pipeline → the analytics projector.',
      eventPattern: {
        source: [EVENT_SOURCE],
        detailType: [DETAIL_TYPES.resultStored, DETAIL_TYPES.resultUnavailable],
      },
    });
    rule.addTarget(
      new targets.LambdaFunction(this.projector.function, {
        deadLetterQueue: dlq,
        retryAttempts: 185,
        maxEventAge: Duration.hours(24),
      }),
    );
    // EventBridge encrypts what it sends to the KMS-encrypted DLQ with the stack key: only for this rule.
    // The ARN is built from the names: a reference to the rule would make the key depend on the function.
    // A bus the user brings may be referenced only by a token (a cycle again): then the rule's own
    // name, unique in the account, on any bus.
    const ruleArn = Stack.of(this).formatArn({
      service: 'events',
      resource: 'rule',
      resourceName: `${props.busName ?? '*'}/${ruleName}`,
    });
    props.encryptionKey.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('events.amazonaws.com')],
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: ['*'],
        conditions:
          props.busName === undefined
            ? { ArnLike: { 'aws:SourceArn': ruleArn } }
            : { ArnEquals: { 'aws:SourceArn': ruleArn } },
      }),
    );
    new cloudwatch.Alarm(this, 'ProjectorDeadLetterAlarm', {
      alarmName: props.names.optional('AnalyticsProjectorDeadLetters'),
      alarmDescription:
        'Result events the analytics projector could not write: inspect the projector logs, then replay ' +
        'the events from the bus archive (docs/analytics.md).',
      metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new actions.SnsAction(props.alarmTopic));
    return dlq;
  }

  private createDatabase(): glue.CfnDatabase {
    return new glue.CfnDatabase(this, 'Database', {
      catalogId: Stack.of(this).account,
      databaseInput: {
        name: this.databaseName,
        description: 'Analytics projection of the identity verification results (no personal data).',
      },
    });
  }

  /** `results_raw`: the JSON records, partitioned by `day` with partition projection (no crawler, no MSCK). */
  private createTable(database: glue.CfnDatabase): glue.CfnTable {
    const location = `s3://${this.bucket.bucketName}/${PROJECTION_PREFIX}`;
    const table = new glue.CfnTable(this, 'RawTable', {
      catalogId: Stack.of(this).account,
      databaseName: this.databaseName,
      tableInput: {
        name: RESULTS_RAW_TABLE,
        description: 'Projection records, one per result and status; query the results view instead.',
        tableType: 'EXTERNAL_TABLE',
        parameters: {
          classification: 'json',
          'projection.enabled': 'true',
          [`projection.${PARTITION_COLUMN}.type`]: 'date',
          [`projection.${PARTITION_COLUMN}.format`]: 'yyyy-MM-dd',
          [`projection.${PARTITION_COLUMN}.range`]: '2020-01-01,NOW+1DAYS',
          [`projection.${PARTITION_COLUMN}.interval`]: '1',
          [`projection.${PARTITION_COLUMN}.interval.unit`]: 'DAYS',
          'storage.location.template': `${location}${PARTITION_COLUMN}=\${${PARTITION_COLUMN}}/`,
        },
        partitionKeys: [{ name: PARTITION_COLUMN, type: 'string' }],
        storageDescriptor: {
          location,
          columns: PROJECTION_COLUMNS.filter((c) => c.name !== PARTITION_COLUMN).map((c) => ({
            name: c.name,
            type: hiveType(c.kind),
            comment: c.comment,
          })),
          inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
          // Hive's JSON SerDe reads `yyyy-MM-dd HH:mm:ss.SSS` as TIMESTAMP, the form the records use.
          serdeInfo: { serializationLibrary: 'org.apache.hive.hcatalog.data.JsonSerDe' },
        },
      },
    });
    table.addResourceDependency(database);
    return table;
  }

  /**
   * The `results` view: an Athena (Trino) view stored in Glue, in the encoding Athena itself writes
   * (`/* Presto View: base64(JSON) *\/`), with the same SQL DuckDB uses locally.
   */
  private createView(database: glue.CfnDatabase): glue.CfnTable {
    const definition = {
      originalSql: resultsViewSql(),
      catalog: 'awsdatacatalog',
      schema: this.databaseName,
      columns: PROJECTION_COLUMNS.map((c) => ({ name: c.name, type: trinoType(c.kind) })),
      runAsInvoker: false,
    };
    const view = new glue.CfnTable(this, 'ResultsView', {
      catalogId: Stack.of(this).account,
      databaseName: this.databaseName,
      tableInput: {
        name: RESULTS_VIEW,
        description: 'One row per result (the STORED record when there is one); the view analysts query.',
        tableType: 'VIRTUAL_VIEW',
        parameters: { presto_view: 'true', comment: 'Presto View' },
        viewOriginalText: `/* Presto View: ${Buffer.from(JSON.stringify(definition)).toString('base64')} */`,
        viewExpandedText: '/* Presto View */',
        storageDescriptor: {
          columns: PROJECTION_COLUMNS.map((c) => ({ name: c.name, type: hiveType(c.kind) })),
          serdeInfo: {},
        },
      },
    });
    view.addResourceDependency(database);
    return view;
  }

  /** The workgroup: its settings override the client's, so results always land encrypted in their prefix. */
  private createWorkgroup(props: AnalyticsProps): athena.CfnWorkGroup {
    return new athena.CfnWorkGroup(this, 'Workgroup', {
      name: this.workgroupName,
      description: 'Analysts: SQL over the results projection (no personal data).',
      recursiveDeleteOption: props.removalPolicy === RemovalPolicy.DESTROY,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        // A runaway query stops at 10 GB scanned (USD 0.05 at list price).
        bytesScannedCutoffPerQuery: 10 * 1024 ** 3,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: `s3://${this.bucket.bucketName}/${QUERY_RESULTS_PREFIX}`,
          encryptionConfiguration: { encryptionOption: 'SSE_KMS', kmsKey: props.encryptionKey.keyArn },
        },
      },
    });
  }

  /**
   * For analysts: Athena in this workgroup, Glue reads of this database, reads of the projection and
   * read/write of the query results prefix, and the stack key only through S3 for objects of the
   * analytics bucket (encryption context). Nothing on the data bucket, the results table or the secrets.
   */
  private analystPolicyStatements(props: AnalyticsProps, stack: Stack): iam.PolicyStatement[] {
    const workgroupArn = stack.formatArn({
      service: 'athena',
      resource: 'workgroup',
      resourceName: this.workgroupName,
    });
    const glueArn = (resource: string, name?: string) =>
      stack.formatArn({ service: 'glue', resource, ...(name !== undefined && { resourceName: name }) });
    return [
      new iam.PolicyStatement({
        sid: 'AthenaWorkgroup',
        actions: [
          'athena:StartQueryExecution',
          'athena:StopQueryExecution',
          'athena:GetQueryExecution',
          'athena:GetQueryResults',
          'athena:GetQueryResultsStream',
          'athena:BatchGetQueryExecution',
          'athena:ListQueryExecutions',
          'athena:GetWorkGroup',
          'athena:GetNamedQuery',
          'athena:BatchGetNamedQuery',
          'athena:ListNamedQueries',
        ],
        resources: [workgroupArn],
      }),
      new iam.PolicyStatement({
        sid: 'GlueCatalog',
        actions: [
          'glue:GetDatabase',
          'glue:GetTable',
          'glue:GetTables',
          'glue:GetPartition',
          'glue:GetPartitions',
        ],
        resources: [
          glueArn('catalog'),
          glueArn('database', this.databaseName),
          glueArn('table', `${this.databaseName}/${RESULTS_RAW_TABLE}`),
          glueArn('table', `${this.databaseName}/${RESULTS_VIEW}`),
        ],
      }),
      new iam.PolicyStatement({
        sid: 'ListAnalyticsBucket',
        actions: ['s3:ListBucket', 's3:GetBucketLocation'],
        resources: [this.bucket.bucketArn],
      }),
      new iam.PolicyStatement({
        sid: 'ReadProjection',
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${PROJECTION_PREFIX}*`)],
      }),
      new iam.PolicyStatement({
        sid: 'QueryResults',
        actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [this.bucket.arnForObjects(`${QUERY_RESULTS_PREFIX}*`)],
      }),
      new iam.PolicyStatement({
        sid: 'KeyThroughS3ForAnalyticsObjects',
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: [props.encryptionKey.keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `s3.${stack.region}.amazonaws.com` },
          // With S3 bucket keys the encryption context is the bucket's ARN: objects of this bucket only.
          StringLike: {
            'kms:EncryptionContext:aws:s3:arn': [this.bucket.bucketArn, this.bucket.arnForObjects('*')],
          },
        },
      }),
    ];
  }

  private createAnalystPolicy(statements: iam.PolicyStatement[], props: AnalyticsProps): iam.ManagedPolicy {
    const policy = new iam.ManagedPolicy(this, 'AnalystPolicy', {
      managedPolicyName: props.names.optional('analysts'),
      description: 'SQL over the results projection through the analytics workgroup; no access to the data.',
      statements,
    });
    const bucketId = this.bucketLogicalId();
    for (const [finding, reason] of [
      [
        `Resource::<${bucketId}.Arn>/${PROJECTION_PREFIX}*`,
        'Analysts read every projection record (one object per result); no personal data is in them.',
      ],
      [
        `Resource::<${bucketId}.Arn>/${QUERY_RESULTS_PREFIX}*`,
        "Athena writes and reads query results under this prefix with the caller's credentials; names are per query.",
      ],
      [
        `Resource::<${bucketId}.Arn>/*`,
        'Only inside a kms:EncryptionContext condition: the key works for objects of the analytics bucket alone.',
      ],
    ] as const) {
      Validations.of(policy).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason });
    }
    return policy;
  }

  private bucketLogicalId(): string {
    return Stack.of(this).resolve((this.bucket.node.defaultChild as s3.CfnBucket).logicalId) as string;
  }
}
