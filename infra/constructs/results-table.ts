import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { DEFAULT_COPY_BOUNDS } from '../../shared/erasure/bounds';
import { RESULTS_TABLE } from '../../shared/store/table-schema';
import { IdvPipelineValidationError } from '../idv-pipeline-settings';

/** Properties of {@link ResultsTable}. */
export interface ResultsTableProps {
  /** Key that encrypts the table. */
  readonly encryptionKey: kms.IKey;
  /** Keep the table when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
  /**
   * Days point-in-time recovery reaches back (1–35): an erased item stays restorable from the backups this
   * long, and the erasure receipt says so (docs/erasure.md).
   * @default DEFAULT_COPY_BOUNDS.tableRecoveryDays (7)
   */
  readonly recoveryPeriodDays?: number;
}

/**
 * The results table: one item per resultId, the keys, TTL and indexes of `RESULTS_TABLE`
 * (shared with the result store and the analyst queries). On-demand, KMS, point-in-time recovery for a
 * bounded period (the erasure's copy bound) and deletion protection when retained.
 */
export class ResultsTable extends Construct {
  /** The table. */
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: ResultsTableProps) {
    super(scope, id);
    const recoveryPeriodInDays = props.recoveryPeriodDays ?? DEFAULT_COPY_BOUNDS.tableRecoveryDays;
    if (!Number.isInteger(recoveryPeriodInDays) || recoveryPeriodInDays < 1 || recoveryPeriodInDays > 35)
      throw new IdvPipelineValidationError(
        'copyBounds.tableRecoveryDays',
        'must be a whole number of days from 1 to 35 (the point-in-time recovery period)',
        { where: this.node.path },
      );
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: RESULTS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: props.encryptionKey,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays },
      timeToLiveAttribute: RESULTS_TABLE.ttlAttribute,
      removalPolicy: props.removalPolicy,
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
    });
    for (const index of Object.values(RESULTS_TABLE.indexes)) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
        // Each index write copies what it projects: keys (and for the day index the two filter
        // attributes) only, never the document or personal data; queries fetch the items they list.
        ...(index.projection.type === 'KEYS_ONLY'
          ? { projectionType: dynamodb.ProjectionType.KEYS_ONLY }
          : {
              projectionType: dynamodb.ProjectionType.INCLUDE,
              nonKeyAttributes: [...index.projection.attributes],
            }),
      });
    }
  }
}
