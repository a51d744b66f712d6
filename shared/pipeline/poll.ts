/**
 * The poll use-case: read the pending poll records and put every one on the results queue with its poll
 * metadata. The records stay at the service until their result is fetched, so a failed run is repaired by
 * the next scheduled run (60 s later).
 */

import type { SQSClient } from '@aws-sdk/client-sqs';
import { RESULT_ID_PATTERN } from '../api/result-id';
import type { PollResponse } from '../api/schemas';
import { describeError } from '../errors';
import type { Logger } from '../logger';
import { METRICS } from '../metrics-names';
import { parseCompleted } from '../store/timestamps';
import type { EnqueueMarkers } from './enqueue-markers';
import { hintOf, type ResultMessage } from './messages';
import { type Metrics, MetricUnit, publishMetrics } from './metrics';
import { type SendOptions, sendMessages } from './queue';

/** What the poll needs from the service client (`IdvClient` fits). */
export interface PollSource {
  poll(): Promise<PollResponse>;
}

/** Dependencies of `pollAndEnqueue`. */
export interface PollDeps {
  readonly source: PollSource;
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly send?: SendOptions;
  /** Enqueue each pending record at most once per visibility window (see enqueue-markers.ts). */
  readonly markers?: EnqueueMarkers;
}

/** Outcome of one poll run. */
export interface PollSummary {
  /** Poll records the service returned. */
  readonly pending: number;
  /** Messages sent to the queue (distinct well-formed resultIds not enqueued within the window). */
  readonly enqueued: number;
  /** With markers: records skipped because their message was enqueued within the visibility window. */
  readonly alreadyEnqueued?: number;
  /** Records skipped because their resultId is missing or not well-formed, or they are not objects. */
  readonly invalid: number;
  /** Age in seconds of the oldest record with a readable `completed`, 0 when none. */
  readonly oldestAgeSeconds: number;
}

/** Polls once and enqueues every record; throws (after bounded retries) if some could not be enqueued. */
export async function pollAndEnqueue(deps: PollDeps): Promise<PollSummary> {
  const nowDate = (deps.now ?? (() => new Date()))();
  const now = nowDate.getTime();
  const { results } = await deps.source.poll();
  const messages = new Map<string, ResultMessage>();
  let invalid = 0;
  let oldest = now;
  for (const record of results) {
    // Every record counts towards the oldest age, the unfetchable ones too: they wait at the service
    // until it deletes them, and the "pending too long" alarm is how a human learns of them.
    const completedMs = parseCompleted(record.completed);
    if (completedMs !== undefined) oldest = Math.min(oldest, completedMs);
    if (!RESULT_ID_PATTERN.test(record.resultId)) {
      invalid++;
      continue;
    }
    const message: ResultMessage = { resultId: record.resultId, source: 'poll' };
    const fields = {
      transactionId: hintOf(record.transactionId),
      product: hintOf(record.product),
      customerReference: hintOf(record.customerReference),
      userId: hintOf(record.userId),
      completed: hintOf(record.completed),
    };
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) (message as Record<string, unknown>)[key] = value;
    }
    messages.set(record.resultId, message);
  }
  if (invalid > 0) {
    // Not fetchable by this pipeline (the id cannot be a path or key part): lost unless someone acts.
    // Count only: the record itself may hold personal data (customerReference, unknown fields).
    deps.logger.error('poll records without a usable resultId skipped: they cannot be fetched', {
      count: invalid,
    });
  }
  const claimed = deps.markers
    ? await deps.markers.claim([...messages.keys()], nowDate, (id) => messages.get(id)?.completed)
    : undefined;
  const toSend = [...messages.values()].filter((m) => claimed === undefined || claimed.has(m.resultId));
  try {
    await sendMessages(deps.sqs, deps.queueUrl, toSend, deps.send);
  } catch (error) {
    // Which entries failed is not known: give every claim back, so the next run sends them all again.
    await deps.markers?.release(
      toSend.map((m) => m.resultId),
      nowDate,
    );
    throw error;
  }
  const summary: PollSummary = {
    pending: results.length,
    enqueued: toSend.length,
    ...(deps.markers && { alreadyEnqueued: messages.size - toSend.length }),
    invalid,
    oldestAgeSeconds: Math.max(0, Math.floor((now - oldest) / 1000)),
  };
  deps.logger.info('poll records enqueued', { ...summary });
  return summary;
}

/**
 * One scheduled run as the poll function reports it: the backlog's gauges from the summary, or the
 * failure counted and logged, then thrown (the records stay at the service for the next run).
 */
export async function runPoll(deps: PollDeps, metrics: Metrics): Promise<PollSummary> {
  try {
    const summary = await pollAndEnqueue(deps);
    metrics.addMetric(METRICS.names.pendingResults, MetricUnit.Count, summary.pending);
    metrics.addMetric(METRICS.names.oldestPendingAgeSeconds, MetricUnit.Seconds, summary.oldestAgeSeconds);
    return summary;
  } catch (error) {
    metrics.addMetric(METRICS.names.pollFailures, MetricUnit.Count, 1);
    deps.logger.error('poll failed', { error: describeError(error) });
    throw error;
  } finally {
    publishMetrics(metrics);
  }
}
