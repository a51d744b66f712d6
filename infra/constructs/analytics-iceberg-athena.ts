import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import type * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { savedQueries } from '../../shared/analytics/queries';
import { acknowledgeWildcards } from '../nag-findings';
import type { ResourceNames } from '../resource-names';

/** Properties of {@link createAnalystAccess}: the analytics construct's settings, bucket and catalog. */
export interface AnalystAccessProps {
  /** The stack key: encrypts the query results. */
  readonly encryptionKey: kms.IKey;
  /** The pipeline's names (the analyst policy's, with a prefix only). */
  readonly names: ResourceNames;
  /** `DESTROY` also deletes the workgroup's queries with the stack. */
  readonly removalPolicy: RemovalPolicy;
  /** Athena workgroup name. */
  readonly workgroupName: string;
  /** The analytics bucket: the table's files and the query results. */
  readonly bucket: s3.IBucket;
  /** Glue database of the table and the view. */
  readonly databaseName: string;
  /** The view the saved queries read (created before them). */
  readonly view: glue.CfnTable;
  /** ARNs of the Iceberg table and of the view in the Glue catalog. */
  readonly tableArns: readonly string[];
  /** Key prefix of the table's files in the bucket. */
  readonly tablePrefix: string;
  /** Key prefix of Athena's query results in the bucket. */
  readonly queryResultsPrefix: string;
}

/** What {@link createAnalystAccess} made. */
export interface AnalystAccess {
  readonly workgroup: athena.CfnWorkGroup;
  /** Policy to attach to analysts' roles or permission sets. */
  readonly policy: iam.ManagedPolicy;
  /** The policy's statements, for a grant to any principal. */
  readonly statements: iam.PolicyStatement[];
}

/**
 * The read side of the analytics Iceberg table, in `scope`: the Athena workgroup, the saved queries in it
 * and the managed policy for analysts.
 */
export function createAnalystAccess(scope: Construct, props: AnalystAccessProps): AnalystAccess {
  const workgroup = createWorkgroup(scope, props);
  for (const query of savedQueries()) {
    const named = new athena.CfnNamedQuery(scope, `Query-${query.name}`, {
      name: query.name,
      description: query.description.slice(0, 1024),
      database: props.databaseName,
      workGroup: props.workgroupName,
      queryString: query.sql,
    });
    named.addResourceDependency(workgroup);
    named.addResourceDependency(props.view);
  }
  return { workgroup, ...createAnalystPolicy(scope, props) };
}

/** The workgroup: results always land SSE-KMS encrypted in their prefix, whatever the client asks. */
function createWorkgroup(scope: Construct, props: AnalystAccessProps): athena.CfnWorkGroup {
  return new athena.CfnWorkGroup(scope, 'Workgroup', {
    name: props.workgroupName,
    description: 'Analysts: SQL over the results projection (no personal data).',
    recursiveDeleteOption: props.removalPolicy === RemovalPolicy.DESTROY,
    workGroupConfiguration: {
      enforceWorkGroupConfiguration: true,
      publishCloudWatchMetricsEnabled: true,
      bytesScannedCutoffPerQuery: 10 * 1024 ** 3,
      engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
      resultConfiguration: {
        outputLocation: props.bucket.s3UrlForObject(props.queryResultsPrefix),
        encryptionConfiguration: { encryptionOption: 'SSE_KMS', kmsKey: props.encryptionKey.keyArn },
      },
    },
  });
}

/**
 * For analysts: Athena in this workgroup; Glue reads of this database, the table and the view; reads of
 * the table's files; read/write of the query results; the stack key only through S3 for objects of this
 * bucket. Nothing on the delivery stream, the transform, the data bucket, the results table or secrets.
 */
function createAnalystPolicy(
  scope: Construct,
  props: AnalystAccessProps,
): { policy: iam.ManagedPolicy; statements: iam.PolicyStatement[] } {
  const stack = Stack.of(scope);
  const { bucket } = props;
  const statements = [
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
      resources: [
        stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: props.workgroupName }),
      ],
    }),
    new iam.PolicyStatement({
      sid: 'GlueCatalog',
      actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetTables', 'glue:GetPartitions'],
      resources: [
        stack.formatArn({ service: 'glue', resource: 'catalog' }),
        stack.formatArn({ service: 'glue', resource: 'database', resourceName: props.databaseName }),
        ...props.tableArns,
      ],
    }),
    new iam.PolicyStatement({
      sid: 'ListAnalyticsBucket',
      actions: ['s3:ListBucket', 's3:GetBucketLocation'],
      resources: [bucket.bucketArn],
    }),
    new iam.PolicyStatement({
      sid: 'ReadTable',
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects(`${props.tablePrefix}*`)],
    }),
    new iam.PolicyStatement({
      sid: 'QueryResults',
      actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
      resources: [bucket.arnForObjects(`${props.queryResultsPrefix}*`)],
    }),
    new iam.PolicyStatement({
      sid: 'KeyThroughS3ForAnalyticsObjects',
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: [props.encryptionKey.keyArn],
      conditions: {
        StringEquals: { 'kms:ViaService': `s3.${stack.region}.amazonaws.com` },
        StringLike: {
          'kms:EncryptionContext:aws:s3:arn': [bucket.bucketArn, bucket.arnForObjects('*')],
        },
      },
    }),
  ];
  const policy = new iam.ManagedPolicy(scope, 'AnalystPolicy', {
    managedPolicyName: props.names.optional('analysts'),
    description: 'SQL over the results projection through the analytics workgroup; no access to the data.',
    statements,
  });
  acknowledgeWildcards(
    policy,
    statements.flatMap((statement) => statement.resources),
    'Analysts read the table files and Athena writes query results under their prefixes (names per file and query); the key only through S3 for this bucket.',
  );
  return { policy, statements };
}
