/**
 * Sending to the results queue. A batch send can fail for some entries only (SQS answers 200 with a
 * `Failed` list), so the failed entries are sent again under the one batch retry policy
 * (`../store/batch-retry.ts`); whatever still fails is reported to the caller, which must not acknowledge
 * those records as enqueued.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { EnqueueError } from '../errors';
import {
  BATCH_RETRY_POLICY,
  type BatchRetryPolicy,
  batchRetryBackoffMs,
  realSleep,
} from '../store/batch-retry';
import type { QueueMessage } from './messages';

/** SQS's limit of entries per SendMessageBatch. */
export const SQS_BATCH_SIZE = 10;

/** Tunables of `sendMessages`. */
export interface SendOptions {
  /** The retry policy of failed entries. @default BATCH_RETRY_POLICY */
  readonly policy?: BatchRetryPolicy;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/** Sends one message (the webhook's path). */
export async function sendMessage(sqs: SQSClient, queueUrl: string, message: QueueMessage): Promise<void> {
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
}

/**
 * Sends messages in batches of 10, retrying failed entries. Throws `EnqueueError` with the number of
 * messages that could not be sent after the policy's last round.
 */
export async function sendMessages(
  sqs: SQSClient,
  queueUrl: string,
  messages: readonly QueueMessage[],
  options: SendOptions = {},
): Promise<void> {
  const policy = options.policy ?? BATCH_RETRY_POLICY;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  let failed = 0;
  let lastError: unknown;
  for (let start = 0; start < messages.length; start += SQS_BATCH_SIZE) {
    // Entry ids are the index within the chunk, so a failed id maps straight back to its message.
    let pending = messages.slice(start, start + SQS_BATCH_SIZE).map((m, i) => ({ id: String(i), m }));
    for (let round = 1; pending.length > 0 && round <= policy.rounds; round++) {
      if (round > 1) await sleep(batchRetryBackoffMs(round, policy, random()));
      try {
        const response = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: pending.map(({ id, m }) => ({ Id: id, MessageBody: JSON.stringify(m) })),
          }),
        );
        const failedIds = new Set((response.Failed ?? []).map((f) => f.Id));
        pending = pending.filter(({ id }) => failedIds.has(id));
      } catch (error) {
        // The whole call failed (after the SDK's own retries): every entry of the chunk is still pending.
        lastError = error;
      }
    }
    failed += pending.length;
  }
  if (failed > 0) throw new EnqueueError(failed, lastError === undefined ? undefined : { cause: lastError });
}

/** Messages in the queue by state (`ApproximateNumberOf*`). */
export interface QueueDepth {
  visible: number;
  inFlight: number;
  delayed: number;
}

/** `ApproximateNumberOfMessages*` of a queue. */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<QueueDepth> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return {
    visible: Number(Attributes['ApproximateNumberOfMessages'] ?? 0),
    inFlight: Number(Attributes['ApproximateNumberOfMessagesNotVisible'] ?? 0),
    delayed: Number(Attributes['ApproximateNumberOfMessagesDelayed'] ?? 0),
  };
}

/**
 * Makes received messages visible again at once (visibility 0), ten per request: what a walk that hid
 * messages it did not take (an erasure's purge, a DLQ peek or a one-result redrive) owes the queue.
 */
export async function releaseMessages(
  sqs: SQSClient,
  queueUrl: string,
  receiptHandles: readonly string[],
): Promise<void> {
  for (let start = 0; start < receiptHandles.length; start += SQS_BATCH_SIZE) {
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: receiptHandles.slice(start, start + SQS_BATCH_SIZE).map((ReceiptHandle, index) => ({
          Id: String(index),
          ReceiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
}
