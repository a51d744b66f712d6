import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EnqueueError } from '../../shared/errors';
import { parseQueueMessage } from '../../shared/pipeline/messages';
import { pollAndEnqueue } from '../../shared/pipeline/poll';
import { BATCH_RETRY_POLICY } from '../../shared/store/batch-retry';
import { memoryLogger, pollOf } from '../support/pipeline-fakes';

const sqsMock = mockClient(SQSClient);
const NOW = new Date('2026-08-11T12:00:00.000Z');

function records(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    resultId: `r-${i}`,
    transactionId: `tx-${i}`,
    product: 'IDV_STANDARD',
    completed: new Date(NOW.getTime() - (i + 1) * 1000).toISOString(),
  }));
}

function deps(results: unknown[]) {
  return {
    source: { poll: async () => ({ results }) as never },
    sqs: new SQSClient({ region: 'eu-west-1' }),
    queueUrl: 'https://queue',
    logger: memoryLogger().logger,
    now: () => NOW,
    send: { sleep: async () => {}, random: () => 0 },
  };
}

describe('poll core', () => {
  beforeEach(() => sqsMock.reset());

  it('sends every record in batches of 10 with its poll metadata and reports the oldest age', async () => {
    // Prepare
    sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });

    // Act
    const summary = await pollAndEnqueue(deps(records(23)));

    // Assess
    const calls = sqsMock.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input.Entries!);
    expect(calls.map((e) => e.length)).toEqual([10, 10, 3]);
    expect(JSON.parse(calls[0]![0]!.MessageBody!)).toEqual({
      resultId: 'r-0',
      source: 'poll',
      transactionId: 'tx-0',
      product: 'IDV_STANDARD',
      completed: '2026-08-11T11:59:59.000Z',
    });
    expect(summary).toEqual({ pending: 23, enqueued: 23, invalid: 0, oldestAgeSeconds: 23 });
  });

  it('retries only the failed entries of a batch', async () => {
    // Prepare
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }] })
      .resolves({ Failed: [] });

    // Act
    await pollAndEnqueue(deps(records(3)));

    // Assess
    const second = sqsMock.commandCalls(SendMessageBatchCommand)[1]!.args[0].input.Entries!;
    expect(second.map((e) => JSON.parse(e.MessageBody!).resultId)).toEqual(['r-1']);
  });

  it('throws when entries still fail after the bounded retries', async () => {
    // Prepare
    sqsMock.on(SendMessageBatchCommand).resolves({ Failed: [{ Id: '0', SenderFault: false, Code: 'X' }] });

    // Act
    const run = pollAndEnqueue(deps(records(1)));

    // Assess
    await expect(run).rejects.toBeInstanceOf(EnqueueError);
    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(BATCH_RETRY_POLICY.rounds);
  });

  it('counts a record it cannot fetch in the oldest age, so the pending alarm still sees it', async () => {
    // Prepare
    sqsMock.on(SendMessageBatchCommand).resolves({ Failed: [] });
    const stuck = { resultId: 'has/slash', completed: new Date(NOW.getTime() - 3_600_000).toISOString() };

    // Act
    const summary = await pollAndEnqueue(deps([stuck, ...records(1)]));

    // Assess
    expect(summary).toEqual({ pending: 2, enqueued: 1, invalid: 1, oldestAgeSeconds: 3_600 });
  });

  it('skips malformed resultIds and duplicates, and sends nothing for an empty poll', async () => {
    // Prepare
    sqsMock.on(SendMessageBatchCommand).resolves({ Failed: [] });

    // Act
    const empty = await pollAndEnqueue(deps([]));
    const mixed = await pollAndEnqueue(deps([{ resultId: 'a/b' }, { resultId: 'ok' }, { resultId: 'ok' }]));

    // Assess
    expect(empty).toEqual({ pending: 0, enqueued: 0, invalid: 0, oldestAgeSeconds: 0 });
    expect(mixed).toMatchObject({ pending: 3, enqueued: 1, invalid: 1 });
    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });

  it('keeps hints of up to 256 characters and drops longer or empty ones, so every message parses', async () => {
    // Prepare
    sqsMock.on(SendMessageBatchCommand).resolves({ Failed: [] });
    const record = {
      resultId: 'r-hints',
      transactionId: 't'.repeat(256),
      customerReference: 'c'.repeat(257),
      userId: '',
      product: 42,
    };

    // Act
    await pollAndEnqueue(deps([record]));

    // Assess
    const body = sqsMock.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries![0]!.MessageBody!;
    expect(parseQueueMessage(body)).toEqual({
      resultId: 'r-hints',
      source: 'poll',
      transactionId: 't'.repeat(256),
    });
  });

  it('skips and counts records that are not objects or have no usable id, and keeps the others', async () => {
    // Prepare
    sqsMock.on(SendMessageBatchCommand).resolves({ Failed: [] });
    const body = {
      results: [
        { resultId: 'res.2026:0001', completed: 1786364400000, transactionId: 7, extra: { a: 1 } },
        'garbage',
        null,
        42,
        { resultId: 90817, completed: '2026-08-10 11:00:00' },
        { resultId: 1.5 },
        { resultId: 2 ** 60 },
        { resultId: '../etc' },
        { resultId: 'R~42', completed: '10/08/2026 12:00', product: ['x'] },
      ],
      nextPage: null,
    };
    const parsed = pollOf(body);
    const { logger, lines } = memoryLogger();

    // Act
    const summary = await pollAndEnqueue({
      source: { poll: async () => parsed },
      sqs: new SQSClient({ region: 'eu-west-1' }),
      queueUrl: 'https://queue',
      logger,
      now: () => new Date('2026-08-10T12:00:00.000Z'),
    });

    // Assess
    expect(parsed.results[0]).toMatchObject({ extra: { a: 1 } });
    expect(summary).toEqual({ pending: 9, enqueued: 3, invalid: 6, oldestAgeSeconds: 3600 });
    const sent = sqsMock
      .commandCalls(SendMessageBatchCommand)
      .flatMap((c) => c.args[0].input.Entries!.map((e) => JSON.parse(e.MessageBody!)));
    expect(sent).toEqual([
      { resultId: 'res.2026:0001', source: 'poll' },
      { resultId: '90817', source: 'poll', completed: '2026-08-10 11:00:00' },
      { resultId: 'R~42', source: 'poll', completed: '10/08/2026 12:00' },
    ]);
    expect(lines.join('\n')).not.toContain('garbage');
  });
});
