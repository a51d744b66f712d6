/**
 * The erasure's reach into the queues (docs/erasure.md, "How it runs"): the messages of erased results —
 * a poll message carries the polling record's `customerReference` and `userId` — deleted from the results
 * queue and its DLQ, so the queue does not keep what the erasure removed (the DLQ would for 14 days).
 *
 * SQS has no delete-by-content: each queue is walked by receiving its visible messages with a visibility
 * timeout long enough for the walk, deleting those of an erased result and making every other one visible
 * again at once when the walk ends (the pipeline is not delayed). The walk is bounded in time and stops at
 * the first empty long-poll receive. What it cannot reach is reported, never hidden: messages in flight
 * (received by fetch-result at that moment; it acknowledges them as `erased` itself) and a walk cut short
 * by its time limit.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { PipelineError } from '../errors';
import { queueDepth, releaseMessages } from '../pipeline/queue';
import type { TraceReach } from './traces';

/** One queue to walk, named for the report. */
export interface PurgedQueue {
  /** `results` or `dlq` (no URL in the report: it names the account). */
  readonly name: string;
  readonly url: string;
}

/** Tunables of {@link purgeQueues}. */
export interface QueuePurgeOptions {
  /** Longest walk of all queues together. @default 60000 */
  readonly timeLimitMs?: number;
  /** How long a received message stays hidden while the walk goes on. @default 120 */
  readonly hideSeconds?: number;
  /** Long-poll wait of each receive; an empty answer ends a queue's walk. @default 1 */
  readonly waitSeconds?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** What the walk of one queue did. */
export interface QueuePurgeReport {
  readonly queue: string;
  /** Messages received and looked at. */
  readonly seen: number;
  /** Messages of erased results deleted. */
  readonly deleted: number;
  /** Messages of erased results SQS refused to delete (they are still there). */
  readonly notDeleted: number;
  /** Messages in flight when the walk ended (not visible to it): the pipeline's own deliveries. */
  readonly inFlight: number;
  /** True when the time limit ended the walk before the queue was seen empty. */
  readonly timedOut: boolean;
}

/** The resultId a queue message names, if it is a result message (the body's own field, nothing else). */
export function messageResultId(body: string | undefined): string | undefined {
  try {
    const parsed = JSON.parse(body ?? '') as { resultId?: unknown };
    return typeof parsed.resultId === 'string' ? parsed.resultId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Deletes from each queue the messages whose `resultId` is in `resultIds`, walking the queues one after
 * the other within the time limit. Returns one report per queue (a queue the time ran out for is reported
 * with `timedOut` and nothing seen).
 */
export async function purgeQueues(
  sqs: SQSClient,
  queues: readonly PurgedQueue[],
  resultIds: ReadonlySet<string>,
  options: QueuePurgeOptions = {},
): Promise<QueuePurgeReport[]> {
  const now = options.now ?? Date.now;
  const endAt = now() + (options.timeLimitMs ?? 60_000);
  const reports: QueuePurgeReport[] = [];
  for (const queue of queues) reports.push(await purgeQueue(sqs, queue, resultIds, endAt, options, now));
  return reports;
}

async function purgeQueue(
  sqs: SQSClient,
  queue: PurgedQueue,
  resultIds: ReadonlySet<string>,
  endAt: number,
  options: QueuePurgeOptions,
  now: () => number,
): Promise<QueuePurgeReport> {
  let seen = 0;
  let deleted = 0;
  let notDeleted = 0;
  let timedOut = true;
  // Kept messages stay hidden while the walk goes on (or it would see them again), then are let go.
  const kept: string[] = [];
  try {
    while (now() < endAt) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: options.waitSeconds ?? 1,
          VisibilityTimeout: options.hideSeconds ?? 120,
        }),
      );
      if (Messages.length === 0) {
        timedOut = false;
        break;
      }
      seen += Messages.length;
      const erased: Message[] = [];
      for (const message of Messages) {
        const resultId = messageResultId(message.Body);
        if (resultId !== undefined && resultIds.has(resultId)) erased.push(message);
        else kept.push(message.ReceiptHandle!);
      }
      if (erased.length === 0) continue;
      const answer = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: erased.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle!,
          })),
        }),
      );
      const failed = answer.Failed?.length ?? 0;
      deleted += erased.length - failed;
      notDeleted += failed;
    }
  } finally {
    await releaseMessages(sqs, queue.url, kept);
  }
  return {
    queue: queue.name,
    seen,
    deleted,
    notDeleted,
    inFlight: (await queueDepth(sqs, queue.url)).inFlight,
    timedOut,
  };
}

/** What the walk of one queue did for one result, or a queue whose URL is not known. */
export type QueueWalk =
  | (QueuePurgeReport & { readonly resultId: string })
  | { queue: string; reached: false };

/**
 * The queues as an erasure reaches them (`ErasureReaches.queues`, inside the one operation of
 * shared/erasure/erase-result.ts, so the record says `ERASED` only once they were walked): `remove` walks
 * the named queues for the result's messages and deletes them; each walk's report goes to `reports` (a
 * queue whose URL is not known is reported once as not reached). A walk that ran out of time, or a
 * message SQS refused to delete, fails the step: the record stays `ERASING` naming `queue-messages`, and
 * the next run walks again. `find` (the dry run) names the queues it would walk: looking would receive
 * their messages.
 */
export function queuePurgeReach(
  sqs: SQSClient,
  named: readonly { readonly name: string; readonly url: string | undefined }[],
  reports: QueueWalk[],
  options: QueuePurgeOptions = {},
): TraceReach {
  const known = named.filter((queue): queue is PurgedQueue => queue.url !== undefined);
  for (const { name } of named.filter((queue) => queue.url === undefined))
    reports.push({ queue: name, reached: false });
  return {
    find: async () => known.map((queue) => `${queue.name} queue: walked when erased`),
    remove: async (resultId) => {
      const walked = await purgeQueues(sqs, known, new Set([resultId]), options);
      reports.push(...walked.map((report) => ({ ...report, resultId })));
      const left = walked.filter((report) => report.timedOut || report.notDeleted > 0);
      if (left.length > 0)
        throw new PipelineError(
          `the walk of the ${left.map((report) => report.queue).join(' and ')} queue for ${resultId} did not finish (time ran out, or SQS refused a delete): run the erasure again`,
        );
      return walked.reduce((sum, report) => sum + report.deleted, 0);
    },
  };
}
