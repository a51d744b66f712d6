import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type QueueDepth, queueDepth } from '../shared/pipeline/queue';

// Where the local runtime, its tests and the benches have always found them.

/** A handler with the SQS event source mapping's signature (`ReportBatchItemFailures` on). */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/** Outcome of one batch. */
export interface BatchOutcome {
  received: number;
  deleted: number;
  /** Left for redelivery: reported item failures, or the whole batch when the handler threw. */
  failed: number;
  /** The handler threw (the error is not kept: it may carry details that do not belong in a summary). */
  threw: boolean;
}

/** Options of {@link SqsEventSource}. */
export interface SqsEventSourceOptions {
  sqs: SQSClient;
  queueUrl: string;
  handler: SqsHandler;
  context: () => Context;
  region: string;
  /** Lambda's default for SQS. @default 10 */
  batchSize?: number;
  /** Long-poll wait of each receive. @default 1 */
  waitTimeSeconds?: number;
  /**
   * Invocations at once in {@link SqsEventSource.start} (the mapping's maximum concurrency): that many
   * receive-and-invoke loops, all calling the one handler, so in one process they share its pace.
   * @default 1
   */
  concurrency?: number;
  onBatch?: (outcome: BatchOutcome) => void;
  /** Told of each record of a batch once the batch is done: whether it failed, and its delivery. */
  onRecord?: (outcome: RecordOutcome) => void;
}

/** One record of a processed batch. */
export interface RecordOutcome {
  messageId: string;
  body: string;
  /** SQS ApproximateReceiveCount of this delivery (1 = first). */
  receiveCount: number;
  /** Epoch ms the message was sent to the queue (its announcement). */
  sentAt: number;
  /** Left for redelivery (reported, or the handler threw). */
  failed: boolean;
}

/**
 * A local stand-in for Lambda's SQS event source mapping: receives batches, hands them to the handler as
 * an `SQSEvent`, deletes the records that succeeded and leaves the reported `batchItemFailures` (all
 * records when the handler throws) to come back after the visibility timeout. Moving a message to the
 * DLQ after `maxReceiveCount` is the queue's own redrive policy, as in AWS.
 */
export class SqsEventSource {
  readonly #options: SqsEventSourceOptions;
  #queueArn: string | undefined;
  #running = false;
  #loops: Promise<void>[] = [];

  constructor(options: SqsEventSourceOptions) {
    this.#options = options;
  }

  /** Starts polling in the background (`concurrency` loops) until {@link stop}. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    const loop = async () => {
      while (this.#running) {
        try {
          await this.pollOnce();
        } catch {
          // The emulator is going away (shutdown) or hiccuped: wait a little instead of spinning.
          if (this.#running) await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    };
    this.#loops = Array.from({ length: Math.max(1, this.#options.concurrency ?? 1) }, loop);
  }

  /** Invocations at once when started. */
  get concurrency(): number {
    return Math.max(1, this.#options.concurrency ?? 1);
  }

  /** Stops after the batches in progress; resolves when every loop has ended. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
    this.#loops = [];
  }

  /** Receives one batch (waiting up to `waitTimeSeconds`) and processes it. */
  async pollOnce(): Promise<BatchOutcome> {
    const { sqs, queueUrl } = this.#options;
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: this.#options.batchSize ?? 10,
        WaitTimeSeconds: this.#options.waitTimeSeconds ?? 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return { received: 0, deleted: 0, failed: 0, threw: false };
    const outcome = await this.#process(Messages);
    this.#options.onBatch?.(outcome);
    return outcome;
  }

  /**
   * Processes batches, `concurrency` invocations at once, until the queue is empty, in-flight (left for
   * redelivery) messages included.
   */
  async drain(): Promise<'drained'> {
    const one = async () => {
      for (;;) {
        const outcome = await this.pollOnce();
        if (outcome.received > 0) continue;
        const depth = await this.depth();
        if (depth.visible + depth.inFlight + depth.delayed === 0) return;
      }
    };
    await Promise.all(Array.from({ length: this.concurrency }, one));
    return 'drained';
  }

  /** Current queue depth, for "drained?" checks. */
  async depth(): Promise<QueueDepth> {
    return queueDepth(this.#options.sqs, this.#options.queueUrl);
  }

  async #process(messages: Message[]): Promise<BatchOutcome> {
    const event: SQSEvent = { Records: messages.map((message) => this.#record(message, this.queueArn)) };
    let failedIds: Set<string>;
    let threw = false;
    try {
      const response = await this.#options.handler(event, this.#options.context());
      const failures = response?.batchItemFailures ?? [];
      failedIds = new Set(failures.map((failure) => failure.itemIdentifier));
      // Lambda treats a failure entry it cannot match as a failure of the whole batch.
      if (
        failures.some(
          (failure) => !event.Records.some((record) => record.messageId === failure.itemIdentifier),
        )
      ) {
        failedIds = new Set(event.Records.map((record) => record.messageId));
      }
    } catch {
      threw = true;
      failedIds = new Set(event.Records.map((record) => record.messageId));
    }
    const succeeded = messages.filter((message) => !failedIds.has(message.MessageId!));
    for (const message of messages) {
      const attributes = message.Attributes ?? {};
      this.#options.onRecord?.({
        messageId: message.MessageId!,
        body: message.Body ?? '',
        receiveCount: Number(attributes['ApproximateReceiveCount'] ?? 1),
        sentAt: Number(attributes['SentTimestamp'] ?? Date.now()),
        failed: failedIds.has(message.MessageId!),
      });
    }
    if (succeeded.length > 0) {
      await this.#options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.#options.queueUrl,
          Entries: succeeded.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle!,
          })),
        }),
      );
    }
    return { received: messages.length, deleted: succeeded.length, failed: failedIds.size, threw };
  }

  #record(message: Message, queueArn: string): SQSRecord {
    const attributes = message.Attributes ?? {};
    return {
      messageId: message.MessageId!,
      receiptHandle: message.ReceiptHandle!,
      body: message.Body ?? '',
      attributes: {
        ApproximateReceiveCount: attributes['ApproximateReceiveCount'] ?? '1',
        SentTimestamp: attributes['SentTimestamp'] ?? String(Date.now()),
        SenderId: attributes['SenderId'] ?? 'local',
        ApproximateFirstReceiveTimestamp:
          attributes['ApproximateFirstReceiveTimestamp'] ?? String(Date.now()),
      },
      messageAttributes: Object.fromEntries(
        Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
          name,
          { dataType: value.DataType ?? 'String', stringValue: value.StringValue },
        ]),
      ),
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: this.#options.region,
    };
  }

  /** The queue ARN for `eventSourceARN`, derived from the URL (account/name) like AWS formats it. */
  get queueArn(): string {
    if (!this.#queueArn) {
      const [, account = '000000000000', name = 'queue'] = new URL(this.#options.queueUrl).pathname.split(
        '/',
      );
      this.#queueArn = `arn:aws:sqs:${this.#options.region}:${account}:${name}`;
    }
    return this.#queueArn;
  }
}
