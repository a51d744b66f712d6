/**
 * Every result carries the service's polling metadata whatever announced it first (docs/analytics.md,
 * "Where product and completion time come from"): the batch reads the polling records once, before any
 * fetch removes them, and a redriven message keeps what its record said.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { PollResponse } from '../../shared/api/schemas';
import { NotFoundError, ServiceError } from '../../shared/client/errors';
import { METRICS } from '../../shared/metrics-names';
import type { PollMetadata, ResultSource } from '../../shared/pipeline/fetch-result';
import { processResultsBatch, type ResultsBatchDeps } from '../../shared/pipeline/results-batch';
import { NO_TRACER } from '../../shared/tracing';
import {
  chunksOf,
  FakePublications,
  FakePublisher,
  FakeStore,
  memoryLogger,
} from '../support/pipeline-fakes';

/** The service as §3 describes it: a polling record per finished result, removed when the result is fetched. */
class PollingService implements ResultSource {
  readonly records = new Map<string, Record<string, string>>();
  readonly results = new Map<string, unknown>();
  pollCalls = 0;
  failNextFetch = false;
  /** The next fetch removes the record, as any fetch does, then the body breaks off. */
  breakNextBody = false;
  add(resultId: string, product: string, completed: string): void {
    this.records.set(resultId, {
      resultId,
      transactionId: `tx-${resultId}`,
      product,
      customerReference: `ref-${resultId}`,
      userId: 'user-7',
      completed,
    });
    this.results.set(resultId, {
      transactionId: `tx-${resultId}`,
      result: 'APPROVED',
      messages: [],
      identity: { result: 'APPROVED' },
    });
  }
  async poll(): Promise<PollResponse> {
    this.pollCalls++;
    return { results: [...this.records.values()] as PollResponse['results'] };
  }
  async getResultStream(resultId: string): Promise<AsyncIterable<Uint8Array>> {
    if (this.failNextFetch) {
      this.failNextFetch = false;
      throw new ServiceError('service answered 500', { status: 500 });
    }
    const result = this.results.get(resultId);
    if (result === undefined) throw new NotFoundError('service answered 404', { status: 404 });
    this.records.delete(resultId);
    if (this.breakNextBody) {
      this.breakNextBody = false;
      return chunksOf(Buffer.from(JSON.stringify(result).slice(0, 20)));
    }
    return chunksOf(Buffer.from(JSON.stringify(result)));
  }
}

class CountingMetrics {
  readonly counts = new Map<string, number>();
  addMetric(name: string, _unit: string, value: number): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + value);
  }
}

const webhook = (resultId: string, messageId = `m-${resultId}`) => ({
  messageId,
  body: JSON.stringify({ resultId, source: 'webhook' }),
});

describe('results batch: polling metadata', () => {
  let service: PollingService;
  let store: FakeStore;
  let publisher: FakePublisher;
  let metrics: CountingMetrics;
  let deps: ResultsBatchDeps;

  beforeEach(() => {
    service = new PollingService();
    store = new FakeStore();
    publisher = new FakePublisher();
    metrics = new CountingMetrics();
    deps = {
      source: service,
      pollSource: service,
      store,
      publications: new FakePublications(store),
      publisher,
      environment: 'staging',
      eventCustomerReference: 'include',
      retentionDays: 30,
      logger: memoryLogger().logger,
      now: () => new Date('2026-08-11T00:00:00.000Z'),
    };
  });

  const run = (records: { messageId: string; body: string }[]) =>
    processResultsBatch(records, {
      deps,
      tracer: NO_TRACER,
      metrics: metrics as never,
    });

  it('gives webhook-announced results the product, completion time and identifiers of their polling record, with one poll call per batch', async () => {
    // Prepare
    service.add('r-1', 'IDV_STANDARD', '2026-08-10T09:00:00Z');
    service.add('r-2', 'RTW_PREMIUM', '2026-08-10T09:05:00Z');
    service.add('r-3', 'IDV_LITE', '2026-08-10T09:10:00Z');
    // Act
    const answer = await run([webhook('r-1'), webhook('r-2'), webhook('r-3')]);
    // Assess
    expect(answer.batchItemFailures).toEqual([]);
    expect(service.pollCalls).toBe(1);
    expect(store.items.get('r-2')).toMatchObject({
      product: 'RTW_PREMIUM',
      completed: '2026-08-10T09:05:00.000Z',
      completedKnown: true,
      userId: 'user-7',
      customerReference: 'ref-r-2',
      transactionId: 'tx-r-2',
      source: 'webhook',
    });
    expect(publisher.stored.map((d) => [d.resultId, d.product, d.completed])).toEqual([
      ['r-1', 'IDV_STANDARD', '2026-08-10T09:00:00.000Z'],
      ['r-2', 'RTW_PREMIUM', '2026-08-10T09:05:00.000Z'],
      ['r-3', 'IDV_LITE', '2026-08-10T09:10:00.000Z'],
    ]);
    expect(metrics.counts.get(METRICS.names.resultsWithoutPollRecord)).toBeUndefined();
  });

  it('makes no poll call for a batch of poll messages, which carry the record themselves', async () => {
    service.add('r-1', 'IDV_STANDARD', '2026-08-10T09:00:00Z');
    const body = JSON.stringify({ ...service.records.get('r-1'), source: 'poll' });
    await run([{ messageId: 'm-1', body }]);
    expect(service.pollCalls).toBe(0);
    expect(store.items.get('r-1')).toMatchObject({ product: 'IDV_STANDARD', completedKnown: true });
  });

  it('keeps the polling metadata of a webhook message that failed, went through the DLQ and was redriven', async () => {
    // Prepare: the first attempt fails (500), the record stays at the service.
    service.add('r-9', 'RTW_PREMIUM', '2026-08-10T10:00:00Z');
    service.failNextFetch = true;
    const first = await run([webhook('r-9')]);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm-r-9' }]);
    // Act: the DLQ redrive sends it back as `source: "redrive"` (shared/queries/dlq.ts).
    await run([{ messageId: 'm-redriven', body: JSON.stringify({ resultId: 'r-9', source: 'redrive' }) }]);
    // Assess
    expect(store.items.get('r-9')).toMatchObject({
      product: 'RTW_PREMIUM',
      completedKnown: true,
      source: 'redrive',
    });
    expect(publisher.stored[0]).toMatchObject({
      product: 'RTW_PREMIUM',
      completed: '2026-08-10T10:00:00.000Z',
    });
  });

  it('keeps the metadata of a webhook result whose first fetch removed the record and then failed, for its next attempt', async () => {
    // Prepare: kept records in memory, as the results table keeps them (`<resultId>#poll`)
    const kept = new Map<string, PollMetadata>();
    deps = {
      ...deps,
      pollRecords: {
        keep: async (resultId, metadata) => void kept.set(resultId, metadata),
        get: async (resultId) => kept.get(resultId),
      },
    };
    service.add('r-7', 'RTW_PREMIUM', '2026-08-10T11:00:00Z');
    service.breakNextBody = true;
    const first = await run([webhook('r-7')]);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm-r-7' }]);
    expect(service.records.has('r-7')).toBe(false);

    // Act: the redrive, after the service has removed the record
    await run([{ messageId: 'm-redriven', body: JSON.stringify({ resultId: 'r-7', source: 'redrive' }) }]);

    // Assess
    expect(store.items.get('r-7')).toMatchObject({
      product: 'RTW_PREMIUM',
      completed: '2026-08-10T11:00:00.000Z',
      completedKnown: true,
    });
    expect(metrics.counts.get(METRICS.names.resultsWithoutPollRecord)).toBeUndefined();
  });

  it('keeps a redriven poll message own metadata without asking the service again', async () => {
    service.add('r-8', 'RTW_PREMIUM', '2026-08-10T10:00:00Z');
    const redriven = { ...service.records.get('r-8'), source: 'redrive' };
    service.records.delete('r-8'); // fetched meanwhile by a delivery that crashed before the item
    await run([{ messageId: 'm-8', body: JSON.stringify(redriven) }]);
    expect(service.pollCalls).toBe(0);
    expect(store.items.get('r-8')).toMatchObject({ product: 'RTW_PREMIUM', completedKnown: true });
  });

  it('says completedKnown false and counts the result when its polling record is already gone', async () => {
    service.add('r-5', 'IDV_STANDARD', '2026-08-10T09:00:00Z');
    service.records.delete('r-5');
    await run([webhook('r-5')]);
    expect(store.items.get('r-5')).toMatchObject({ completedKnown: false });
    expect(store.items.get('r-5')?.product).toBeUndefined();
    expect(publisher.stored[0]?.completed).toBeUndefined();
    expect(metrics.counts.get(METRICS.names.resultsWithoutPollRecord)).toBe(1);
  });

  it('goes on without the metadata, counted, when the poll call fails', async () => {
    service.add('r-6', 'IDV_STANDARD', '2026-08-10T09:00:00Z');
    service.poll = async () => {
      throw new ServiceError('service answered 503', { status: 503 });
    };
    const answer = await run([webhook('r-6')]);
    expect(answer.batchItemFailures).toEqual([]);
    expect(store.items.get('r-6')).toMatchObject({ status: 'STORED', completedKnown: false });
    expect(metrics.counts.get(METRICS.names.pollMetadataFailures)).toBe(1);
    expect(metrics.counts.get(METRICS.names.resultsWithoutPollRecord)).toBe(1);
  });
});
