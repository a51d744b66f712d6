import { ArnFormat, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as athena from 'aws-cdk-lib/aws-athena';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  type ColumnKind,
  hiveType,
  PARTITION_COLUMN,
  PROJECTION_COLUMNS,
  trinoType,
} from '../../shared/analytics/columns';
import { PROJECTION_PREFIX } from '../../shared/analytics/projection';
import { RESULTS_RAW_TABLE, RESULTS_VIEW, resultsViewSql } from '../../shared/analytics/queries';
import type { CustomerReferenceMode } from '../../shared/config';
import { type CopyBounds, resolveCopyBounds } from '../../shared/erasure/bounds';
import { acknowledgeWildcards } from '../nag-findings';
import type { ResourceNames } from '../resource-names';
import { createAnalystAccess } from './analytics-iceberg-athena';
import { createIcebergDelivery } from './analytics-iceberg-delivery';
import { type AccessLogDestination, privateBucketProps } from './data-bucket';
import { keyUseThrough } from './encryption-key';
import type { FunctionNetwork, FunctionSettings, PipelineFunction } from './pipeline-function';

/** Key prefix of the Iceberg table (data and metadata) in the analytics bucket. */
export const ICEBERG_TABLE_PREFIX = `iceberg/${RESULTS_RAW_TABLE}/`;
/** Key prefix of the records Firehose could not deliver or transform. */
export const DELIVERY_ERRORS_PREFIX = 'delivery-errors/';
/** Key prefix of Athena's query results. */
export const ICEBERG_QUERY_RESULTS_PREFIX = 'athena-results/';

/** Properties of {@link AnalyticsIceberg}. */
export interface AnalyticsIcebergProps {
  /** Tracing, log retention and level, and metrics dimensions of the transformation function. */
  readonly functionSettings: FunctionSettings;
  /** Days a stored result is kept: the default copy bounds and the expiry of the replaced JSON records. */
  readonly retentionDays: number;
  /** Whether the rows keep the events' `customerReference` (the transformation's mode). */
  readonly eventCustomerReference: CustomerReferenceMode;
  /** The stack key: encrypts the bucket, the delivery stream, the query results and the logs. */
  readonly encryptionKey: kms.IKey;
  /** The pipeline's bus: its result events go to the delivery stream. */
  readonly bus: events.IEventBus;
  /**
   * The pipeline's names: the Glue database, the workgroup and the delivery stream always (the saved
   * queries and the key policy name them), the rule and the analyst policy with a prefix only.
   */
  readonly names: ResourceNames;
  /** The VPC subnets the transformation function runs in. @default no VPC */
  readonly network?: FunctionNetwork;
  /** Where the analytics bucket's server access logs go. */
  readonly accessLogs: AccessLogDestination;
  /** What happens to the bucket, the table's files and the log groups when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
  /**
   * Delivery buffer: Firehose writes a Parquet file when this much time has passed or 128 MB came in.
   * Longer means fewer, larger files (and fewer commits); compaction merges the small ones anyway.
   * @default 300 seconds
   */
  readonly bufferInterval?: Duration;
  /**
   * How long the copies an erasure cannot reach at once live here (docs/erasure.md): `queryResultsDays`
   * and `deliveryErrorsDays` (lifecycle rules of `athena-results/` and `delivery-errors/`),
   * `snapshotRetentionDays` and `orphanFileDays` (the Iceberg table's optimizers).
   * @default resolveCopyBounds({}, retentionDays): a week at most, orphan files after 3 days
   */
  readonly copyBounds?: CopyBounds;
  /**
   * The results table: the transformation drops the events of results erased there (it reads their
   * `<id>#erasure` records only), so a replay of the archive brings no erased row back.
   * @default none (no look-up: a replay after an erasure recreates the row)
   */
  readonly erasureTable?: dynamodb.ITable;
}

/**
 * SQL for analysts over a table format made for it (docs/analytics.md, "On AWS"): result events of the
 * pipeline bus → an EventBridge rule → an Amazon Data Firehose stream whose transformation Lambda projects
 * each event (no personal data) into one row → an Apache Iceberg table in the Glue catalog (Parquet,
 * partitioned by `day`, `result_id` as unique key: Firehose upserts, so one row per result), compacted and
 * expired by Glue's table optimizers; the `results` view and the saved queries in an Athena workgroup that
 * enforces SSE-KMS results; a managed policy for analysts that reaches the table and the query results only.
 */
export class AnalyticsIceberg extends Construct {
  /** Bucket of the Iceberg table, the delivery errors and Athena's results. */
  readonly bucket: s3.Bucket;
  /** Glue database name, e.g. `idv_pipeline_staging`. */
  readonly databaseName: string;
  /** Athena workgroup name, e.g. `idv-pipeline-staging-analytics`. */
  readonly workgroupName: string;
  /** Delivery stream name (the same as the workgroup's: they live in different services). */
  readonly deliveryStreamName: string;
  readonly database: glue.CfnDatabase;
  /** The Iceberg table `result_rows`. */
  readonly table: glue.CfnTable;
  /** The `results` view. */
  readonly view: glue.CfnTable;
  readonly deliveryStream: firehose.CfnDeliveryStream;
  /** The transformation Lambda (the projection). */
  readonly transform: PipelineFunction;
  readonly workgroup: athena.CfnWorkGroup;
  /** Policy to attach to analysts' roles or permission sets. */
  readonly analystPolicy: iam.ManagedPolicy;
  /** The analyst policy's statements, for a grant to any principal (`IdvPipeline.grantReadAnalytics`). */
  readonly analystStatements: iam.PolicyStatement[];

  /** The stack key, which encrypts the table's files. */
  readonly encryptionKey: kms.IKey;

  constructor(scope: Construct, id: string, props: AnalyticsIcebergProps) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
    const stack = Stack.of(this);
    this.databaseName = props.names.glueDatabase();
    this.workgroupName = props.names.required('analytics');
    this.deliveryStreamName = props.names.required('analytics');
    const bounds = props.copyBounds ?? resolveCopyBounds({}, props.retentionDays);

    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...privateBucketProps(props.encryptionKey, props.removalPolicy),
      autoDeleteObjects: false,
      lifecycleRules: [
        // Query results and delivery errors may hold an erased result's row or event: they go within
        // their copy bounds (the erasure receipt names them); the table's files are managed by Iceberg
        // (snapshot expiry and orphan-file deletion below), never by a lifecycle rule that could delete a
        // file a snapshot still names.
        {
          id: 'query-results',
          prefix: ICEBERG_QUERY_RESULTS_PREFIX,
          expiration: Duration.days(bounds.queryResultsDays),
        },
        {
          id: 'delivery-errors',
          prefix: DELIVERY_ERRORS_PREFIX,
          expiration: Duration.days(bounds.deliveryErrorsDays),
        },
        { id: 'incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // The JSON records of the projector this construct replaced (docs/deploy.md): they expire on the
        // retention they were written with, and nothing writes there any more.
        {
          id: 'legacy-json-projection',
          prefix: PROJECTION_PREFIX,
          expiration: Duration.days(props.retentionDays),
        },
      ],
    });
    props.accessLogs.logAccessOf(this.bucket, 'analytics-bucket/');

    this.database = new glue.CfnDatabase(this, 'Database', {
      catalogId: stack.account,
      databaseInput: {
        name: this.databaseName,
        description: 'Analytics projection of the identity verification results (no personal data).',
      },
    });
    this.table = this.createTable();
    this.view = this.createView();
    const delivery = createIcebergDelivery(this, {
      ...props,
      streamName: this.deliveryStreamName,
      bucket: this.bucket,
      databaseName: this.databaseName,
      table: this.table,
      tableArn: this.tableArn(),
      tablePrefix: ICEBERG_TABLE_PREFIX,
      errorsPrefix: DELIVERY_ERRORS_PREFIX,
      ...(props.erasureTable && { erasureTable: props.erasureTable }),
    });
    this.transform = delivery.transform;
    this.deliveryStream = delivery.deliveryStream;
    this.createOptimizers(props, bounds);
    const analyst = createAnalystAccess(this, {
      ...props,
      workgroupName: this.workgroupName,
      bucket: this.bucket,
      databaseName: this.databaseName,
      view: this.view,
      tableArns: [this.tableArn(RESULTS_RAW_TABLE), this.tableArn(RESULTS_VIEW)],
      tablePrefix: ICEBERG_TABLE_PREFIX,
      queryResultsPrefix: ICEBERG_QUERY_RESULTS_PREFIX,
    });
    this.workgroup = analyst.workgroup;
    this.analystPolicy = analyst.policy;
    this.analystStatements = analyst.statements;
  }

  /**
   * What `idv results erase` needs to delete one result's row (docs/erasure.md, "How it runs"): the analyst's
   * access (a query in the workgroup, the catalog, the table's files, the query results) plus a row-level
   * `DELETE` — the table's catalog entry updated and delete files written under the table's prefix,
   * through the stack key. Nothing else of the analytics stack.
   */
  eraseStatements(): iam.PolicyStatement[] {
    const stack = Stack.of(this);
    return [
      ...this.analystStatements,
      new iam.PolicyStatement({
        sid: 'EraseProjectionRowCatalog',
        actions: ['glue:UpdateTable'],
        resources: [
          stack.formatArn({ service: 'glue', resource: 'catalog' }),
          stack.formatArn({ service: 'glue', resource: 'database', resourceName: this.databaseName }),
          this.tableArn(),
        ],
      }),
      new iam.PolicyStatement({
        sid: 'EraseProjectionRowFiles',
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects(`${ICEBERG_TABLE_PREFIX}*`)],
      }),
      keyUseThrough(this.encryptionKey, 's3', ['kms:GenerateDataKey', 'kms:Decrypt']),
    ];
  }

  /** ARN of the Iceberg table in the Glue catalog. */
  tableArn(name = RESULTS_RAW_TABLE): string {
    return Stack.of(this).formatArn({
      service: 'glue',
      resource: 'table',
      resourceName: `${this.databaseName}/${name}`,
    });
  }

  /**
   * `result_rows`: an Iceberg v2 table whose schema comes from the projection's columns, `result_id` its
   * identifier field (required), partitioned by the `day` string (identity), rows written sorted by day.
   */
  private createTable(): glue.CfnTable {
    const fields = PROJECTION_COLUMNS.map((column, i) => ({
      id: i + 1,
      name: column.name,
      type: icebergType(column.kind, PROJECTION_COLUMNS.length + i + 1),
      required: column.name === 'result_id',
      doc: column.comment,
    }));
    const idOf = (name: string) => fields.find((f) => f.name === name)!.id;
    const table = new glue.CfnTable(this, 'IcebergTable', {
      catalogId: Stack.of(this).account,
      databaseName: this.databaseName,
      name: RESULTS_RAW_TABLE,
      openTableFormatInput: {
        icebergInput: {
          metadataOperation: 'CREATE',
          version: '2',
          icebergTableInput: {
            location: this.bucket.s3UrlForObject(ICEBERG_TABLE_PREFIX),
            schema: { schemaId: 0, type: 'struct', fields, identifierFieldIds: [idOf('result_id')] },
            partitionSpec: {
              specId: 0,
              fields: [
                {
                  name: PARTITION_COLUMN,
                  sourceId: idOf(PARTITION_COLUMN),
                  transform: 'identity',
                  fieldId: 1000,
                },
              ],
            },
            writeOrder: {
              orderId: 1,
              fields: [
                {
                  sourceId: idOf(PARTITION_COLUMN),
                  transform: 'identity',
                  direction: 'asc',
                  nullOrder: 'nulls-last',
                },
              ],
            },
            properties: {
              'write.format.default': 'parquet',
              'write.parquet.compression-codec': 'zstd',
              // Upserts write equality deletes; reads merge them until compaction rewrites the files.
              'write.delete.mode': 'merge-on-read',
              'write.update.mode': 'merge-on-read',
              'write.target-file-size-bytes': String(128 * 1024 * 1024),
            },
          },
        },
      },
      tableInput: {
        name: RESULTS_RAW_TABLE,
        description: 'One row per result (Iceberg, upserted on result_id); query the results view.',
        tableType: 'EXTERNAL_TABLE',
        storageDescriptor: {
          location: this.bucket.s3UrlForObject(ICEBERG_TABLE_PREFIX),
          columns: PROJECTION_COLUMNS.map((c) => ({
            name: c.name,
            type: hiveType(c.kind),
            comment: c.comment,
          })),
        },
      },
    });
    table.addResourceDependency(this.database);
    return table;
  }

  /** The `results` view: an Athena (Trino) view stored in Glue, in the encoding Athena itself writes. */
  private createView(): glue.CfnTable {
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
        description: 'One row per result; the view analysts query (docs/analytics.md).',
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
    view.addResourceDependency(this.table);
    return view;
  }

  /**
   * Glue's managed table optimizers: compaction (merges Firehose's small files and applies the upserts'
   * equality deletes — an erasure's row-level DELETE among them — so reads stay fast), snapshot retention
   * (time travel for `snapshotRetentionDays`, then the expired snapshots' files are removed) and orphan-file
   * deletion (`orphanFileDays`): after both, no file holds an erased row. They run with a role that
   * reaches this table and its files only.
   */
  private createOptimizers(props: AnalyticsIcebergProps, bounds: CopyBounds): void {
    const stack = Stack.of(this);
    const role = new iam.Role(this, 'OptimizerRole', {
      assumedBy: new iam.ServicePrincipal('glue.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
      description: 'Glue table optimizers of the analytics Iceberg table.',
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['glue:GetTable', 'glue:GetDatabase', 'glue:UpdateTable'],
        resources: [
          stack.formatArn({ service: 'glue', resource: 'catalog' }),
          stack.formatArn({ service: 'glue', resource: 'database', resourceName: this.databaseName }),
          this.tableArn(),
        ],
      }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects(`${ICEBERG_TABLE_PREFIX}*`)],
      }),
    );
    // The table's files are SSE-KMS with the stack key: compaction reads and rewrites them through S3.
    role.addToPolicy(keyUseThrough(props.encryptionKey, 's3', ['kms:Decrypt', 'kms:GenerateDataKey']));
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [
          stack.formatArn({
            service: 'logs',
            resource: 'log-group',
            resourceName: '/aws-glue/iceberg-compaction/*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ],
      }),
    );
    const optimizer = (
      type: string,
      configuration: Omit<glue.CfnTableOptimizer.TableOptimizerConfigurationProperty, 'roleArn' | 'enabled'>,
    ) => {
      const resource = new glue.CfnTableOptimizer(this, `Optimizer-${type}`, {
        catalogId: stack.account,
        databaseName: this.databaseName,
        tableName: RESULTS_RAW_TABLE,
        type,
        tableOptimizerConfiguration: { roleArn: role.roleArn, enabled: true, ...configuration },
      });
      resource.addResourceDependency(this.table);
      resource.node.addDependency(role);
    };
    optimizer('compaction', {
      compactionConfiguration: { icebergConfiguration: { strategy: 'binpack', deleteFileThreshold: 1 } },
    });
    optimizer('retention', {
      retentionConfiguration: {
        icebergConfiguration: {
          snapshotRetentionPeriodInDays: bounds.snapshotRetentionDays,
          numberOfSnapshotsToRetain: 1,
          cleanExpiredFiles: true,
        },
      },
    });
    optimizer('orphan_file_deletion', {
      orphanFileDeletionConfiguration: {
        icebergConfiguration: {
          orphanFileRetentionPeriodInDays: bounds.orphanFileDays,
          location: this.bucket.s3UrlForObject(ICEBERG_TABLE_PREFIX),
        },
      },
    });
    acknowledgeWildcards(
      role,
      [
        this.bucket.arnForObjects(`${ICEBERG_TABLE_PREFIX}*`),
        stack.formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: '/aws-glue/iceberg-compaction/*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      'Compaction rewrites files of the table prefix only (names unknown in advance) and logs to its own log groups.',
    );
  }
}

/**
 * Iceberg type of a column as Glue's `IcebergStructField.type` takes it: a primitive name, or the JSON of a
 * list type with its element id.
 */
export function icebergType(kind: ColumnKind, elementId: number): string {
  switch (kind) {
    case 'string':
      return 'string';
    case 'timestamp':
      return 'timestamp';
    case 'integer':
      return 'int';
    case 'double':
      return 'double';
    case 'string-array':
      return JSON.stringify({
        type: 'list',
        'element-id': elementId,
        element: 'string',
        'element-required': false,
      });
  }
}
