import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { RESULTS_TABLE } from '../../shared/store/table-schema';

/** Properties of {@link ResultsTable}. */
export interface ResultsTableProps {
  /** Key that encrypts the table. */
  readonly encryptionKey: kms.IKey;
  /** Keep the table when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The results table: one item per resultId, the keys, TTL and indexes of `RESULTS_TABLE`
 * (shared with the result store and the analyst queries). On-demand, KMS, point-in-time recovery and
 * deletion protection when retained.
 */
export class ResultsTable extends Construct {
  /** The table. */
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: ResultsTableProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: RESULTS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: props.encryptionKey,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
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
