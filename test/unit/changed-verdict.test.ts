/**
 * A verdict changed after it was stored (docs/changed-verdicts.md), through the fetch-result
 * core with in-memory fakes: the same resultId announced again with a later `completed` is fetched and
 * stored as a new version, a duplicate with the same `completed` costs no request to the service, a new
 * resultId of a stored transaction follows it as its next version, and every change is announced once as
 * `VerificationResultChanged`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { replayOfItem } from '../../bin/cli/events-replay';
import { DETAIL_TYPES } from '../../shared/events/names';
import { type FetchResultDeps, processMessage, type RecordBudget } from '../../shared/pipeline/fetch-result';
import type { ResultMessage } from '../../shared/pipeline/messages';
import { buildTrace } from '../../shared/queries/trace';
import {
  Crash,
  eventValidators,
  FakePublications,
  FakePublisher,
  FakeSource,
  FakeStore,
  memoryLogger,
  type Step,
} from '../support/pipeline-fakes';

const APPROVED = {
  transactionId: 'tx-1',
  result: 'APPROVED',
  images: [{ data: '/9j/AAAA', documentType: 'PASSPORT', pageType: 'FRONT' }],
  identity: { result: 'APPROVED', data: { name: { fullname: 'Jane Example' } } },
};

const DISAPPROVED = {
  transactionId: 'tx-1',
  result: 'DISAPPROVED',
  messages: ['FRAUD_SUSPECTED'],
  images: [{ data: '/9j/BBBB', documentType: 'PASSPORT', pageType: 'FRONT' }],
  identity: { result: 'DISAPPROVED', data: { name: { fullname: 'Jane Example' } } },
};

const first: ResultMessage = {
  resultId: 'res-1',
  source: 'poll',
  transactionId: 'tx-1',
  product: 'IDV_STANDARD',
  completed: '2026-08-10T12:00:00Z',
};
const later: ResultMessage = { ...first, completed: '2026-08-12T09:30:00Z' };

describe('changed verdicts', () => {
  let crash: Crash;
  let source: FakeSource;
  let store: FakeStore;
  let publisher: FakePublisher;
  let deps: FetchResultDeps;
  let clock: { ms: number };
  /** `budget` in an invocation that ends a minute after the clock: claims are taken. */
  const invocation = (budget: RecordBudget = {}): RecordBudget => ({
    invocationDeadlineMs: clock.ms + 60_000,
    ...budget,
  });

  beforeEach(async () => {
    crash = new Crash();
    source = new FakeSource(new Map<string, unknown>([['res-1', APPROVED]]), crash);
    store = new FakeStore(crash);
    publisher = new FakePublisher(crash);
    clock = { ms: Date.parse('2026-08-11T00:00:00.000Z') };
    deps = {
      source,
      store,
      publications: new FakePublications(store),
      publisher,
      environment: 'staging',
      retentionDays: 30,
      logger: memoryLogger().logger,
      now: () => new Date(clock.ms),
    };
    // Prepare (every test): the first verdict, stored and announced.
    expect(await processMessage(first, deps, invocation())).toBe('stored');
    source.calls = 0;
    clock.ms = Date.parse('2026-08-12T10:00:00.000Z');
  });

  it.each<[string, ResultMessage]>([
    ['the same completed (poll)', { ...first }],
    ['the same completed in another form', { ...first, completed: '2026-08-10 12:00:00' }],
    ['no completed (webhook)', { resultId: 'res-1', source: 'webhook' }],
    ['an earlier completed', { ...first, completed: '2026-08-09T08:00:00Z' }],
    ['an unreadable completed', { ...first, completed: 'yesterday' }],
  ])('a duplicate announcement with %s makes no request to the service', async (_name, message) => {
    // Prepare: the service would answer with a changed verdict if it were asked.
    source.results.set('res-1', DISAPPROVED);

    // Act
    const outcome = await processMessage(message, deps, invocation());

    // Assess
    expect(outcome).toBe('duplicate');
    expect(source.calls).toBe(0);
    expect(store.items.get('res-1')).toMatchObject({ result: 'APPROVED' });
    expect(store.items.get('res-1')?.version).toBeUndefined();
    expect(publisher.changed).toHaveLength(0);
  });

  it('the same resultId with a later completed is fetched and stored as version 2, announced as changed', async () => {
    // Prepare
    source.results.set('res-1', DISAPPROVED);

    // Act
    const outcome = await processMessage(later, deps, invocation());

    // Assess: one request, the latest verdict and the history in the item.
    expect(outcome).toBe('changed');
    expect(source.calls).toBe(1);
    const item = store.items.get('res-1')!;
    expect(item).toMatchObject({
      status: 'STORED',
      version: 2,
      result: 'DISAPPROVED',
      sections: { identity: 'DISAPPROVED' },
      completed: '2026-08-12T09:30:00.000Z',
      product: 'IDV_STANDARD',
      resultKey: 'results/res-1/versions/2/result.json',
    });
    expect(item.versions).toEqual([
      expect.objectContaining({
        version: 1,
        resultId: 'res-1',
        completed: '2026-08-10T12:00:00.000Z',
        result: 'APPROVED',
        storedAt: '2026-08-11T00:00:00.000Z',
        resultKey: 'results/res-1/result.json',
      }),
      expect.objectContaining({
        version: 2,
        resultId: 'res-1',
        completed: '2026-08-12T09:30:00.000Z',
        result: 'DISAPPROVED',
        storedAt: '2026-08-12T10:00:00.000Z',
        resultKey: 'results/res-1/versions/2/result.json',
      }),
    ]);
    // Each version's objects under its own prefix; the first version's stay where they were.
    expect([...store.objects.keys()].sort()).toEqual([
      'results/res-1/images/01-PASSPORT-FRONT.jpg',
      'results/res-1/versions/2/images/01-PASSPORT-FRONT.jpg',
    ]);
    // Announced as changed, once; never a second Stored for the same resultId.
    expect(publisher.stored).toHaveLength(1);
    expect(publisher.changed).toEqual([
      expect.objectContaining({
        transactionId: 'tx-1',
        resultId: 'res-1',
        previousResultId: 'res-1',
        version: 2,
        previousVersion: 1,
        result: 'DISAPPROVED',
        previousResult: 'APPROVED',
        sections: { identity: 'DISAPPROVED' },
        previousSections: { identity: 'APPROVED' },
        messages: ['FRAUD_SUSPECTED'],
        completed: '2026-08-12T09:30:00.000Z',
        previousCompleted: '2026-08-10T12:00:00.000Z',
      }),
    ]);
    const validate = eventValidators()[DETAIL_TYPES.resultChanged];
    expect(validate(publisher.changed[0]), JSON.stringify(validate.errors)).toBe(true);
    expect(JSON.stringify(publisher.changed[0])).not.toContain('Jane');
    // A repeat of the same announcement is now a duplicate: no further request.
    expect(await processMessage(later, deps, invocation())).toBe('duplicate');
    expect(source.calls).toBe(1);
  });

  it('a replay of a result that holds a changed verdict re-announces the change, marked as a replay', async () => {
    // Prepare
    source.results.set('res-1', DISAPPROVED);
    await processMessage(later, deps, invocation());

    // Act
    const replay = replayOfItem(
      store.items.get('res-1')!,
      { environment: 'staging', store: { table: store.table, bucket: store.bucket } },
      'replay-1',
    );

    // Assess
    expect(replay.detailType).toBe(DETAIL_TYPES.resultChanged);
    expect(replay.detail).toMatchObject({ version: 2, previousResult: 'APPROVED', replay: 'replay-1' });
    expect(eventValidators()[DETAIL_TYPES.resultChanged](replay.detail)).toBe(true);
  });

  it('the trace of a result whose verdict changed shows each version and the Changed publication', async () => {
    // Prepare
    source.results.set('res-1', DISAPPROVED);
    await processMessage(later, deps, invocation());

    // Act
    const trace = buildTrace({
      resultId: 'res-1',
      item: store.items.get('res-1'),
      publication: store.publications.get('res-1'),
    });

    // Assess
    expect(trace).toMatchObject({ version: 2, result: 'DISAPPROVED' });
    expect(trace.versions?.map((v) => v.result)).toEqual(['APPROVED', 'DISAPPROVED']);
    expect(trace.steps.filter((s) => s.kind === 'stored').map((s) => s.note)).toEqual([
      'version 1: APPROVED',
      'version 2: 1 object(s), result.json and item',
    ]);
    expect(trace.steps.find((s) => s.kind === 'published')?.outcome).toBe('VerificationResultChanged');
  });

  it('a third verdict follows the second: version 3 with the whole history', async () => {
    // Prepare
    source.results.set('res-1', DISAPPROVED);
    await processMessage(later, deps, invocation());
    source.results.set('res-1', APPROVED);

    // Act
    const outcome = await processMessage({ ...first, completed: '2026-08-13T00:00:00Z' }, deps, invocation());

    // Assess
    expect(outcome).toBe('changed');
    const item = store.items.get('res-1')!;
    expect(item.version).toBe(3);
    expect(item.versions?.map((v) => [v.version, v.result])).toEqual([
      [1, 'APPROVED'],
      [2, 'DISAPPROVED'],
      [3, 'APPROVED'],
    ]);
    expect(publisher.changed.map((d) => [d.previousVersion, d.version, d.previousResult, d.result])).toEqual([
      [1, 2, 'APPROVED', 'DISAPPROVED'],
      [2, 3, 'DISAPPROVED', 'APPROVED'],
    ]);
  });

  it('two deliveries of one version at once store it once and announce it once', async () => {
    // Prepare
    source.results.set('res-1', DISAPPROVED);

    // Act: the poll message and a webhook message that found the same polling record. The one that finds
    // the claim held while the store still shows version 1 is left for redelivery (it may not end there).
    const outcomes = await Promise.allSettled([
      processMessage(later, deps, invocation()),
      processMessage(later, deps, invocation()),
    ]);
    const redelivered = await processMessage(later, deps, invocation());

    // Assess
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : o.reason.name)).sort()).toEqual([
      'ClaimHeldElsewhereError',
      'changed',
    ]);
    expect(redelivered).toBe('duplicate');
    expect(source.calls).toBe(2);
    expect(store.items.get('res-1')).toMatchObject({ version: 2, result: 'DISAPPROVED' });
    expect(publisher.changed).toHaveLength(1);
    expect(store.publications.get('res-1')).toMatchObject({ version: 2, publishedAt: expect.any(String) });
  });

  it.each<Step>(['fetch', 'writeObjects', 'putItem', 'publish', 'mark'])(
    'a crash at %s while a version is stored is repaired by the redelivery',
    async (step) => {
      // Prepare
      source.results.set('res-1', DISAPPROVED);
      crash.armed = step;

      // Act: the delivery fails; its claim (same token: the same message) is taken over at once.
      await expect(processMessage(later, deps, invocation({ claimToken: 'm-1' }))).rejects.toThrow(
        `injected crash at ${step}`,
      );
      const again = await processMessage(later, deps, invocation({ claimToken: 'm-1' }));
      const third = await processMessage(later, deps, invocation({ claimToken: 'm-2' }));

      // Assess: one version 2, announced (twice only when the crash came between publish and mark).
      expect(['changed', 'announced-pending']).toContain(again);
      expect(third).toBe('duplicate');
      expect(store.items.get('res-1')).toMatchObject({ version: 2, result: 'DISAPPROVED' });
      expect(store.items.get('res-1')?.versions).toHaveLength(2);
      expect(publisher.changed.length).toBe(step === 'mark' ? 2 : 1);
      expect(publisher.stored).toHaveLength(1);
    },
  );

  it('a later version of an erased result is neither fetched into the store nor announced', async () => {
    // Prepare: erased (record and fence), then announced again with a later completion.
    source.results.set('res-1', DISAPPROVED);
    store.erased.add('res-1');
    store.fence('res-1', '2026-08-12T09:00:00.000Z');
    store.items.delete('res-1');

    // Act
    const outcome = await processMessage({ ...later, source: 'webhook' }, deps, invocation());

    // Assess
    expect(outcome).toBe('erased');
    expect(store.items.size).toBe(0);
    expect(publisher.changed).toHaveLength(0);
  });

  it('an erasure fenced while a version was fetched: the claim is refused, nothing of the version is kept', async () => {
    // Prepare: the fence lands after the item was read and before the claim.
    source.results.set('res-1', DISAPPROVED);
    const racing = new FakeStore(crash);
    for (const [key, value] of store.items) racing.items.set(key, value);
    racing.publications.set('res-1', store.publications.get('res-1')!);
    const fencing = new (class extends FakePublications {
      override async claim(...args: Parameters<FakePublications['claim']>) {
        this.store.erased.add('res-1');
        this.store.fence('res-1', '2026-08-12T09:59:00.000Z');
        return super.claim(...args);
      }
    })(racing);

    // Act
    const outcome = await processMessage(
      later,
      { ...deps, store: racing, publications: fencing },
      invocation(),
    );

    // Assess
    expect(outcome).toBe('erased');
    expect(racing.items.get('res-1')?.version).toBeUndefined();
    expect([...racing.objects.keys()]).toEqual([]);
    expect(publisher.changed).toHaveLength(0);
  });

  it('a new resultId for a stored transaction is stored as its next version: Stored and Changed', async () => {
    // Prepare
    source.results.set('res-2', DISAPPROVED);

    // Act
    const outcome = await processMessage(
      { resultId: 'res-2', source: 'poll', transactionId: 'tx-1', completed: '2026-08-12T09:30:00Z' },
      deps,
      invocation(),
    );

    // Assess
    expect(outcome).toBe('changed');
    expect(store.items.get('res-2')).toMatchObject({
      version: 2,
      result: 'DISAPPROVED',
      resultKey: 'results/res-2/result.json',
    });
    expect(store.items.get('res-2')?.versions?.map((v) => [v.resultId, v.version, v.result])).toEqual([
      ['res-1', 1, 'APPROVED'],
      ['res-2', 2, 'DISAPPROVED'],
    ]);
    expect(store.items.get('res-1')).toMatchObject({ result: 'APPROVED' });
    expect(publisher.stored.map((d) => d.resultId)).toEqual(['res-1', 'res-2']);
    expect(publisher.changed).toEqual([
      expect.objectContaining({
        resultId: 'res-2',
        previousResultId: 'res-1',
        version: 2,
        previousVersion: 1,
        previousResult: 'APPROVED',
        result: 'DISAPPROVED',
      }),
    ]);
    // And that resultId announced again later is its version 3.
    source.results.set('res-2', APPROVED);
    expect(
      await processMessage(
        { resultId: 'res-2', source: 'poll', completed: '2026-08-14T00:00:00Z' },
        deps,
        invocation(),
      ),
    ).toBe('changed');
    expect(store.items.get('res-2')).toMatchObject({
      version: 3,
      resultKey: 'results/res-2/versions/3/result.json',
    });
    expect(publisher.changed.at(-1)).toMatchObject({
      resultId: 'res-2',
      previousResultId: 'res-2',
      version: 3,
    });
  });

  it('a result of the transaction completed before the stored one is stored apart, not as a change', async () => {
    // Prepare
    source.results.set('res-0', DISAPPROVED);

    // Act
    const outcome = await processMessage(
      { resultId: 'res-0', source: 'poll', transactionId: 'tx-1', completed: '2026-08-09T00:00:00Z' },
      deps,
      invocation(),
    );

    // Assess
    expect(outcome).toBe('stored');
    expect(store.items.get('res-0')?.version).toBeUndefined();
    expect(publisher.changed).toHaveLength(0);
  });
});
