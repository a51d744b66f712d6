import { beforeEach, describe, expect, it } from 'vitest';
import { type FetchResultDeps, processMessage, processQueueRecord } from '../../shared/pipeline/fetch-result';
import { parseQueueMessage } from '../../shared/pipeline/messages';
import {
  FakePublications,
  FakePublisher,
  FakeSource,
  FakeStore,
  memoryLogger,
} from '../support/pipeline-fakes';

/** A store whose erasure record appears while the body is stored (an erasure racing the fetch). */
class ErasedWhileStoring extends FakeStore {
  override async storeResult(resultId: string, body: AsyncIterable<Uint8Array>) {
    const stored = await super.storeResult(resultId, body);
    this.erased.add(resultId);
    return stored;
  }
}

const RESULT = {
  transactionId: 'tx-1',
  result: 'APPROVED',
  images: [{ data: '/9j/AAAA', documentType: 'PASSPORT', pageType: 'FRONT' }],
  identity: { result: 'APPROVED', data: { name: { fullname: 'Jane Example' } } },
};

describe('fetch-result after an erasure', () => {
  let source: FakeSource;
  let store: FakeStore;
  let publisher: FakePublisher;
  let deps: FetchResultDeps;

  beforeEach(() => {
    source = new FakeSource(new Map([['res-1', RESULT]]));
    store = new FakeStore();
    publisher = new FakePublisher();
    deps = {
      source,
      store,
      publications: new FakePublications(store),
      publisher,
      environment: 'staging',
      retentionDays: 30,
      logger: memoryLogger().logger,
    };
  });

  it('acknowledges a redelivered message of an erased result without fetching or storing anything', async () => {
    // Prepare
    store.erased.add('res-1');

    // Act
    const outcomes = [
      await processQueueRecord(JSON.stringify({ resultId: 'res-1', source: 'poll' }), deps),
      await processQueueRecord(JSON.stringify({ resultId: 'res-1', source: 'redrive' }), deps),
      await processQueueRecord(JSON.stringify({ resultId: 'res-1', source: 'webhook' }), deps),
    ];

    // Assess: only the poll message asks the service (once, to retire its polling record; see below).
    expect(outcomes).toEqual(['erased', 'erased', 'erased']);
    expect(source.calls).toBe(1);
    expect(store.items.size).toBe(0);
    expect(store.objectWrites).toBe(0);
    expect(publisher.stored).toHaveLength(0);
  });

  it('fetches an erased result again only when the message says refetch', async () => {
    // Prepare
    store.erased.add('res-1');

    // Act
    const outcome = await processMessage({ resultId: 'res-1', source: 'redrive', refetch: true }, deps);

    // Assess
    expect(outcome).toBe('stored');
    expect(source.calls).toBe(1);
    expect(store.items.get('res-1')?.status).toBe('STORED');
  });

  it('a webhook cannot ask for a refetch: the flag is dropped with the other hints', () => {
    // Act
    const webhook = parseQueueMessage(JSON.stringify({ resultId: 'r', source: 'webhook', refetch: true }));
    const redrive = parseQueueMessage(JSON.stringify({ resultId: 'r', source: 'redrive', refetch: true }));
    const notTrue = parseQueueMessage(JSON.stringify({ resultId: 'r', source: 'redrive', refetch: 'yes' }));

    // Assess
    expect(webhook).toEqual({ resultId: 'r', source: 'webhook' });
    expect(redrive).toEqual({ resultId: 'r', source: 'redrive', refetch: true });
    expect(notTrue).toEqual({ resultId: 'r', source: 'redrive' });
  });

  it('an erasure that fenced the publication record refuses the claim: the body is closed unread', async () => {
    // Prepare: the fence is set, the erasure record not yet visible to this delivery's first read.
    store.fence('res-1', '2026-09-01T10:00:00.000Z');
    let read = false;
    let closed = false;
    const body: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          read = true;
          return { done: true, value: undefined };
        },
        return: async () => {
          closed = true;
          return { done: true, value: undefined };
        },
      }),
    };
    const source = { getResultStream: async () => body };

    // Act
    const outcome = await processMessage(
      { resultId: 'res-1', source: 'poll' },
      { ...deps, source },
      { invocationDeadlineMs: Date.now() + 60_000 },
    );

    // Assess
    expect(outcome).toBe('erased');
    expect({ read, closed }).toEqual({ read: false, closed: true });
    expect(store.objectWrites).toBe(0);
    expect(store.items.size).toBe(0);
    expect(publisher.stored).toHaveLength(0);
  });

  it('an erasure record seen after the last object: no item, no event, the claim given up at once', async () => {
    // Prepare
    const racing = new ErasedWhileStoring();

    // Act
    const outcome = await processMessage(
      { resultId: 'res-1', source: 'poll' },
      { ...deps, store: racing, publications: new FakePublications(racing) },
      { invocationDeadlineMs: Date.now() + 60_000 },
    );

    // Assess: the erasure waiting for the claim deletes the objects (every version) once it is given up.
    expect(outcome).toBe('erased');
    expect(racing.items.size).toBe(0);
    expect(publisher.stored).toHaveLength(0);
    expect(racing.publications.get('res-1')?.claim).toBeUndefined();
    expect(racing.discarded).toEqual([]);
  });

  it('a delivery whose claim expired while it stored deletes its own objects when it sees the erasure', async () => {
    // Prepare: the clock passes the claim's expiry while the body is stored.
    const clock = { ms: Date.parse('2026-09-01T10:00:00.000Z') };
    const racing = new (class extends ErasedWhileStoring {
      override async storeResult(resultId: string, body: AsyncIterable<Uint8Array>) {
        const stored = await super.storeResult(resultId, body);
        clock.ms += 120_000;
        return stored;
      }
    })();

    // Act
    const outcome = await processMessage(
      { resultId: 'res-1', source: 'poll' },
      { ...deps, store: racing, publications: new FakePublications(racing), now: () => new Date(clock.ms) },
      { invocationDeadlineMs: clock.ms + 60_000 },
    );

    // Assess
    expect(outcome).toBe('erased');
    expect(racing.discarded).toEqual([
      'results/res-1/result.json',
      'results/res-1/images/01-PASSPORT-FRONT.jpg',
    ]);
    expect(racing.objects.size).toBe(0);
    expect(racing.items.size).toBe(0);
    expect(publisher.stored).toHaveLength(0);
  });

  it('a refetch takes a fenced record and lifts the fence', async () => {
    // Prepare
    store.erased.add('res-1');
    store.fence('res-1', '2026-09-01T10:00:00.000Z');

    // Act
    const outcome = await processMessage({ resultId: 'res-1', source: 'redrive', refetch: true }, deps, {
      invocationDeadlineMs: Date.now() + 60_000,
    });

    // Assess
    expect(outcome).toBe('stored');
    expect(store.publications.get('res-1')).toMatchObject({
      status: 'STORED',
      publishedAt: expect.any(String),
    });
    expect(publisher.stored).toHaveLength(1);
  });

  it('a poll message of an erased result retires the polling record: one fetch, the body read to its end and dropped', async () => {
    // Prepare
    store.erased.add('res-1');
    const chunks: number[] = [];
    const source = {
      getResultStream: async () =>
        (async function* () {
          for (const part of ['{"transactionId":', '"tx-1","identity":{"data":{"name":"Jane"}}}']) {
            chunks.push(part.length);
            yield Buffer.from(part);
          }
        })(),
    };
    const { logger, lines } = memoryLogger();

    // Act
    const outcome = await processMessage({ resultId: 'res-1', source: 'poll' }, { ...deps, source, logger });

    // Assess: every chunk was pulled (the response ends as a successful fetch), none kept or logged.
    expect(outcome).toBe('erased');
    expect(chunks).toHaveLength(2);
    expect(store.objectWrites).toBe(0);
    expect(store.items.size).toBe(0);
    expect(publisher.stored).toHaveLength(0);
    expect(lines.join('\n')).toContain('polling record retired');
    expect(lines.join('\n')).not.toContain('Jane');
  });

  it('a failed retirement is logged and the message still acknowledged (the next poll tries again)', async () => {
    // Prepare
    store.erased.add('res-1');
    const source = {
      getResultStream: async () => {
        throw new Error('connection reset');
      },
    };

    // Act
    const outcome = await processMessage({ resultId: 'res-1', source: 'poll' }, { ...deps, source });

    // Assess
    expect(outcome).toBe('erased');
  });
});
