/** What `removalPolicy` becomes on the pipeline's stores (docs/construct.md, "Props"). */
import { RemovalPolicy } from 'aws-cdk-lib';
import { IdvPipelineValidationError } from './idv-pipeline-settings';

/**
 * `removalPolicy` as the pipeline's stores can honour it. CloudFormation takes `DeletionPolicy: Snapshot`
 * only for types it can snapshot (RDS, Neptune, DocumentDB, ElastiCache, Redshift, EC2 volumes): none of
 * the pipeline's. A table, bucket or key given `Snapshot` fails the CDK CLI's synth
 * (`SnapshotRemovalNotSupported`), and what a team asking for SNAPSHOT wants is that nothing holding
 * results is deleted: `SNAPSHOT` becomes `RETAIN` for every store (the app is told so, see
 * {@link snapshotKeeps}). Never `DESTROY` unless asked. @default RETAIN
 */
export function dataRemovalPolicyOf(policy: RemovalPolicy = RemovalPolicy.RETAIN): RemovalPolicy {
  if (!Object.values(RemovalPolicy).includes(policy)) {
    throw new IdvPipelineValidationError(
      'removalPolicy',
      `must be a RemovalPolicy (${Object.keys(RemovalPolicy).join(', ')})`,
    );
  }
  return policy === RemovalPolicy.SNAPSHOT ? RemovalPolicy.RETAIN : policy;
}

/** What `removalPolicy: SNAPSHOT` keeps and how, for the info annotation (`idv:removal-policy-snapshot`). */
export function snapshotKeeps(recoveryDays: number): string {
  return (
    'removalPolicy SNAPSHOT: CloudFormation cannot snapshot a DynamoDB table, S3 bucket or KMS key, so ' +
    'they are retained (DeletionPolicy: Retain) instead of deleted when the stack goes: the results table ' +
    `with its items and point-in-time recovery (${recoveryDays} days back, deletion protection on), the ` +
    'data and analytics buckets with every object version, the KMS key that decrypts them, the secrets ' +
    'and the log groups. Delete them by hand once no longer needed; RemovalPolicy.DESTROY deletes them ' +
    'with the stack.'
  );
}
