/**
 * The integration test's eraser (test/integ/): erases every stored result of one customer reference
 * with the pipeline's own erasure code (`shared/erasure/erase-result.ts`, what `idv results erase` runs),
 * under the erasure policy the pipeline grants (`grantErase`). The deployment under test has no
 * analytics projection, so that reach finds nothing; the queues are not searched (the results were
 * fetched already). Returns the erasure records' state and counts only.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseCopyBounds } from '../../../shared/erasure/bounds';
import { type ErasureDeps, eraseResult, selectResults } from '../../../shared/erasure/erase-result';
import { publishResultErased } from '../../../shared/events/erased-event';

/** Environment of the eraser (set by test/integ/idv-pipeline-integ.ts). */
export const ERASER_ENV = {
  table: 'INTEG_RESULTS_TABLE',
  bucket: 'INTEG_DATA_BUCKET',
  markersTable: 'INTEG_MARKERS_TABLE',
  bus: 'INTEG_EVENT_BUS',
  copyBounds: 'INTEG_COPY_BOUNDS',
} as const;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** Erases the results of `event.customerReference`; fails when there is none. */
export async function handler(event: {
  customerReference?: unknown;
}): Promise<{ erased: { state: string; counts: unknown }[] }> {
  if (typeof event.customerReference !== 'string' || event.customerReference === '') {
    throw new Error('erase: the event needs a non-empty "customerReference"');
  }
  const busName = required(ERASER_ENV.bus);
  const events = new EventBridgeClient({});
  const deps: ErasureDeps = {
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({})),
    s3: new S3Client({}),
    tableName: required(ERASER_ENV.table),
    bucketName: required(ERASER_ENV.bucket),
    markersTableName: required(ERASER_ENV.markersTable),
    dialect: 'aws',
    reaches: { projection: { find: async () => [], remove: async () => 0 } },
    receipt: { local: false, analytics: false, bounds: parseCopyBounds(required(ERASER_ENV.copyBounds)) },
    events: { publish: (detail) => publishResultErased(events, busName, detail) },
    environment: 'staging',
  };
  const ids = await selectResults(deps, { by: 'customer-reference', value: event.customerReference });
  if (ids.length === 0) throw new Error('erase: no stored result has that customer reference');
  const principal = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'integ-eraser';
  const erased = [];
  for (const id of ids) {
    const record = await eraseResult(deps, id, { principal, selectedBy: 'customer-reference' });
    erased.push({ state: record.state, counts: record.counts });
  }
  return { erased };
}
