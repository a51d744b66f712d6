import { beforeEach, describe, expect, it } from 'vitest';
import { type FetchResultDeps, processMessage, processQueueRecord } from '../../shared/pipeline/fetch-result';
import { parseQueueMessage } from '../../shared/pipeline/messages';
import { FakePublisher, FakeSource, FakeStore, memoryLogger } from '../support/pipeline-fakes';

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

    // Assess
    expect(outcomes).toEqual(['erased', 'erased', 'erased']);
    expect(source.calls).toBe(0);
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
});
