/**
 * Shape of the DynamoDB results table, shared by the result store, the analyst queries, the local
 * emulator set-up and the CDK table construct, so that all four agree on key and index names.
 */
export const RESULTS_TABLE = {
  /** Partition key of the table (string). */
  partitionKey: 'resultId',
  /** TTL attribute: epoch seconds after which DynamoDB may delete the item (retention setting). */
  ttlAttribute: 'expiresAt',
  indexes: {
    /** All results of one transaction. */
    byTransactionId: { indexName: 'byTransactionId', partitionKey: 'transactionId', sortKey: 'completed' },
    /** All results of one customer reference, newest last. */
    byCustomerReference: {
      indexName: 'byCustomerReference',
      partitionKey: 'customerReference',
      sortKey: 'completed',
    },
    /** All results completed on one UTC day (`completedDay`, yyyy-MM-dd), ordered by `completed`. */
    byCompletedDay: { indexName: 'byCompletedDay', partitionKey: 'completedDay', sortKey: 'completed' },
  },
} as const;
