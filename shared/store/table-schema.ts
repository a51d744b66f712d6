/**
 * Shape of the pipeline's two DynamoDB tables — the results table and the poll's enqueue-markers table —
 * shared by the code that reads and writes them, the local emulator set-up (local/pipeline-resources.ts)
 * and the CDK constructs (infra/constructs/results-table.ts, infra/constructs/poller.ts), so that all
 * agree on key, TTL and index names.
 */
/**
 * What an index copies from each item. Every write of an item is also a write to each index holding it,
 * so an index holds only what its query reads without a second lookup — never the document or
 * personal data: `KEYS_ONLY` (the table and index keys) or `INCLUDE` (the keys plus the named attributes).
 */
export type IndexProjection =
  | { readonly type: 'KEYS_ONLY' }
  | { readonly type: 'INCLUDE'; readonly attributes: readonly string[] };

export const RESULTS_TABLE = {
  /** Partition key of the table (string). */
  partitionKey: 'resultId',
  /** TTL attribute: epoch seconds after which DynamoDB may delete the item (retention setting). */
  ttlAttribute: 'expiresAt',
  indexes: {
    /** All results of one transaction. */
    byTransactionId: {
      indexName: 'byTransactionId',
      partitionKey: 'transactionId',
      sortKey: 'completed',
      // The query reads keys only and fetches the (few) items.
      projection: { type: 'KEYS_ONLY' } as IndexProjection,
    },
    /** All results of one customer reference, newest last. */
    byCustomerReference: {
      indexName: 'byCustomerReference',
      partitionKey: 'customerReference',
      sortKey: 'completed',
      projection: { type: 'KEYS_ONLY' } as IndexProjection,
    },
    /** All results completed on one UTC day (`completedDay`, yyyy-MM-dd), ordered by `completed`. */
    byCompletedDay: {
      indexName: 'byCompletedDay',
      partitionKey: 'completedDay',
      sortKey: 'completed',
      // `idv results list --result/--product` filters in the query, before any item is fetched.
      projection: { type: 'INCLUDE', attributes: ['result', 'product'] } as IndexProjection,
    },
  },
} as const;

/**
 * The poll's enqueue markers (shared/pipeline/enqueue-markers.ts): one item per resultId holding
 * `enqueuedAt` and the TTL `expiresAt`; resultIds and times only, no index.
 */
export const MARKERS_TABLE = {
  /** Partition key of the table (string). */
  partitionKey: 'resultId',
  /** TTL attribute: epoch seconds after which DynamoDB may delete the marker. */
  ttlAttribute: 'expiresAt',
} as const;

/**
 * The `CreateTable` input of the results table with its indexes and their projections, for the local
 * emulator and tests (the stack builds the same from `RESULTS_TABLE` in infra/constructs/results-table.ts),
 * so an index query locally returns exactly what it returns on AWS.
 */
export function resultsTableDefinition(tableName: string) {
  const { indexes, partitionKey } = RESULTS_TABLE;
  const keyNames = new Set<string>([partitionKey]);
  for (const index of Object.values(indexes)) keyNames.add(index.partitionKey).add(index.sortKey);
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    KeySchema: [{ AttributeName: partitionKey, KeyType: 'HASH' as const }],
    AttributeDefinitions: [...keyNames].map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    GlobalSecondaryIndexes: Object.values(indexes).map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection:
        index.projection.type === 'KEYS_ONLY'
          ? { ProjectionType: 'KEYS_ONLY' as const }
          : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projection.attributes] },
    })),
  };
}

/**
 * The `CreateTable` input of the enqueue-markers table, for the local emulator and tests (the stack builds
 * the same from `MARKERS_TABLE` in infra/constructs/poller.ts).
 */
export function markersTableDefinition(tableName: string) {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    KeySchema: [{ AttributeName: MARKERS_TABLE.partitionKey, KeyType: 'HASH' as const }],
    AttributeDefinitions: [{ AttributeName: MARKERS_TABLE.partitionKey, AttributeType: 'S' as const }],
  };
}
