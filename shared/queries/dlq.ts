/**
 * Operator actions on the dead-letter queue: look at its messages without consuming them
 * ({@link peekDlq}), and move them back to the results queue, all or one result's ({@link redriveDlq}).
 * Result messages go back with `source: "redrive"`; upload notifications unchanged; a body that is not
 * a valid queue message stays in the DLQ (it would only fail again).
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { isUploadMessage, parseQueueMessage } from '../pipeline/messages';
import { releaseMessages } from '../pipeline/queue';

/** Outcome of {@link redriveDlq}. */
export interface RedriveSummary {
  moved: number;
  /** Malformed messages left in the DLQ. */
  kept: number;
  /** Messages of other results left in the DLQ (with `resultId`), visible again at once. */
  skipped?: number;
}

/** Options of {@link redriveDlq}. */
export interface RedriveOptions {
  sqs: SQSClient;
  dlqUrl: string;
  queueUrl: string;
  /** Stop after this many messages. @default unlimited */
  max?: number;
  /** Move only the messages of this result; the others are made visible again when done. */
  resultId?: string;
  onProgress?: (summary: RedriveSummary) => void;
}

// Kept messages must stay hidden for the rest of the run, or the loop would see them again.
const KEEP_HIDDEN_SECONDS = 300;

/** Moves DLQ messages back to the results queue until the DLQ is empty (or `max` is reached). */
export async function redriveDlq(options: RedriveOptions): Promise<RedriveSummary> {
  const summary: RedriveSummary = {
    moved: 0,
    kept: 0,
    ...(options.resultId !== undefined && { skipped: 0 }),
  };
  const max = options.max ?? Number.POSITIVE_INFINITY;
  // Other results' messages stay hidden while the loop runs (or it would receive them again and again),
  // then are made visible at once: a one-result redrive must not delay the rest of the DLQ.
  const skipped: string[] = [];
  try {
    await redriveLoop(options, summary, max, skipped);
  } finally {
    await releaseMessages(options.sqs, options.dlqUrl, skipped);
  }
  return summary;
}

async function redriveLoop(
  options: RedriveOptions,
  summary: RedriveSummary,
  max: number,
  skipped: string[],
): Promise<void> {
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
      if (options.resultId !== undefined && resultIdOf(message) !== options.resultId) {
        skipped.push(message.ReceiptHandle!);
        summary.skipped = (summary.skipped ?? 0) + 1;
        continue;
      }
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
}

function resultIdOf(message: Message): string | undefined {
  try {
    const parsed = parseQueueMessage(message.Body ?? '');
    return isUploadMessage(parsed) ? undefined : parsed.resultId;
  } catch {
    return undefined;
  }
}

/** One DLQ message as `idv dlq list` shows it: ids and counters, never the hints of its body. */
export interface DlqEntry {
  messageId: string;
  /** `result`, `upload`, or `malformed` (a body that is not a queue message). */
  kind: 'result' | 'upload' | 'malformed';
  resultId?: string;
  transactionId?: string;
  /** webhook, poll or redrive: who announced the result. */
  source?: string;
  /** Why the body is not a queue message (malformed only; names a field, never its value). */
  problem?: string;
  /**
   * The deliveries of the message that failed before it reached the DLQ: SQS's `ApproximateReceiveCount`
   * capped at the results queue's `maxReceiveCount` on AWS (every look adds one to SQS's counter), the
   * failed fetches of the trace journal locally.
   */
  receiveCount: number;
  /** When the message was first sent to the results queue (the announcement). */
  sentAt?: string;
  /** When it was first received (the first fetch attempt). */
  firstReceiveAt?: string;
}

/** Options of {@link peekDlq}. */
export interface PeekOptions {
  sqs: SQSClient;
  dlqUrl: string;
  /** The results queue: its redrive policy says how many deliveries came before the DLQ. */
  queueUrl?: string;
  /** Stop after this many messages. @default 100 */
  max?: number;
}

/** How long a message received for a view may stay hidden if returning it fails (a crash mid-view). */
const VIEW_HIDDEN_SECONDS = 30;

/**
 * The DLQ's messages without consuming them. Each batch is received hidden (so the listing sees each
 * message once and is a census, not a sample) and all are made visible again with ChangeMessageVisibility
 * 0 as soon as the listing ends (within {@link VIEW_HIDDEN_SECONDS} should that fail); none is deleted. SQS adds one to a message's receive
 * count at each receive, so the count shown is capped at the results queue's `maxReceiveCount` (its
 * redrive policy): the deliveries before the DLQ, not the views since.
 */
export async function peekDlq(options: PeekOptions): Promise<DlqEntry[]> {
  const max = options.max ?? 100;
  const deliveries = options.queueUrl ? await maxReceiveCountOf(options.sqs, options.queueUrl) : undefined;
  const seen = new Map<string, DlqEntry>();
  const handles: string[] = [];
  try {
    while (seen.size < max) {
      const { Messages = [] } = await options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.dlqUrl,
          MaxNumberOfMessages: Math.min(10, max - seen.size),
          WaitTimeSeconds: 1,
          VisibilityTimeout: VIEW_HIDDEN_SECONDS,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      handles.push(...Messages.flatMap((message) => (message.ReceiptHandle ? [message.ReceiptHandle] : [])));
      const fresh = Messages.filter((message) => message.MessageId && !seen.has(message.MessageId));
      if (fresh.length === 0) break;
      for (const message of fresh) {
        const entry = dlqEntry(message);
        if (deliveries !== undefined) entry.receiveCount = Math.min(entry.receiveCount, deliveries);
        seen.set(message.MessageId!, entry);
      }
    }
  } finally {
    await releaseMessages(options.sqs, options.dlqUrl, handles);
  }
  return [...seen.values()];
}

/** The `maxReceiveCount` of a queue's redrive policy, or undefined when it has none. */
async function maxReceiveCountOf(sqs: SQSClient, queueUrl: string): Promise<number | undefined> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }),
  );
  try {
    const count = Number(
      (JSON.parse(Attributes.RedrivePolicy ?? '{}') as { maxReceiveCount?: unknown }).maxReceiveCount,
    );
    return Number.isInteger(count) && count > 0 ? count : undefined;
  } catch {
    return undefined;
  }
}

/** The entry of one DLQ message (its body parsed for ids only, never its hints). */
export function dlqEntry(message: Message): DlqEntry {
  const attributes = message.Attributes ?? {};
  const time = (name: string) => {
    const ms = Number(attributes[name as keyof typeof attributes]);
    return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : undefined;
  };
  const sentAt = time('SentTimestamp');
  const firstReceiveAt = time('ApproximateFirstReceiveTimestamp');
  const base = {
    messageId: message.MessageId!,
    receiveCount: Number(attributes.ApproximateReceiveCount ?? 0),
    ...(sentAt && { sentAt }),
    ...(firstReceiveAt && { firstReceiveAt }),
  };
  try {
    const parsed = parseQueueMessage(message.Body ?? '');
    if (isUploadMessage(parsed)) return { ...base, kind: 'upload', transactionId: parsed.transactionId };
    return {
      ...base,
      kind: 'result',
      resultId: parsed.resultId,
      source: parsed.source,
      ...(parsed.transactionId && { transactionId: parsed.transactionId }),
    };
  } catch (error) {
    return { ...base, kind: 'malformed', problem: (error as Error).message };
  }
}
