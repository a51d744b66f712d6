/**
 * One event per result when deliveries race (issue 14 item 3), against dynalite and s3rver through the
 * real `ResultStore`: two deliveries of the same resultId at once publish once; a claimer that crashes
 * after claiming leaves the event to the redelivery once the claim has expired; the same for the
 * 404 → UNAVAILABLE path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../shared/client/errors';
import { ClaimHeldElsewhereError } from '../../shared/errors';
import { FETCH_BUDGET } from '../../shared/pipeline/fetch-budget';
import {
  type FetchResultDeps,
  processQueueRecord,
  type RecordBudget,
  type ResultSource,
  type ResultStorePort,
} from '../../shared/pipeline/fetch-result';
import type { Publications } from '../../shared/store/publication';
import type { ResultStore } from '../../shared/store/result-store';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { Crash, chunksOf, FakePublisher, memoryLogger } from '../support/pipeline-fakes';

/** Time left in each delivery's invocation. */
const INVOCATION_MS = 60_000;
/** Life of a claim taken in such an invocation: its time and the margin after its deadline. */
const CLAIM_LIFE_MS = INVOCATION_MS + FETCH_BUDGET.claimMarginMs;

/** `budget` in an invocation with {@link INVOCATION_MS} left on `clock`: its deadline bounds the claim. */
function inInvocation(clock: { ms: number }, budget: RecordBudget = {}): RecordBudget {
  return { invocationDeadlineMs: clock.ms + INVOCATION_MS, ...budget };
}

/** A service whose answers wait until `parties` requests for the same resultId have arrived. */
class RacingSource implements ResultSource {
  readonly waiting = new Map<string, (() => void)[]>();
  constructor(
    readonly parties: number,
    readonly found: boolean,
  ) {}
  async getResultStream(resultId: string): Promise<AsyncIterable<Uint8Array>> {
    return chunksOf(await this.#answer(resultId));
  }
  async #answer(resultId: string): Promise<Uint8Array> {
    const list = this.waiting.get(resultId) ?? [];
    this.waiting.set(resultId, list);
    await new Promise<void>((resolve) => {
      list.push(resolve);
      if (list.length >= this.parties) for (const go of list) go();
    });
    if (!this.found) throw new NotFoundError('service answered 404', { status: 404 });
    return Buffer.from(JSON.stringify({ transactionId: `tx-${resultId}`, result: 'APPROVED', images: [] }));
  }
}

let local: LocalStore;
let store: ResultStore;
let publications: Publications;

beforeAll(async () => {
  local = await startLocalStore('idv-claim');
  ({ store, publications } = local);
}, 60_000);

afterAll(async () => {
  await local?.close();
});

function setup(source: ResultSource, clock: { ms: number }, crash = new Crash()) {
  const publisher = new FakePublisher(crash);
  const deps: FetchResultDeps = {
    source,
    store,
    publications,
    publisher,
    environment: 'staging',
    retentionDays: 7,
    logger: memoryLogger().logger,
    now: () => new Date(clock.ms),
  };
  return { deps, publisher, crash };
}

const message = (resultId: string, source = 'webhook') => JSON.stringify({ resultId, source });

describe('publication claim (dynalite)', () => {
  it('two deliveries of each of 20 resultIds at once: exactly one Stored event per result', async () => {
    // Prepare
    const clock = { ms: Date.now() };
    const { deps, publisher } = setup(new RacingSource(2, true), clock);
    const ids = Array.from({ length: 20 }, (_, i) => `race-${i}`);

    // Act: the two deliveries race; a loser that found nothing stored yet fails and is delivered again.
    const settled = await Promise.allSettled(
      ids.flatMap((id) => [
        processQueueRecord(message(id, 'webhook'), deps, inInvocation(clock)),
        processQueueRecord(message(id, 'poll'), deps, inInvocation(clock)),
      ]),
    );
    const outcomes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    const redelivered = await Promise.all(
      ids
        .filter((_, i) => settled[2 * i]!.status === 'rejected' || settled[2 * i + 1]!.status === 'rejected')
        .map((id) => processQueueRecord(message(id, 'poll'), deps, inInvocation(clock))),
    );

    // Assess
    expect(publisher.stored.map((d) => d.resultId).sort()).toEqual([...ids].sort());
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(20);
    expect(
      outcomes.filter((o) => o !== 'stored').every((o) => o === 'claimed-elsewhere' || o === 'duplicate'),
    ).toBe(true);
    expect(failed.every((e) => e instanceof ClaimHeldElsewhereError)).toBe(true);
    expect(redelivered.every((o) => o === 'duplicate')).toBe(true);
    for (const id of ids) {
      const item = await store.getItem(id);
      expect(item?.eventPublishedAt).toBeDefined();
      const publication = await publications.get(id);
      expect(publication).toMatchObject({ status: 'STORED', publishedAt: item?.eventPublishedAt });
      expect(publication?.claim).toBeUndefined();
      expect(publication?.claimExpiresAt).toBeUndefined();
    }
  });

  it('a claimer that crashes before publishing: a second delivery leaves it; the redelivery after expiry publishes once', async () => {
    // Prepare: the first delivery claims, stores and crashes at publish.
    const clock = { ms: Date.now() };
    const { deps, publisher, crash } = setup(new RacingSource(1, true), clock);
    crash.armed = 'publish';
    await expect(processQueueRecord(message('crash-stored'), deps, inInvocation(clock))).rejects.toThrow(
      /injected crash at publish/,
    );

    // Act: another delivery while the claim holds, then the redelivery after it expired.
    const during = await processQueueRecord(message('crash-stored', 'poll'), deps, inInvocation(clock));
    clock.ms += CLAIM_LIFE_MS + 1;
    const after = await processQueueRecord(message('crash-stored'), deps, inInvocation(clock));
    const again = await processQueueRecord(message('crash-stored', 'redrive'), deps, inInvocation(clock));

    // Assess
    expect([during, after, again]).toEqual(['claimed-elsewhere', 'announced-pending', 'duplicate']);
    expect(publisher.stored.map((d) => d.resultId)).toEqual(['crash-stored']);
    expect((await store.getItem('crash-stored'))?.eventPublishedAt).toBeDefined();
  });

  it('the crashed claimer’s own message, delivered again, takes over its claim at once; another message does not', async () => {
    // Prepare: message m-1 claims (token m-1), stores and crashes at publish.
    const clock = { ms: Date.now() };
    const { deps, publisher, crash } = setup(new RacingSource(1, true), clock);
    crash.armed = 'publish';
    await expect(
      processQueueRecord(message('own-claim'), deps, inInvocation(clock, { claimToken: 'm-1' })),
    ).rejects.toThrow(/injected crash/);

    // Act: no time passes.
    const other = await processQueueRecord(
      message('own-claim', 'poll'),
      deps,
      inInvocation(clock, { claimToken: 'm-2' }),
    );
    const own = await processQueueRecord(
      message('own-claim'),
      deps,
      inInvocation(clock, { claimToken: 'm-1' }),
    );

    // Assess
    expect([other, own]).toEqual(['claimed-elsewhere', 'announced-pending']);
    expect(publisher.stored.map((d) => d.resultId)).toEqual(['own-claim']);
  });

  it('a claimer past its claim refuses to publish: the message is left for redelivery', async () => {
    // Prepare: the claim expires while the delivery stores: the clock jumps at the item put.
    const clock = { ms: Date.now() };
    const { deps, publisher } = setup(new RacingSource(1, true), clock);
    const slowStore: ResultStorePort = {
      bucket: store.bucket,
      table: store.table,
      readState: (id, options) => store.readState(id, options),
      storeResult: (id, body) => store.storeResult(id, body),
      isErased: (id) => store.isErased(id),
      discardStored: (stored) => store.discardStored(stored),
      putStoredItem: async (item) => {
        const written = await store.putStoredItem(item);
        clock.ms += CLAIM_LIFE_MS + 1;
        return written;
      },
      putUnavailableItem: (item) => store.putUnavailableItem(item),
      putVersionItem: (item) => store.putVersionItem(item),
      latestOfTransaction: (tx, id) => store.latestOfTransaction(tx, id),
    };

    // Act / Assess
    await expect(
      processQueueRecord(message('late-claimer'), { ...deps, store: slowStore }, inInvocation(clock)),
    ).rejects.toThrow(/publication claim expired/);
    expect(publisher.stored).toHaveLength(0);
    expect(await processQueueRecord(message('late-claimer'), deps, inInvocation(clock))).toBe(
      'announced-pending',
    );
    expect(publisher.stored).toHaveLength(1);
  });

  it('404 → UNAVAILABLE: two deliveries at once publish one event; a crashed claimer is finished after expiry', async () => {
    // Prepare
    const clock = { ms: Date.now() };
    const { deps, publisher, crash } = setup(new RacingSource(2, false), clock);

    // Act: a race, then a crash after the claim on another resultId.
    const raced = await Promise.all([
      processQueueRecord(message('gone-race', 'webhook'), deps, inInvocation(clock)),
      processQueueRecord(message('gone-race', 'poll'), deps, inInvocation(clock)),
    ]);
    const single = setup(new RacingSource(1, false), clock, crash);
    crash.armed = 'publish';
    await expect(processQueueRecord(message('gone-crash'), single.deps, inInvocation(clock))).rejects.toThrow(
      /injected crash/,
    );
    const during = await processQueueRecord(message('gone-crash', 'poll'), single.deps, inInvocation(clock));
    clock.ms += CLAIM_LIFE_MS + 1;
    const after = await processQueueRecord(message('gone-crash'), single.deps, inInvocation(clock));

    // Assess
    expect(raced.filter((o) => o === 'unavailable')).toHaveLength(1);
    expect(publisher.unavailable.map((d) => d.resultId)).toEqual(['gone-race']);
    expect([during, after]).toEqual(['claimed-elsewhere', 'unavailable']);
    expect(single.publisher.unavailable.map((d) => d.resultId)).toEqual(['gone-crash']);
    expect((await store.getItem('gone-crash'))?.eventPublishedAt).toBeDefined();
  });

  it('the claim expires a margin after the invocation deadline when the deadline is known', async () => {
    // Prepare
    const clock = { ms: Date.now() };
    const { deps, crash } = setup(new RacingSource(1, true), clock);
    crash.armed = 'publish';
    const invocationDeadlineMs = clock.ms + 30_000;

    // Act
    await expect(
      processQueueRecord(message('deadline-claim'), deps, { invocationDeadlineMs }),
    ).rejects.toThrow(/injected crash/);

    // Assess
    expect((await publications.get('deadline-claim'))?.claimExpiresAt).toBe(invocationDeadlineMs + 10_000);
  });
});
