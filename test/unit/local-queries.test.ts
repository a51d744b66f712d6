import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { redriveDlq } from '../../shared/queries/dlq';
import { daysBetween } from '../../shared/queries/results';

const sqsMock = mockClient(SQSClient);

describe('daysBetween', () => {
  it('lists every UTC day of the span, both ends included', () => {
    // Act
    const days = daysBetween(new Date('2026-01-30T23:00:00Z'), new Date('2026-02-02T01:00:00Z'));

    // Assess
    expect(days).toEqual(['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02']);
  });

  it('refuses a reversed or overly long span', () => {
    // Act & Assess
    expect(() => daysBetween(new Date('2026-02-02'), new Date('2026-02-01'))).toThrow(RangeError);
    expect(() => daysBetween(new Date('2020-01-01'), new Date('2026-01-01'))).toThrow(/366 days/);
  });
});

describe('redriveDlq', () => {
  beforeEach(() => {
    sqsMock.reset();
  });

  it('sends result messages back with source "redrive", keeps malformed ones, then deletes what was sent', async () => {
    // Prepare
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          {
            MessageId: 'a',
            ReceiptHandle: 'rh-a',
            Body: '{"resultId":"r-1","source":"poll","transactionId":"t"}',
          },
          { MessageId: 'b', ReceiptHandle: 'rh-b', Body: 'not json' },
          { MessageId: 'c', ReceiptHandle: 'rh-c', Body: '{"kind":"upload","transactionId":"t-2"}' },
        ],
      })
      .resolves({});
    sqsMock
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [{ Id: '0' }, { Id: '2' }] as never, Failed: [] });
    sqsMock.on(DeleteMessageBatchCommand).resolves({});

    // Act
    const summary = await redriveDlq({
      sqs: new SQSClient({ region: 'us-east-1' }),
      dlqUrl: 'dlq',
      queueUrl: 'q',
    });

    // Assess
    expect(summary).toEqual({ moved: 2, kept: 1 });
    const sent = sqsMock.commandCalls(SendMessageBatchCommand)[0]!.args[0].input;
    expect(sent.QueueUrl).toBe('q');
    expect(sent.Entries?.map((entry) => JSON.parse(entry.MessageBody!))).toEqual([
      { resultId: 'r-1', source: 'redrive', transactionId: 't' },
      { kind: 'upload', transactionId: 't-2' },
    ]);
    const deleted = sqsMock.commandCalls(DeleteMessageBatchCommand)[0]!.args[0].input;
    expect(deleted.Entries?.map((entry) => entry.ReceiptHandle)).toEqual(['rh-a', 'rh-c']);
  });
});
