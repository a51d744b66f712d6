/**
 * The poll does not multiply work: a pending record is put on the queue at most once per visibility
 * window. Each enqueue first claims a short-lived marker (`resultId`, `enqueuedAt`) in a small table of its
 * own with a conditional put: "no marker, or one older than the window". A record whose marker is younger
 * is skipped: its message is still in the queue or being worked on (a failed attempt reappears after the
 * visibility timeout, so a record pending for longer than that is enqueued again, once). The table holds
 * no personal data; `expiresAt` lets DynamoDB's TTL delete old markers, and because TTL deletion is lazy
 * (and the local emulator has none) the condition compares `enqueuedAt` itself. A marker also keeps the
 * record's `completed`: a record announced again with another `completed` (a verdict the service changed,
 * docs/changed-verdicts.md) is a new announcement and is enqueued at once, window or not.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describeError } from '../errors';
import type { Logger } from '../logger';
import { isConditionalCheckFailed } from '../store/conditional';

/** The markers-table key of `resultId`'s enqueue marker: the id itself. */
export function enqueueMarkerKey(resultId: string): string {
  return resultId;
}

/** What the poll needs: claim markers before sending, release them when the send failed. */
export interface EnqueueMarkers {
  /**
   * The resultIds (of `resultIds`) this run may enqueue now; the others were enqueued within the window
   * with the same `completed` (`completedOf`, the poll record's, when known).
   */
  claim(
    resultIds: readonly string[],
    now: Date,
    completedOf?: (resultId: string) => string | undefined,
  ): Promise<Set<string>>;
  /** Gives claimed markers back (the send failed), so the next run enqueues them without waiting. */
  release(resultIds: readonly string[], claimedAt: Date): Promise<void>;
}

/** Options of {@link DynamoEnqueueMarkers}. */
export interface DynamoEnqueueMarkersOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** The results queue's visibility timeout, in seconds. */
  readonly windowSeconds: number;
  readonly logger?: Logger;
  /** Conditional puts in flight at once. @default 16 */
  readonly concurrency?: number;
}

/** Markers in a DynamoDB table keyed by `resultId`; the poll needs `dynamodb:PutItem` on it, nothing else. */
export class DynamoEnqueueMarkers implements EnqueueMarkers {
  readonly #o: DynamoEnqueueMarkersOptions;

  constructor(options: DynamoEnqueueMarkersOptions) {
    this.#o = options;
  }

  async claim(
    resultIds: readonly string[],
    now: Date,
    completedOf?: (resultId: string) => string | undefined,
  ): Promise<Set<string>> {
    const nowMs = now.getTime();
    const windowMs = this.#o.windowSeconds * 1000;
    const claimed = new Set<string>();
    let unmarked = 0;
    await eachLimited(resultIds, this.#o.concurrency ?? 16, async (resultId) => {
      const completed = completedOf?.(resultId);
      try {
        await this.#o.client.send(
          new PutCommand({
            TableName: this.#o.tableName,
            Item: {
              resultId: enqueueMarkerKey(resultId),
              enqueuedAt: nowMs,
              expiresAt: Math.ceil((nowMs + 2 * windowMs) / 1000),
              ...(completed !== undefined && { completed }),
            },
            // Another `completed` than the marker's is a new announcement of the result.
            ConditionExpression:
              completed === undefined
                ? 'attribute_not_exists(resultId) OR enqueuedAt <= :cutoff'
                : 'attribute_not_exists(resultId) OR enqueuedAt <= :cutoff OR attribute_not_exists(completed) OR completed <> :completed',
            ExpressionAttributeValues: {
              ':cutoff': nowMs - windowMs,
              ...(completed !== undefined && { ':completed': completed }),
            },
          }),
        );
        claimed.add(resultId);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return;
        // The marker is an optimisation, the message is what matters: enqueue without one.
        claimed.add(resultId);
        unmarked++;
        if (unmarked === 1) {
          this.#o.logger?.warn('enqueue marker could not be written: enqueued without one', {
            error: describeError(error),
          });
        }
      }
    });
    return claimed;
  }

  async release(resultIds: readonly string[], claimedAt: Date): Promise<void> {
    const mine = claimedAt.getTime();
    await eachLimited(resultIds, this.#o.concurrency ?? 16, async (resultId) => {
      try {
        // A put, not a delete (the poll's only permission), and only of our own marker.
        await this.#o.client.send(
          new PutCommand({
            TableName: this.#o.tableName,
            Item: { resultId: enqueueMarkerKey(resultId), enqueuedAt: 0, expiresAt: Math.floor(mine / 1000) },
            ConditionExpression: 'enqueuedAt = :mine',
            ExpressionAttributeValues: { ':mine': mine },
          }),
        );
      } catch {
        // Best effort: an unreleased marker delays the next enqueue by one window, it loses nothing.
      }
    });
  }
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
