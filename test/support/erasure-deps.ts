/**
 * The erasure's dependencies as the SDK-level tests give them (test/unit/erasure-aws.test.ts,
 * test/unit/erasure-marker-scan.test.ts): the AWS dialect, a deployment's receipt with analytics.
 */
import { DEFAULT_COPY_BOUNDS } from '../../shared/erasure/bounds';
import type { ErasedEventSink, ErasureDeps } from '../../shared/erasure/erase-result';
import type { TraceReach } from '../../shared/erasure/traces';

/** The clients and names the erasure works on. */
export type ErasureStores = Pick<
  ErasureDeps,
  'dynamo' | 's3' | 'tableName' | 'bucketName' | 'markersTableName'
>;

/**
 * The erasure on `stores` in the AWS dialect, the analytics projection its only other reach, the receipt
 * of a deployment with analytics, erased events to `events`; `overrides` last.
 */
export function awsErasureDeps(
  stores: ErasureStores,
  projection: TraceReach,
  events: ErasedEventSink,
  overrides: Partial<ErasureDeps> = {},
): ErasureDeps {
  return {
    ...stores,
    dialect: 'aws',
    reaches: { projection },
    receipt: { local: false, analytics: true, bounds: DEFAULT_COPY_BOUNDS },
    events,
    ...overrides,
  };
}
