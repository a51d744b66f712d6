import { beforeEach, describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  GoneError,
  NotFoundError,
  RateLimitError,
  ResponseFormatError,
  UnauthorizedError,
} from '../../shared/client/errors';
import { MalformedMessageError } from '../../shared/errors';
import { type FetchResultDeps, processMessage, processQueueRecord } from '../../shared/pipeline/fetch-result';
import type { ResultMessage } from '../../shared/pipeline/messages';
import {
  Crash,
  FakePublications,
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

/** The budget of a record in an invocation that ends a minute after the tests' clock: claims are taken. */
const IN_INVOCATION = { invocationDeadlineMs: Date.parse('2026-08-11T00:00:00.000Z') + 60_000 };

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
      publications: new FakePublications(store),
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

  it('claims the publication before the body is stored, not after it', async () => {
    // Prepare: a store whose body is stored only once the claim has been asked for. Without that claim
    // by the time every pending step of the current turn has run (setImmediate), storing fails.
    let claimAsked!: () => void;
    const asked = new Promise<void>((resolve) => (claimAsked = resolve));
    const store = new (class extends FakeStore {
      override async storeResult(resultId: string, body: AsyncIterable<Uint8Array>) {
        const notAsked = new Promise<never>((_, reject) =>
          setImmediate(() => reject(new Error('the claim was not asked for while the body was stored'))),
        );
        await Promise.race([asked, notAsked]);
        return super.storeResult(resultId, body);
      }
    })(crash);
    const publications = new (class extends FakePublications {
      override claim(...args: Parameters<FakePublications['claim']>) {
        claimAsked();
        return super.claim(...args);
      }
    })(store);

    // Act
    const outcome = await processMessage(message, { ...deps, store, publications }, IN_INVOCATION);

    // Assess: the item is written (with its own TTL), published and marked once.
    expect(outcome).toBe('stored');
    expect(store.items.get('res-1')?.expiresAt).toBe(
      Date.parse('2026-08-11T00:00:00.000Z') / 1000 + 30 * 86_400,
    );
    expect(store.publications.get('res-1')).toMatchObject({
      status: 'STORED',
      publishedAt: expect.any(String),
    });
    expect(publisher.stored).toHaveLength(1);
  });

  it('a body that cannot be stored fails the record only once its claim has ended, and gives the claim up', async () => {
    // Prepare: a claim that ends only when the test opens its gate, and a body that is not JSON.
    let claimAsked!: () => void;
    const asked = new Promise<void>((resolve) => (claimAsked = resolve));
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let claimEnded = false;
    const publications = new (class extends FakePublications {
      override async claim(...args: Parameters<FakePublications['claim']>) {
        claimAsked();
        await gate;
        claimEnded = true;
        return super.claim(...args);
      }
    })(store);
    const source = sourceOf(async () => Buffer.from('<html>busy</html>'));

    // Act: the record runs until its claim waits at the gate and every step it could take has run.
    const failure = processMessage(message, { ...deps, source, publications }, IN_INVOCATION);
    let settled = false;
    failure.then(
      () => (settled = true),
      () => (settled = true),
    );
    await asked;
    await new Promise((resolve) => setImmediate(resolve));

    // Assess: not failed while the claim runs.
    expect(settled).toBe(false);

    // Act
    openGate();

    // Assess: nothing stored or announced; no step of the record is left running; the claim is given up,
    // so another message of the result (a redrive, the poll) stores it now, not at the claim's expiry.
    await expect(failure).rejects.toThrow(/not JSON/);
    expect(claimEnded).toBe(true);
    expect(store.items.size).toBe(0);
    expect(publisher.stored).toHaveLength(0);
    expect(store.publications.get('res-1')?.claim).toBeUndefined();
    expect(await processMessage(message, deps, IN_INVOCATION)).toBe('stored');
    expect(publisher.stored).toHaveLength(1);
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

describe('fetch-result core with answers another implementation of the service may give', () => {
  /** Deps whose source answers every fetch with `body` (or throws it when it is an Error). */
  function depsOf(body: Buffer | Error): {
    deps: FetchResultDeps;
    store: FakeStore;
    publisher: FakePublisher;
    lines: string[];
  } {
    const store = new FakeStore();
    const publisher = new FakePublisher();
    const { logger, lines } = memoryLogger();
    const deps: FetchResultDeps = {
      source: sourceOf(async () => {
        if (body instanceof Error) throw body;
        return body;
      }),
      store,
      publications: new FakePublications(store),
      publisher,
      environment: 'staging',
      retentionDays: 30,
      logger,
    };
    return { deps, store, publisher, lines };
  }

  it('stores a result whose id has other characters under its escaped key and names it exactly in the event', async () => {
    // Prepare
    const { deps, store, publisher } = depsOf(Buffer.from(JSON.stringify({ result: 'APPROVED' })));

    // Act
    const outcome = await processQueueRecord(JSON.stringify({ resultId: 'R~42', source: 'poll' }), deps);

    // Assess
    expect(outcome).toBe('stored');
    expect(store.items.get('R~42')?.resultKey).toBe('results/R.7E42/result.json');
    expect(publisher.stored.map((d) => d.resultId)).toEqual(['R~42']);
  });

  it('records a result the service answers 410 to as UNAVAILABLE, like a 404', async () => {
    // Prepare
    const { deps, store } = depsOf(new GoneError('service answered 410', { status: 410 }));

    // Act
    const outcome = await processMessage({ resultId: 'expired.0001', source: 'poll' }, deps);

    // Assess
    expect(outcome).toBe('unavailable');
    expect(store.items.get('expired.0001')).toMatchObject({ status: 'UNAVAILABLE', reason: 'NOT_FOUND' });
  });

  it.each([
    [
      new ForbiddenError('service answered 403: Forbidden', { status: 403 }),
      'refused the result request (403)',
    ],
    [new UnauthorizedError('service answered 401', { status: 401 }), 'after a refresh (401)'],
  ])('leaves a %s for redelivery and the DLQ with a clear line', async (error, text) => {
    // Prepare
    const { deps, store, lines } = depsOf(error);

    // Act
    const outcome = processQueueRecord(JSON.stringify({ resultId: 'r-1', source: 'poll' }), deps);

    // Assess
    await expect(outcome).rejects.toBe(error);
    expect(store.items.size).toBe(0);
    expect(lines.join('\n')).toContain(text);
  });

  it('retries a result body that is not JSON, naming its size but never its content', async () => {
    // Prepare
    const { deps, store, lines } = depsOf(Buffer.from('<html>Jantje Testpersoon</html>'));

    // Act
    const outcome = processQueueRecord(JSON.stringify({ resultId: 'r-1', source: 'poll' }), deps);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(ResponseFormatError);
    expect(store.items.size).toBe(0);
    expect(lines.join('\n')).toContain('not JSON (31 bytes)');
    expect(lines.join('\n')).not.toContain('Jantje');
  });

  it('fails a result body that is a JSON array (redelivered, then the DLQ) and stores and announces nothing', async () => {
    // Prepare
    const { deps, store, publisher } = depsOf(Buffer.from('[{"transactionId":"t"}]'));

    // Act
    const outcome = processMessage({ resultId: 'r-array', source: 'poll' }, deps);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(ResponseFormatError);
    await expect(outcome).rejects.toThrow('JSON that is not an object');
    expect(store.items.size).toBe(0);
    expect(store.objectWrites).toBe(0);
    expect(publisher.stored).toHaveLength(0);
    expect(publisher.unavailable).toHaveLength(0);
  });

  it('reads a result body with a byte order mark', async () => {
    // Prepare
    const { deps, store } = depsOf(Buffer.from(`\uFEFF${JSON.stringify({ result: 'APPROVED' })}`));

    // Act
    const outcome = await processMessage({ resultId: 'r-1', source: 'poll' }, deps);

    // Assess
    expect(outcome).toBe('stored');
    expect(store.items.get('r-1')?.result).toBe('APPROVED');
  });
});
