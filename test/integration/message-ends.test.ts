/**
 * Every message ends somewhere you can see (docs/reliability.md): a record is acknowledged only when the
 * store shows its result STORED, UNAVAILABLE or erased; otherwise the batch reports it as failed, so SQS
 * delivers it again (and the DLQ keeps it if it never resolves). Against dynalite and s3rver through the
 * real `ResultStore` and the batch (`processResultsBatch`), as the fetch-result handler runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../shared/client/errors';
import type { ResultSource } from '../../shared/pipeline/fetch-result';
import { processResultsBatch, type ResultsBatchDeps } from '../../shared/pipeline/results-batch';
import { ErasureRecords, erasureKey } from '../../shared/store/erasure-record';
import { NO_TRACER } from '../../shared/tracing';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { chunksOf, FakePublisher, memoryLogger } from '../support/pipeline-fakes';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

/** A result body whose image `data` is not base64 (the demo's deliberate failure: DATA_NOT_BASE64). */
const BROKEN = JSON.stringify({
  transactionId: 'tx-ends',
  result: 'APPROVED',
  images: [{ data: `${PNG.toString('base64')}%%`, documentType: 'LIVE' }],
});
const GOOD = JSON.stringify({ transactionId: 'tx-ends', result: 'APPROVED', images: [] });

/** The service: per resultId, what it answers now (a broken body, a good one, or 404: deleted). */
class Service implements ResultSource {
  readonly answers = new Map<string, 'broken' | 'good' | 'gone'>();
  async getResultStream(resultId: string): Promise<AsyncIterable<Uint8Array>> {
    const answer = this.answers.get(resultId) ?? 'gone';
    if (answer === 'gone') throw new NotFoundError('service answered 404', { status: 404 });
    return chunksOf(Buffer.from(answer === 'broken' ? BROKEN : GOOD));
  }
}

let local: LocalStore;

beforeAll(async () => {
  local = await startLocalStore('idv-ends');
}, 60_000);

afterAll(async () => {
  await local?.close();
});

function setup() {
  const service = new Service();
  const publisher = new FakePublisher();
  const clock = { ms: Date.now() };
  const deps: ResultsBatchDeps = {
    source: service,
    store: local.store,
    publications: local.publications,
    publisher,
    environment: 'staging',
    retentionDays: 7,
    logger: memoryLogger().logger,
    now: () => new Date(clock.ms),
  };
  const metrics = { addMetric: () => undefined } as never;
  /** One batch of one record; the ids of the records left for redelivery. */
  const deliver = async (messageId: string, resultId: string, source = 'webhook', extra: object = {}) => {
    const { batchItemFailures } = await processResultsBatch(
      [{ messageId, body: JSON.stringify({ resultId, source, ...extra }) }],
      // A Lambda invocation with a minute left: its deadline bounds the claim.
      { deps, tracer: NO_TRACER, metrics, remainingMs: () => 60_000 },
    );
    return batchItemFailures.map((f) => f.itemIdentifier);
  };
  return { service, publisher, clock, deliver };
}

describe('a message ends somewhere you can see', () => {
  it('failed fetches, then a 404 on the redrive: UNAVAILABLE, announced and listed (the issue’s flow)', async () => {
    // Prepare: three deliveries of one message, each refused as DATA_NOT_BASE64 (the demo's failure),
    // which leave a STORED publication record without any item.
    const { service, publisher, deliver } = setup();
    service.answers.set('ends-redrive', 'broken');
    const failed = [];
    for (let n = 0; n < 3; n++) failed.push(...(await deliver('m-1', 'ends-redrive')));
    const left = await local.publications.get('ends-redrive');

    // Act: the service has deleted the result; the DLQ is redriven (a new message).
    service.answers.set('ends-redrive', 'gone');
    const redrive = await deliver('m-2', 'ends-redrive', 'redrive');

    // Assess
    expect(failed).toEqual(['m-1', 'm-1', 'm-1']);
    expect(left).toMatchObject({ status: 'STORED' });
    expect(left).not.toHaveProperty('publishedAt');
    expect(redrive).toEqual([]);
    const item = await local.store.getItem('ends-redrive');
    expect(item).toMatchObject({ status: 'UNAVAILABLE', eventPublishedAt: expect.any(String) });
    expect(publisher.unavailable.map((d) => d.resultId)).toEqual(['ends-redrive']);
    expect(publisher.stored).toEqual([]);
  });

  it('a failed fetch, then a 404 on the ordinary redelivery of the same message: UNAVAILABLE', async () => {
    // Prepare
    const { service, publisher, deliver } = setup();
    service.answers.set('ends-redelivery', 'broken');
    const first = await deliver('m-3', 'ends-redelivery');

    // Act
    service.answers.set('ends-redelivery', 'gone');
    const again = await deliver('m-3', 'ends-redelivery');

    // Assess
    expect([first, again]).toEqual([['m-3'], []]);
    expect(await local.store.getItem('ends-redelivery')).toMatchObject({ status: 'UNAVAILABLE' });
    expect(publisher.unavailable.map((d) => d.resultId)).toEqual(['ends-redelivery']);
  });

  it('failed fetches, then the service answers after all: STORED on the redrive', async () => {
    // Prepare
    const { service, publisher, deliver } = setup();
    service.answers.set('ends-late', 'broken');
    const first = await deliver('m-4', 'ends-late');

    // Act
    service.answers.set('ends-late', 'good');
    const redrive = await deliver('m-5', 'ends-late', 'redrive');

    // Assess
    expect([first, redrive]).toEqual([['m-4'], []]);
    expect(await local.store.getItem('ends-late')).toMatchObject({ status: 'STORED' });
    expect(publisher.stored.map((d) => d.resultId)).toEqual(['ends-late']);
  });

  it('a claim held by another delivery with nothing stored fails the record; once the item is there it is acknowledged', async () => {
    // Prepare: another delivery (message m-other) holds a live claim and has written nothing yet.
    const { service, clock, publisher, deliver } = setup();
    await local.publications.claim(
      'ends-held',
      'STORED',
      { token: 'm-other', expiresAt: clock.ms + 60_000 },
      clock.ms,
    );
    await local.publications.claim(
      'ends-held-404',
      'STORED',
      { token: 'm-other', expiresAt: clock.ms + 60_000 },
      clock.ms,
    );
    service.answers.set('ends-held', 'good');

    // Act: a second delivery of each while the claim holds; then the holder writes its item.
    const storing = await deliver('m-6', 'ends-held', 'poll');
    const gone = await deliver('m-7', 'ends-held-404', 'poll');
    const { written } = await local.store.putStoredItem({
      resultId: 'ends-held',
      status: 'STORED',
      completed: new Date(clock.ms).toISOString(),
      completedKnown: true,
      completedDay: new Date(clock.ms).toISOString().slice(0, 10),
      storedAt: new Date(clock.ms).toISOString(),
      expiresAt: Math.floor(clock.ms / 1000) + 86_400,
    });
    const afterItem = await deliver('m-6', 'ends-held', 'poll');

    // Assess: nothing acknowledged while the store showed nothing; acknowledged once it shows STORED,
    // the event left to the claim's holder.
    expect([storing, gone]).toEqual([['m-6'], ['m-7']]);
    expect(written).toBe(true);
    expect(afterItem).toEqual([]);
    expect(await local.store.getItem('ends-held-404')).toBeUndefined();
    expect(publisher.stored).toEqual([]);
    expect(publisher.unavailable).toEqual([]);
  });

  it('a refetch of an erased result whose claim another delivery holds is not ended by the erasure record', async () => {
    // Prepare: erased; `idv results refetch` queued it again; another delivery holds the claim, nothing stored.
    const { service, clock, deliver } = setup();
    service.answers.set('ends-refetch', 'good');
    await new ErasureRecords(local.dynamo, local.resources.tableName).put({
      resultId: erasureKey('ends-refetch'),
      erasedResultId: 'ends-refetch',
      state: 'ERASED',
      requestedAt: new Date().toISOString(),
      principal: 'operator',
      selectedBy: 'result-id',
      expiresAt: 1_900_000_000,
    });
    const held = { token: 'm-other', expiresAt: clock.ms + 60_000 };
    await local.publications.claim('ends-refetch', 'STORED', held, clock.ms);

    // Act
    const refetch = await deliver('m-9', 'ends-refetch', 'redrive', { refetch: true });

    // Assess: left for redelivery, where the holder's item (or its expired claim) decides.
    expect(refetch).toEqual(['m-9']);
  });

  it('a redrive after an erasure is acknowledged as erased: nothing fetched, stored or announced', async () => {
    // Prepare
    const { service, publisher, deliver } = setup();
    service.answers.set('ends-erased', 'good');
    await new ErasureRecords(local.dynamo, local.resources.tableName).put({
      resultId: erasureKey('ends-erased'),
      erasedResultId: 'ends-erased',
      state: 'ERASED',
      requestedAt: new Date().toISOString(),
      principal: 'operator',
      selectedBy: 'result-id',
      expiresAt: 1_900_000_000,
    });

    // Act
    const redrive = await deliver('m-8', 'ends-erased', 'redrive');

    // Assess
    expect(redrive).toEqual([]);
    expect(await local.store.getItem('ends-erased')).toBeUndefined();
    expect(publisher.stored).toEqual([]);
  });
});
