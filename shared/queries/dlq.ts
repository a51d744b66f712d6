/**
 * Operator action on the dead-letter queue: move dead-lettered messages back to the results queue.
 * Result messages go back with `source: "redrive"`; upload notifications unchanged; a body that is not
 * a valid queue message stays in the DLQ (it would only fail again).
 */
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { isUploadMessage, parseQueueMessage } from '../pipeline/messages';

/** Outcome of {@link redriveDlq}. */
export interface RedriveSummary {
  moved: number;
  /** Malformed messages left in the DLQ. */
  kept: number;
}

/** Options of {@link redriveDlq}. */
export interface RedriveOptions {
  sqs: SQSClient;
  dlqUrl: string;
  queueUrl: string;
  /** Stop after this many messages. @default unlimited */
  max?: number;
  onProgress?: (summary: RedriveSummary) => void;
}

// Kept messages must stay hidden for the rest of the run, or the loop would see them again.
const KEEP_HIDDEN_SECONDS = 300;

/** Moves DLQ messages back to the results queue until the DLQ is empty (or `max` is reached). */
export async function redriveDlq(options: RedriveOptions): Promise<RedriveSummary> {
  const summary: RedriveSummary = { moved: 0, kept: 0 };
  const max = options.max ?? Number.POSITIVE_INFINITY;
  while (summary.moved + summary.kept < max) {
    const { Messages = [] } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - summary.moved - summary.kept),
        WaitTimeSeconds: 1,
        VisibilityTimeout: KEEP_HIDDEN_SECONDS,
      }),
    );
    if (Messages.length === 0) break;
    const moving: { id: string; body: string; receiptHandle: string }[] = [];
    for (const [index, message] of Messages.entries()) {
      try {
        const parsed = parseQueueMessage(message.Body ?? '');
        const body = isUploadMessage(parsed) ? parsed : { ...parsed, source: 'redrive' as const };
        moving.push({ id: String(index), body: JSON.stringify(body), receiptHandle: message.ReceiptHandle! });
      } catch {
        summary.kept++;
      }
    }
    if (moving.length > 0) {
      // Send first, then delete: a crash in between duplicates a message (harmless, processing is
      // idempotent per resultId) instead of losing it.
      const sent = await options.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: moving.map((message) => ({ Id: message.id, MessageBody: message.body })),
        }),
      );
      const ok = new Set((sent.Successful ?? []).map((entry) => entry.Id));
      const done = moving.filter((message) => ok.has(message.id));
      if (done.length > 0) {
        await options.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: options.dlqUrl,
            Entries: done.map((message) => ({ Id: message.id, ReceiptHandle: message.receiptHandle })),
          }),
        );
      }
      summary.moved += done.length;
      summary.kept += moving.length - done.length;
    }
    options.onProgress?.({ ...summary });
  }
  return summary;
}
