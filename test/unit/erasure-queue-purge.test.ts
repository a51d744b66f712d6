/**
 * The erasure's reach into the queues (shared/erasure/queue-purge.ts, SQS through aws-sdk-client-mock)
 * and into the local queue journal (local/queue-journal.ts): the erased results' messages go, every
 * other message is made visible again, the walk is bounded in time and says what it could not reach, and
 * the journal keeps no line of an erased result's message.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { dropJournalMessages, pendingMessages } from '../../local/queue-journal';
import {
  messageResultId,
  purgeQueues,
  type QueueWalk,
  queuePurgeReach,
} from '../../shared/erasure/queue-purge';

const sqsMock = mockClient(SQSClient);
const QUEUE = { name: 'results', url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/results' };
const DLQ = { name: 'dlq', url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq' };

function message(id: string, resultId: string, extra: Record<string, unknown> = {}) {
  return {
    MessageId: id,
    ReceiptHandle: `rh-${id}`,
    Body: JSON.stringify({ resultId, source: 'poll', customerReference: `ref-${resultId}`, ...extra }),
  };
}

/** Every queue holds one message of res-erased, then nothing; SQS refuses to delete it. */
function oneMessageSqsWillNotDelete(): void {
  sqsMock
    .on(ReceiveMessageCommand)
    .resolvesOnce({ Messages: [message('1', 'res-erased')] })
    .resolves({});
  sqsMock.on(DeleteMessageBatchCommand).resolves({
    Failed: [{ Id: '0', Code: 'ReceiptHandleIsInvalid', SenderFault: true }],
  });
}

describe('purgeQueues', () => {
  const sqs = new SQSClient({ region: 'eu-west-1' });

  beforeEach(() => {
    sqsMock.reset();
    sqsMock
      .on(GetQueueAttributesCommand)
      .resolves({ Attributes: { ApproximateNumberOfMessagesNotVisible: '0' } });
    sqsMock.on(DeleteMessageBatchCommand).resolves({});
    sqsMock.on(ChangeMessageVisibilityBatchCommand).resolves({});
  });

  it('deletes the erased results’ messages from both queues and lets every other message go at once', async () => {
    // Prepare: two pages in the queue, one in the DLQ, then empty receives.
    sqsMock
      .on(ReceiveMessageCommand, { QueueUrl: QUEUE.url })
      .resolvesOnce({ Messages: [message('1', 'res-erased'), message('2', 'res-other')] })
      .resolvesOnce({
        Messages: [message('3', 'res-erased'), { MessageId: '4', ReceiptHandle: 'rh-4', Body: 'x' }],
      })
      .resolves({});
    sqsMock
      .on(ReceiveMessageCommand, { QueueUrl: DLQ.url })
      .resolvesOnce({ Messages: [message('5', 'res-erased-too'), message('6', 'res-erased-tool')] })
      .resolves({});

    // Act
    const reports = await purgeQueues(sqs, [QUEUE, DLQ], new Set(['res-erased', 'res-erased-too']));

    // Assess
    expect(reports).toEqual([
      { queue: 'results', seen: 4, deleted: 2, notDeleted: 0, inFlight: 0, timedOut: false },
      { queue: 'dlq', seen: 2, deleted: 1, notDeleted: 0, inFlight: 0, timedOut: false },
    ]);
    const deleted = sqsMock
      .commandCalls(DeleteMessageBatchCommand)
      .flatMap((call) => call.args[0].input.Entries!.map((entry) => entry.ReceiptHandle));
    expect(deleted).toEqual(['rh-1', 'rh-3', 'rh-5']);
    const released = sqsMock
      .commandCalls(ChangeMessageVisibilityBatchCommand)
      .map((call) => call.args[0].input);
    expect(released.map((input) => input.QueueUrl)).toEqual([QUEUE.url, DLQ.url]);
    expect(released[0]!.Entries!.map((entry) => [entry.ReceiptHandle, entry.VisibilityTimeout])).toEqual([
      ['rh-2', 0],
      ['rh-4', 0],
    ]);
    // Received hidden for the walk, with a long poll whose empty answer ends it.
    const receive = sqsMock.commandCalls(ReceiveMessageCommand)[0]!.args[0].input;
    expect(receive).toMatchObject({ MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 120 });
  });

  it('stops at its time limit and reports the queues it did not finish, and the messages in flight', async () => {
    // Prepare: a queue that never runs dry; each receive takes a second of the clock.
    const clock = { ms: 0 };
    sqsMock.on(ReceiveMessageCommand).callsFake(() => {
      clock.ms += 1_000;
      return { Messages: [message(String(clock.ms), 'res-other')] };
    });
    sqsMock
      .on(GetQueueAttributesCommand)
      .resolves({ Attributes: { ApproximateNumberOfMessagesNotVisible: '7' } });

    // Act
    const reports = await purgeQueues(sqs, [QUEUE, DLQ], new Set(['res-erased']), {
      timeLimitMs: 3_000,
      now: () => clock.ms,
    });

    // Assess
    expect(reports).toEqual([
      { queue: 'results', seen: 3, deleted: 0, notDeleted: 0, inFlight: 7, timedOut: true },
      { queue: 'dlq', seen: 0, deleted: 0, notDeleted: 0, inFlight: 7, timedOut: true },
    ]);
  });

  it('reports the messages SQS refused to delete', async () => {
    // Prepare
    oneMessageSqsWillNotDelete();

    // Act
    const [report] = await purgeQueues(sqs, [QUEUE], new Set(['res-erased']));

    // Assess
    expect(report).toMatchObject({ deleted: 0, notDeleted: 1 });
  });

  it('walks on past a page with nothing to delete (SQS refuses an empty delete batch)', async () => {
    // Prepare: as SQS does, an empty DeleteMessageBatch fails; the erased message is on the second page.
    sqsMock.on(DeleteMessageBatchCommand).callsFake((input: { Entries?: unknown[] }) => {
      if (!input.Entries?.length) {
        throw Object.assign(new Error('There should be at least one SendMessageBatchRequestEntry'), {
          name: 'EmptyBatchEntryList',
        });
      }
      return {};
    });
    sqsMock
      .on(ReceiveMessageCommand, { QueueUrl: QUEUE.url })
      .resolvesOnce({ Messages: [message('1', 'res-other')] })
      .resolvesOnce({ Messages: [message('2', 'res-erased')] })
      .resolves({});

    // Act
    const [report] = await purgeQueues(sqs, [QUEUE], new Set(['res-erased']));

    // Assess
    expect(report).toMatchObject({ seen: 2, deleted: 1, notDeleted: 0, timedOut: false });
    const deleted = sqsMock
      .commandCalls(DeleteMessageBatchCommand)
      .flatMap((call) => call.args[0].input.Entries!.map((entry) => entry.ReceiptHandle));
    expect(deleted).toEqual(['rh-2']);
  });

  it('as the erasure’s queue reach: counts what went, reports each walk, names a queue it has no URL for', async () => {
    // Prepare
    sqsMock
      .on(ReceiveMessageCommand, { QueueUrl: QUEUE.url })
      .resolvesOnce({ Messages: [message('1', 'res-erased'), message('2', 'res-other')] })
      .resolves({});
    const reports: QueueWalk[] = [];

    // Act
    const reach = queuePurgeReach(sqs, [QUEUE, { name: 'dlq', url: undefined }], reports);
    const found = await reach.find('res-erased');
    const removed = await reach.remove('res-erased', found);

    // Assess
    expect(found).toEqual(['results queue: walked when erased']);
    expect(removed).toBe(1);
    expect(reports).toEqual([
      { queue: 'dlq', reached: false },
      expect.objectContaining({ queue: 'results', resultId: 'res-erased', deleted: 1, timedOut: false }),
    ]);
  });

  it('as the erasure’s queue reach: fails the step when a delete was refused (the record stays ERASING)', async () => {
    // Prepare
    oneMessageSqsWillNotDelete();

    // Act
    const failed = queuePurgeReach(sqs, [QUEUE], []).remove('res-erased', []);

    // Assess
    await expect(failed).rejects.toThrow(/walk of the results queue for res-erased did not finish/);
  });

  it('as the erasure’s queue reach: names every queue whose walk did not finish', async () => {
    // Prepare: each queue holds one message of the erased result, and SQS refuses to delete either.
    for (const queue of [QUEUE, DLQ])
      sqsMock
        .on(ReceiveMessageCommand, { QueueUrl: queue.url })
        .resolvesOnce({ Messages: [message(queue.name, 'res-erased')] })
        .resolves({});
    sqsMock.on(DeleteMessageBatchCommand).resolves({
      Failed: [{ Id: '0', Code: 'ReceiptHandleIsInvalid', SenderFault: true }],
    });

    // Act
    const failed = queuePurgeReach(sqs, [QUEUE, DLQ], []).remove('res-erased', []);

    // Assess: the operator learns both queues still hold a message.
    await expect(failed).rejects.toThrow(/walk of the results and dlq queue for res-erased did not finish/);
  });

  it('reads a message’s resultId from its own field only', () => {
    // Act / Assess
    expect(messageResultId('{"resultId":"res-1","source":"poll"}')).toBe('res-1');
    expect(messageResultId('{"transactionId":"tx-1"}')).toBeUndefined();
    expect(messageResultId('{"resultId":7}')).toBeUndefined();
    expect(messageResultId('not json')).toBeUndefined();
    expect(messageResultId(undefined)).toBeUndefined();
  });
});

describe('dropJournalMessages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idv-journal-erase-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const put = (q: string, id: string, resultId: string) =>
    JSON.stringify({
      op: 'put',
      q,
      id,
      body: JSON.stringify({
        resultId,
        source: 'poll',
        customerReference: `ref-${resultId}`,
        userId: `u-${resultId}`,
      }),
    });

  it('removes every line of the erased results’ messages, in the queue and the DLQ, and keeps the rest', () => {
    // Prepare: a message moved to the DLQ (put, del, put under the DLQ), one pending, one of another result.
    const file = join(dir, 'queue-journal.jsonl');
    writeFileSync(
      file,
      [
        put('results', 'm1', 'res-erased'),
        JSON.stringify({ op: 'del', q: 'results', id: 'm1' }),
        put('dlq', 'm1', 'res-erased'),
        put('results', 'm2', 'res-erased'),
        put('results', 'm3', 'res-erased-1'),
        '{"op":"put","q":"results"', // a line torn by a crash
        '',
      ].join('\n'),
    );

    // Act
    const dropped = dropJournalMessages(file, new Set(['res-erased']));

    // Assess: no trace of the erased result's messages; a restart restores only the other one.
    const text = readFileSync(file, 'utf8');
    expect(dropped).toBe(4);
    expect(text).not.toMatch(/ref-res-erased"|u-res-erased"|res-erased\\"/);
    expect([...(pendingMessages(text).get('results')?.keys() ?? [])]).toEqual(['m3']);
    expect(pendingMessages(text).get('dlq')).toBeUndefined();
  });

  it('leaves a journal without the erased results untouched, and a missing one alone', () => {
    // Prepare
    const file = join(dir, 'other.jsonl');
    const text = `${put('results', 'm9', 'res-kept')}\n`;
    writeFileSync(file, text);

    // Act / Assess
    expect(dropJournalMessages(file, new Set(['res-erased']))).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(dropJournalMessages(join(dir, 'absent.jsonl'), new Set(['res-erased']))).toBe(0);
  });
});
