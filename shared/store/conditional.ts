/**
 * DynamoDB's failed conditions, read one way everywhere: whether an error is one, and the item that made
 * it fail. A write sent with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` gets that item back with
 * the error, so no second read is needed; where it did not come back (an emulator that ignores the
 * option, or a condition on an absent item) the caller's read is the fallback.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** A `ConditionalCheckFailedException`, from the low-level or the document client. */
export interface ConditionFailure extends Error {
  readonly name: 'ConditionalCheckFailedException';
  /** The item as it was, when the write asked for `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`. */
  readonly Item?: Record<string, AttributeValue>;
}

/** True when the write failed only because its condition did not hold. */
export function isConditionalCheckFailed(error: unknown): error is ConditionFailure {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/**
 * The item that made `failure` fail: the one DynamoDB returned with it (unmarshalled, as the document
 * client reads items), else what `reread` finds (a consistent read of the same key).
 */
export async function itemOnFailedCondition<T>(
  failure: ConditionFailure,
  reread: () => Promise<T | undefined>,
): Promise<T | undefined> {
  return failure.Item ? (unmarshall(failure.Item) as T) : reread();
}
