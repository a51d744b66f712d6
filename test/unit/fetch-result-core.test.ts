import { beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, RateLimitError } from '../../shared/client/errors';
import { MalformedMessageError } from '../../shared/errors';
import { type FetchResultDeps, processMessage, processQueueRecord } from '../../shared/pipeline/fetch-result';
import type { ResultMessage } from '../../shared/pipeline/messages';
import {
  Crash,
  FakePublisher,
  FakeSource,
  FakeStore,
  memoryLogger,
  type Step,
  sourceOf,
} from '../support/pipeline-fakes';

const RESULT = {
  transactionId: 'tx-1',
  customerReference: 'cref-1',
  result: 'DISAPPROVED',
  messages: ['DOCUMENT_EXPIRED'],
  images: [{ data: '/9j/AAAA', documentType: 'PASSPORT', pageType: 'FRONT' }],
  identity: {
    result: 'DISAPPROVED',
    data: { name: { fullname: 'Jane Example' }, documentNumber: 'X1234567' },
  },
  rightToWork: { result: 'APPROVED' },
};

const message: ResultMessage = {
  resultId: 'res-1',
  source: 'poll',
  product: 'IDV_STANDARD',
  completed: '2026-08-10T12:00:00Z',
};

describe('fetch-result core', () => {
  let crash: Crash;
  let source: FakeSource;
  let store: FakeStore;
  let publisher: FakePublisher;
  let deps: FetchResultDeps;
  let lines: string[];

  beforeEach(() => {
    crash = new Crash();
    source = new FakeSource(new Map([['res-1', RESULT]]), crash);
    store = new FakeStore(crash);
    publisher = new FakePublisher(crash);
    const log = memoryLogger();
    lines = log.lines;
    deps = {
      source,
      store,
      publisher,
      environment: 'staging',
      retentionDays: 30,
      logger: log.logger,
      now: () => new Date('2026-08-11T00:00:00.000Z'),
    };
  });

  it('stores, announces and marks a new result', async () => {
    // Act
    const outcome = await processMessage(message, deps);

    // Assess
    expect(outcome).toBe('stored');
    const item = store.items.get('res-1')!;
    expect(item).toMatchObject({
      status: 'STORED',
      transactionId: 'tx-1',
      customerReference: 'cref-1',
      product: 'IDV_STANDARD',
      completed: '2026-08-10T12:00:00.000Z',
      completedKnown: true,
      completedDay: '2026-08-10',
      result: 'DISAPPROVED',
      sections: { identity: 'DISAPPROVED', rightToWork: 'APPROVED' },
      messages: ['DOCUMENT_EXPIRED'],
      eventPublishedAt: '2026-08-11T00:00:00.000Z',
      expiresAt: Date.parse('2026-08-11T00:00:00.000Z') / 1000 + 30 * 86_400,
    });
    expect(publisher.stored).toHaveLength(1);
    expect(publisher.stored[0]).toMatchObject({
      resultId: 'res-1',
      status: 'STORED',
      sections: { identity: 'DISAPPROVED', rightToWork: 'APPROVED' },
      storage: { table: 'results-table', bucket: 'data-bucket', resultKey: 'results/res-1/result.json' },
    });
    const detailText = JSON.stringify(publisher.stored[0]);
    expect(detailText).not.toContain('Jane');
    expect(detailText).not.toContain('X1234567');
  });

  it('skips an already stored and announced result without calling the service', async () => {
    // Prepare
    await processMessage(message, deps);
    source.calls = 0;

    // Act
    const outcome = await processMessage({ ...message, source: 'webhook' }, deps);

    // Assess
    expect(outcome).toBe('duplicate');
    expect(source.calls).toBe(0);
    expect(publisher.stored).toHaveLength(1);
  });

  it.each<Step>(['fetch', 'writeObjects', 'putItem', 'publish', 'mark'])(
    'a crash at %s is repaired by the redelivery: one item, published and marked',
    async (step) => {
      // Prepare
      crash.armed = step;

      // Act
      await expect(processMessage(message, deps)).rejects.toThrow(`injected crash at ${step}`);
      await processMessage(message, deps);
      const third = await processMessage(message, deps);

      // Assess
      expect(third).toBe('duplicate');
      expect(store.items.size).toBe(1);
      expect(store.items.get('res-1')!.eventPublishedAt).toBeDefined();
      expect(store.objects.size).toBe(1);
      // A crash between publish and mark republishes once: events are at-least-once.
      expect(publisher.stored.length).toBe(step === 'mark' ? 2 : 1);
    },
  );

  it('two concurrent deliveries of one result both succeed: one item, marked, announced', async () => {
    // Act: webhook and poll delivered to two function instances at once.
    const outcomes = await Promise.all([
      processMessage({ ...message, source: 'webhook' }, deps),
      processMessage(message, deps),
    ]);

    // Assess
    expect(outcomes).toContain('stored');
    expect(store.items.size).toBe(1);
    expect(store.items.get('res-1')!.eventPublishedAt).toBeDefined();
    expect(publisher.stored.length).toBeGreaterThanOrEqual(1);
    expect(publisher.unavailable).toHaveLength(0);
  });

  it('a 404 racing a successful fetch of the same result ends STORED and announced', async () => {
    // Prepare: the first request reaches the service before the result is ready, the second after.
    let calls = 0;
    deps = {
      ...deps,
      source: sourceOf(async (resultId) => {
        calls++;
        if (calls === 1) throw new NotFoundError('service answered 404', { status: 404 });
        return source.getResultBody(resultId);
      }),
    };

    // Act
    const outcomes = await Promise.all([processMessage(message, deps), processMessage(message, deps)]);

    // Assess
    expect(outcomes).toContain('stored');
    expect(store.items.get('res-1')).toMatchObject({
      status: 'STORED',
      eventPublishedAt: expect.any(String),
    });
    expect(publisher.stored).toHaveLength(1);
  });

  it('records a 404 as UNAVAILABLE, announces it once and does not retry forever', async () => {
    // Prepare
    const gone: ResultMessage = { resultId: 'res-404', source: 'webhook', transactionId: 'tx-9' };

    // Act
    const first = await processMessage(gone, deps);
    const second = await processMessage(gone, deps);

    // Assess
    expect(first).toBe('unavailable');
    expect(second).toBe('duplicate');
    expect(store.items.get('res-404')).toMatchObject({
      status: 'UNAVAILABLE',
      reason: 'NOT_FOUND',
      completedKnown: false,
      completedDay: '2026-08-11',
      transactionId: 'tx-9',
    });
    expect(publisher.unavailable).toHaveLength(1);
    expect(publisher.unavailable[0]).toMatchObject({ resultId: 'res-404', reason: 'NOT_FOUND' });
  });

  it('replaces an UNAVAILABLE item when the service has the result after all', async () => {
    // Prepare
    source.results.delete('res-1');
    await processMessage(message, deps);
    source.results.set('res-1', RESULT);

    // Act
    const outcome = await processMessage(message, deps);

    // Assess
    expect(outcome).toBe('stored');
    expect(store.items.get('res-1')).toMatchObject({
      status: 'STORED',
      eventPublishedAt: expect.any(String),
    });
    expect(publisher.unavailable).toHaveLength(1);
    expect(publisher.stored).toHaveLength(1);
  });

  it('announces an upload notification without calling the service', async () => {
    // Act
    const outcome = await processMessage(
      { kind: 'upload', transactionId: 'tx-2', secureId: 'sec-1', uploadedAt: '2026-08-10T10:00:00Z' },
      deps,
    );

    // Assess
    expect(outcome).toBe('upload-announced');
    expect(source.calls).toBe(0);
    expect(publisher.uploaded).toEqual([
      {
        transactionId: 'tx-2',
        secureId: 'sec-1',
        uploadedAt: '2026-08-10T10:00:00.000Z',
        environment: 'staging',
      },
    ]);
  });

  it('says a 429 it could not wait out is the service rate, pointing at serviceRateLimit', async () => {
    // Prepare
    const limited = new RateLimitError('429 from the service', { status: 429, retryAfterMs: 60_000 });
    deps = { ...deps, source: { getResultStream: () => Promise.reject(limited) } };

    // Act
    const run = processQueueRecord(JSON.stringify(message), deps);

    // Assess
    await expect(run).rejects.toBe(limited);
    expect(lines.join('\n')).toContain('above its rate (429)');
    expect(lines.join('\n')).toContain('serviceRateLimit');
  });

  it('rejects a malformed queue message without touching the service and logs no body', async () => {
    // Act
    const bad = processQueueRecord('{"resultId":"../etc/passwd","source":"poll"}', deps);

    // Assess
    await expect(bad).rejects.toBeInstanceOf(MalformedMessageError);
    await expect(processQueueRecord('not json', deps)).rejects.toThrow('queue message is not JSON');
    expect(source.calls).toBe(0);
    expect(lines.join('\n')).not.toContain('passwd');
  });

  it('puts resultId and transactionId on the log lines of a message, and only there', async () => {
    // Act
    await processQueueRecord(JSON.stringify(message), deps);
    await processQueueRecord(JSON.stringify({ kind: 'upload', transactionId: 'tx-3' }), deps);

    // Assess
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.find((l) => l.message === 'result stored')).toMatchObject({ resultId: 'res-1' });
    const upload = parsed.find((l) => l.message === 'documents upload announced')!;
    expect(upload.transactionId).toBe('tx-3');
    expect(upload.resultId).toBeUndefined();
    expect(lines.join('\n')).not.toContain('Jane Example');
  });
});
