import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/lambda-context';
import { SqsEventSource, type SqsHandler } from '../../local/sqs-event-source';

const sqsMock = mockClient(SQSClient);
const QUEUE_URL = 'http://127.0.0.1:1/000000000000/idv-local-results';

function messages(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    MessageId: `m-${index}`,
    ReceiptHandle: `rh-${index}`,
    Body: JSON.stringify({ resultId: `r-${index}`, source: 'poll' }),
    Attributes: { ApproximateReceiveCount: '2', SentTimestamp: '1000' },
  }));
}

function source(handler: SqsHandler) {
  return new SqsEventSource({
    sqs: new SQSClient({ region: 'us-east-1' }),
    queueUrl: QUEUE_URL,
    handler,
    context: () => lambdaContext('fetch-result', 'us-east-1'),
    region: 'us-east-1',
  });
}

describe('SqsEventSource', () => {
  beforeEach(() => {
    sqsMock.reset();
    sqsMock.on(DeleteMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  });

  it('hands a batch to the handler as an SQSEvent and deletes every record when none failed', async () => {
    // Prepare
    sqsMock.on(ReceiveMessageCommand).resolves({ Messages: messages(2) });
    let seen: SQSEvent | undefined;

    // Act
    const outcome = await source(async (event) => {
      seen = event;
      return undefined;
    }).pollOnce();

    // Assess
    expect(outcome).toEqual({ received: 2, deleted: 2, failed: 0, threw: false });
    expect(seen?.Records[0]).toMatchObject({
      messageId: 'm-0',
      receiptHandle: 'rh-0',
      body: '{"resultId":"r-0","source":"poll"}',
      attributes: { ApproximateReceiveCount: '2', SentTimestamp: '1000' },
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:idv-local-results',
      awsRegion: 'us-east-1',
    });
    expect(sqsMock.commandCalls(ReceiveMessageCommand)[0]!.args[0].input).toMatchObject({
      QueueUrl: QUEUE_URL,
      MaxNumberOfMessages: 10,
    });
    const deleted = sqsMock.commandCalls(DeleteMessageBatchCommand)[0]!.args[0].input.Entries;
    expect(deleted?.map((entry) => entry.ReceiptHandle)).toEqual(['rh-0', 'rh-1']);
  });

  it('leaves reported batch item failures for redelivery and deletes the rest', async () => {
    // Prepare
    sqsMock.on(ReceiveMessageCommand).resolves({ Messages: messages(3) });

    // Act
    const outcome = await source(async () => ({ batchItemFailures: [{ itemIdentifier: 'm-1' }] })).pollOnce();

    // Assess
    expect(outcome).toEqual({ received: 3, deleted: 2, failed: 1, threw: false });
    const deleted = sqsMock.commandCalls(DeleteMessageBatchCommand)[0]!.args[0].input.Entries;
    expect(deleted?.map((entry) => entry.ReceiptHandle)).toEqual(['rh-0', 'rh-2']);
  });

  it('leaves the whole batch when the handler throws', async () => {
    // Prepare
    sqsMock.on(ReceiveMessageCommand).resolves({ Messages: messages(2) });

    // Act
    const outcome = await source(async () => {
      throw new Error('boom');
    }).pollOnce();

    // Assess
    expect(outcome).toEqual({ received: 2, deleted: 0, failed: 2, threw: true });
    expect(sqsMock.commandCalls(DeleteMessageBatchCommand)).toHaveLength(0);
  });

  it('treats an unknown failure identifier as a failure of the whole batch, as Lambda does', async () => {
    // Prepare
    sqsMock.on(ReceiveMessageCommand).resolves({ Messages: messages(2) });

    // Act
    const outcome = await source(async () => ({
      batchItemFailures: [{ itemIdentifier: 'nope' }],
    })).pollOnce();

    // Assess
    expect(outcome.failed).toBe(2);
    expect(sqsMock.commandCalls(DeleteMessageBatchCommand)).toHaveLength(0);
  });

  it('does not call the handler for an empty receive', async () => {
    // Prepare
    sqsMock.on(ReceiveMessageCommand).resolves({});
    let called = false;

    // Act
    const outcome = await source(async () => {
      called = true;
      return undefined;
    }).pollOnce();

    // Assess
    expect(outcome.received).toBe(0);
    expect(called).toBe(false);
  });

  it('reports the queue depth from the ApproximateNumberOf* attributes', async () => {
    // Prepare
    sqsMock.on(GetQueueAttributesCommand).resolves({
      Attributes: {
        ApproximateNumberOfMessages: '3',
        ApproximateNumberOfMessagesNotVisible: '1',
        ApproximateNumberOfMessagesDelayed: '0',
      },
    });

    // Act
    const depth = await source(async () => undefined).depth();

    // Assess
    expect(depth).toEqual({ visible: 3, inFlight: 1, delayed: 0 });
  });
});

describe('SqsEventSource concurrency', () => {
  beforeEach(() => {
    sqsMock.reset();
    sqsMock.on(DeleteMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  });

  it('drains with `concurrency` invocations at once, until the queue is empty', async () => {
    // Prepare: six single-message batches, then an empty queue.
    let left = 6;
    sqsMock.on(ReceiveMessageCommand).callsFake(() => (left-- > 0 ? { Messages: messages(1) } : {}));
    sqsMock.on(GetQueueAttributesCommand).resolves({ Attributes: {} });
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const events = new SqsEventSource({
      sqs: new SQSClient({ region: 'us-east-1' }),
      queueUrl: QUEUE_URL,
      concurrency: 3,
      handler: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return undefined;
      },
      context: () => lambdaContext('fetch-result', 'us-east-1'),
      region: 'us-east-1',
    });

    // Act: release the invocations only once three are in flight together.
    const drained = events.drain();
    let invocations = 0;
    while (invocations < 6) {
      await new Promise((resolve) => setImmediate(resolve));
      if (releases.length === 3 || (invocations >= 3 && releases.length > 0)) {
        const batch = releases.splice(0);
        invocations += batch.length;
        for (const release of batch) release();
      }
    }

    // Assess
    expect(await drained).toBe('drained');
    expect(most).toBe(3);
    expect(events.concurrency).toBe(3);
  });
});
