import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pendingMessages, QueueJournal } from '../../local/queue-journal';

const put = (q: string, id: string, body: string) => JSON.stringify({ op: 'put', q, id, body });
const del = (q: string, id: string) => JSON.stringify({ op: 'del', q, id });

describe('pendingMessages', () => {
  it('keeps what was put and never deleted, per queue, and skips a line torn by a crash', () => {
    // Prepare
    const text = [
      put('q', '1', 'a'),
      put('q', '2', 'b'),
      del('q', '1'),
      put('dlq', '1', 'a'),
      '{"op":"pu',
    ].join('\n');
    // Act
    const pending = pendingMessages(text);
    // Assess
    expect([...pending.get('q')!]).toEqual([['2', 'b']]);
    expect([...pending.get('dlq')!]).toEqual([['1', 'a']]);
  });
});

describe('QueueJournal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'idv-journal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('journals what the spy reports, owner-only, and restores exactly the unconsumed messages', () => {
    // Prepare
    const file = join(dir, 'queue-journal.jsonl');
    const journal = new QueueJournal(file);
    const report = (status: string, queueName: string, messageId: string, body = 'x') =>
      journal.spy.addMessage({ service: 'sqs', status, queueName, messageId, body });
    report('published', 'results', 'm1', '{"resultId":"r1"}');
    report('published', 'results', 'm2', '{"resultId":"r2"}');
    report('published', 'results', 'm3', '{"resultId":"r3"}');
    report('consumed', 'results', 'm1');
    report('dlq', 'results', 'm3');
    report('published', 'results-dlq', 'm3', '{"resultId":"r3"}');
    const queues = new Map<
      string,
      { spy?: typeof journal.spy | undefined; enqueue(message: object): void; got: object[] }
    >();
    for (const name of ['results', 'results-dlq']) {
      const queue = { spy: journal.spy, got: [] as object[], enqueue: (m: object) => queue.got.push(m) };
      queues.set(name, queue);
    }

    // Act
    const restored = new QueueJournal(file).restore(
      { getQueueByName: (name) => queues.get(name) },
      (body) => ({ messageId: 'new', body }),
    );

    // Assess
    expect(restored).toEqual({ results: 1, 'results-dlq': 1 });
    expect(queues.get('results')!.got).toEqual([{ messageId: 'm2', body: '{"resultId":"r2"}' }]);
    expect(queues.get('results-dlq')!.got).toEqual([{ messageId: 'm3', body: '{"resultId":"r3"}' }]);
    expect(queues.get('results')!.spy).toBe(journal.spy);
    const rewritten = readFileSync(file, 'utf8').trim().split('\n');
    expect(rewritten).toEqual([
      put('results', 'm2', '{"resultId":"r2"}'),
      put('results-dlq', 'm3', '{"resultId":"r3"}'),
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('restores nothing from a missing or empty journal', () => {
    const file = join(dir, 'queue-journal.jsonl');
    expect(
      new QueueJournal(file).restore({ getQueueByName: () => undefined }, () => ({ messageId: '' })),
    ).toEqual({});
    writeFileSync(file, '');
    expect(
      new QueueJournal(file).restore({ getQueueByName: () => undefined }, () => ({ messageId: '' })),
    ).toEqual({});
  });
});
