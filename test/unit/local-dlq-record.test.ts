/**
 * `idv dlq list|show --local` read the DLQ from the run's durable records (queue and trace journals,
 * local/dlq-record.ts), not by receiving from the queue: looking twice shows (and changes) nothing new,
 * the count is the deliveries before the DLQ, and the reason and attempt times survive a restart.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournal, TraceJournal } from '../../local/console-journal';
import { recordedDlq } from '../../local/dlq-record';
import { LOCAL_DLQ_NAME } from '../../local/pipeline-resources';
import { QUEUE_JOURNAL, QueueJournal } from '../../local/queue-journal';
import { runIdvInProcess } from '../support/cli';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'idv-dlq-record-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** A run whose message m-1 (result r-1) failed 3 deliveries with DATA_NOT_BASE64 and moved to the DLQ. */
function deadLetteredRun(): void {
  const queues = new QueueJournal(join(dataDir, QUEUE_JOURNAL));
  const trace = new TraceJournal(dataDir);
  const body = JSON.stringify({ resultId: 'r-1', source: 'webhook' });
  const sentAt = Date.parse('2026-11-01T10:00:00.000Z');
  queues.spy.addMessage({
    service: 'sqs',
    queueName: 'idv-local-results',
    messageId: 'm-1',
    body,
    status: 'published',
  });
  for (const attempt of [1, 2, 3]) {
    trace.log({ message: 'message failed', resultId: 'r-1', reason: 'DATA_NOT_BASE64' });
    trace.record(
      { messageId: 'm-1', body, receiveCount: attempt, sentAt, failed: true },
      new Date(sentAt + attempt * 60_000),
    );
  }
  queues.spy.addMessage({
    service: 'sqs',
    queueName: 'idv-local-results',
    messageId: 'm-1',
    body,
    status: 'dlq',
  });
  queues.spy.addMessage({
    service: 'sqs',
    queueName: LOCAL_DLQ_NAME,
    messageId: 'm-1',
    body,
    status: 'published',
  });
}

const EXPECTED = {
  messageId: 'm-1',
  kind: 'result',
  resultId: 'r-1',
  source: 'webhook',
  receiveCount: 3,
  sentAt: '2026-11-01T10:00:00.000Z',
  firstReceiveAt: '2026-11-01T10:01:00.000Z',
  reason: 'DATA_NOT_BASE64',
  lastAttemptAt: '2026-11-01T10:03:00.000Z',
};

describe('the local DLQ from its records', () => {
  it('lists the same entry twice: the deliveries before the DLQ, the reason, first attempt before last', async () => {
    // Prepare
    deadLetteredRun();
    const journal = readFileSync(join(dataDir, QUEUE_JOURNAL), 'utf8');

    // Act
    const first = await runIdvInProcess(['dlq', 'list', '--local', '--data-dir', dataDir]);
    const second = await runIdvInProcess(['dlq', 'list', '--local', '--data-dir', dataDir]);

    // Assess
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toEqual([EXPECTED]);
    expect(second.out).toBe(first.out);
    expect(readFileSync(join(dataDir, QUEUE_JOURNAL), 'utf8')).toBe(journal);
  }, 30_000);

  it('keeps the reason after a restart (a new process reading the same data directory)', async () => {
    // Prepare: the run that wrote the journals is gone; only its files remain.
    deadLetteredRun();

    // Act
    const shown = await runIdvInProcess(['dlq', 'show', 'r-1', '--local', '--data-dir', dataDir]);

    // Assess
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toEqual([EXPECTED]);
    expect(shown.err).toBe('');
  }, 30_000);

  it('leaves a message taken out of the DLQ (a redrive) out of the list', () => {
    // Prepare
    deadLetteredRun();
    new QueueJournal(join(dataDir, QUEUE_JOURNAL)).spy.addMessage({
      service: 'sqs',
      queueName: LOCAL_DLQ_NAME,
      messageId: 'm-1',
      body: '{}',
      status: 'consumed',
    });

    // Act
    const entries = recordedDlq(dataDir);

    // Assess
    expect(entries).toEqual([]);
  });
});

describe("the trace journal's reasons", () => {
  it('gives each failed delivery of one result in one batch its own reason, though records are journaled after the batch', () => {
    // Prepare: the webhook's and the poll's message of r-1 ran in turn in one batch, both failed; the
    // handler logged both failures before the event source journaled either record.
    const trace = new TraceJournal(dataDir);
    const webhook = JSON.stringify({ resultId: 'r-1', source: 'webhook' });
    const poll = JSON.stringify({ resultId: 'r-1', source: 'poll' });
    const sentAt = Date.parse('2026-11-01T10:00:00.000Z');
    trace.log({ message: 'message failed', resultId: 'r-1', reason: 'DATA_NOT_BASE64' });
    trace.log({ message: 'message failed', resultId: 'r-1', error: { name: 'ClaimHeldElsewhereError' } });

    // Act
    trace.record({ messageId: 'm-1', body: webhook, receiveCount: 3, sentAt, failed: true });
    trace.record({ messageId: 'm-2', body: poll, receiveCount: 3, sentAt, failed: true });

    // Assess
    const fetches = readJournal(dataDir, 'r-1').filter((line) => line.kind === 'fetch');
    expect(fetches.map((line) => [line.messageId, line.reason])).toEqual([
      ['m-1', 'DATA_NOT_BASE64'],
      ['m-2', 'ClaimHeldElsewhereError'],
    ]);
    expect(trace.lastFailure('r-1')).toBe('ClaimHeldElsewhereError');
  });

  it('keeps a failure reason for the failed delivery when a delivery of the same result before it succeeded', () => {
    // Prepare
    const trace = new TraceJournal(dataDir);
    const body = JSON.stringify({ resultId: 'r-1', source: 'webhook' });
    const sentAt = Date.parse('2026-11-01T10:00:00.000Z');
    trace.log({ message: 'message failed', resultId: 'r-1', reason: 'DATA_NOT_BASE64' });

    // Act
    trace.record({ messageId: 'm-1', body, receiveCount: 1, sentAt, failed: false });
    trace.record({ messageId: 'm-2', body, receiveCount: 1, sentAt, failed: true });

    // Assess
    const fetches = readJournal(dataDir, 'r-1').filter((line) => line.kind === 'fetch');
    expect(fetches.map((line) => [line.outcome, line.reason])).toEqual([
      ['ok', undefined],
      ['failed', 'DATA_NOT_BASE64'],
    ]);
  });
});
