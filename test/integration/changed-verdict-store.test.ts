/**
 * Changed verdicts against the emulators with the SDK (docs/changed-verdicts.md): the real
 * fetch-result core, `ResultStore` and its publication records on the local DynamoDB and S3, the local
 * EventBridge with its event log, and the real erasure. Two deliveries of one later version store it once
 * and announce it once; each version's objects have their own prefix; a new resultId of the transaction
 * follows it through the byTransactionId index; an erasure removes every version.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DeleteCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COPY_BOUNDS } from '../../shared/erasure/bounds';
import { eraseResult } from '../../shared/erasure/erase-result';
import { fencePublication } from '../../shared/erasure/fence';
import { publishResultErased } from '../../shared/events/erased-event';
import { DETAIL_TYPES } from '../../shared/events/names';
import { EventBridgePublisher } from '../../shared/events/publisher';
import {
  type FetchResultDeps,
  processQueueRecord,
  type RecordBudget,
  type ResultSource,
} from '../../shared/pipeline/fetch-result';
import { ErasureRecords } from '../../shared/store/erasure-record';
import type { PublicationWrites } from '../../shared/store/publication';
import { clientConfig } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { chunksOf, eventValidators, memoryLogger } from '../support/pipeline-fakes';

const PLANTED = 'Plantedname-Versova';

function jpeg(marker: string): string {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(marker)]).toString('base64');
}

function result(transactionId: string, verdict: 'APPROVED' | 'DISAPPROVED') {
  return {
    transactionId,
    result: verdict,
    ...(verdict === 'DISAPPROVED' && { messages: ['FRAUD_SUSPECTED'] }),
    images: [{ data: jpeg(`PIXEL-${PLANTED}-${verdict}`), documentType: 'PASSPORT', pageType: 'FRONT' }],
    identity: { result: verdict, data: { name: { fullname: PLANTED } } },
  };
}

/** The service: answers with the body set for a resultId now; counts requests. */
class Service implements ResultSource {
  readonly bodies = new Map<string, unknown>();
  calls = 0;
  async getResultStream(resultId: string): Promise<AsyncIterable<Uint8Array>> {
    this.calls++;
    return chunksOf(Buffer.from(JSON.stringify(this.bodies.get(resultId))));
  }
}

describe('changed verdicts (SDK against the emulators)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-versions-'));
  let local: LocalStore;
  let events: EventBridgeClient;

  beforeAll(async () => {
    local = await startLocalStore('idv-versions', { dataDir });
    events = new EventBridgeClient(clientConfig(local.aws, 'eventBridge'));
  }, 60_000);

  afterAll(async () => {
    events?.destroy();
    await local?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function deps(source: ResultSource): FetchResultDeps {
    return {
      source,
      store: local.store,
      publications: local.publications,
      publisher: new EventBridgePublisher(events, local.resources.eventBusName),
      environment: 'staging',
      retentionDays: 30,
      logger: memoryLogger().logger,
    };
  }

  /** `budget` in a Lambda invocation with a minute left: its deadline bounds the claim. */
  function inInvocation(budget: RecordBudget = {}): RecordBudget {
    return { invocationDeadlineMs: Date.now() + 60_000, ...budget };
  }

  const poll = (resultId: string, completed: string, transactionId?: string) =>
    JSON.stringify({ resultId, source: 'poll', completed, ...(transactionId && { transactionId }) });

  /** The event log's events naming `resultId`. */
  function eventsOf(resultId: string): { 'detail-type': string; detail: Record<string, unknown> }[] {
    return readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes(`"${resultId}"`))
      .map((line) => JSON.parse(line));
  }

  async function keysOf(resultId: string): Promise<string[]> {
    const listed = await local.s3.send(new ListObjectsV2Command({ Bucket: local.resources.bucketName }));
    return (listed.Contents ?? [])
      .map((object) => object.Key!)
      .filter((key) => key.startsWith(`results/${resultId}/`))
      .sort();
  }

  it('two deliveries of one later version: stored once under its own prefix, announced once, then erased with the rest', async () => {
    // Prepare: version 1 stored and announced.
    const resultId = 'res-versions-b';
    const service = new Service();
    service.bodies.set(resultId, result('tx-versions-b', 'APPROVED'));
    expect(
      await processQueueRecord(poll(resultId, '2026-08-10T12:00:00Z'), deps(service), inInvocation()),
    ).toBe('stored');
    service.bodies.set(resultId, result('tx-versions-b', 'DISAPPROVED'));
    service.calls = 0;

    // Act: the poll message and the webhook message of the re-announcement at once (the webhook message
    // got the same completed from the batch's polling record), then a redelivery of whichever was refused.
    const later = poll(resultId, '2026-08-12T09:30:00Z');
    const outcomes = await Promise.allSettled([
      processQueueRecord(later, deps(service), inInvocation({ claimToken: 'm-poll' })),
      processQueueRecord(later, deps(service), inInvocation({ claimToken: 'm-webhook' })),
    ]);
    const settled = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'redelivered'));
    const again = await processQueueRecord(later, deps(service), inInvocation({ claimToken: 'm-again' }));
    const duplicate = await processQueueRecord(
      poll(resultId, '2026-08-12T09:30:00Z'),
      deps(service),
      inInvocation(),
    );

    // Assess: one version 2, with the history; every version's objects under its own prefix.
    expect(settled).toContain('changed');
    expect(['duplicate', 'claimed-elsewhere']).toContain(again);
    expect(duplicate).toBe('duplicate');
    const item = await local.store.getItem(resultId);
    expect(item).toMatchObject({
      version: 2,
      result: 'DISAPPROVED',
      completed: '2026-08-12T09:30:00.000Z',
      eventPublishedAt: expect.any(String),
    });
    expect(item?.versions?.map((v) => [v.version, v.result, v.completed])).toEqual([
      [1, 'APPROVED', '2026-08-10T12:00:00.000Z'],
      [2, 'DISAPPROVED', '2026-08-12T09:30:00.000Z'],
    ]);
    expect(await keysOf(resultId)).toEqual([
      `results/${resultId}/images/01-PASSPORT-FRONT.jpg`,
      `results/${resultId}/result.json`,
      `results/${resultId}/versions/2/images/01-PASSPORT-FRONT.jpg`,
      `results/${resultId}/versions/2/result.json`,
    ]);
    const logged = eventsOf(resultId);
    expect(logged.map((e) => e['detail-type'])).toEqual([
      DETAIL_TYPES.resultStored,
      DETAIL_TYPES.resultChanged,
    ]);
    const changed = logged[1]!.detail;
    expect(changed).toMatchObject({ previousResult: 'APPROVED', result: 'DISAPPROVED', version: 2 });
    expect(eventValidators()[DETAIL_TYPES.resultChanged](changed)).toBe(true);

    // Act: erase the result.
    const record = await eraseResult(
      {
        dynamo: local.dynamo,
        s3: local.s3,
        tableName: local.resources.tableName,
        bucketName: local.resources.bucketName,
        dialect: 'local',
        reaches: { projection: { find: async () => [], remove: async () => 0 } },
        receipt: { local: true, analytics: false, bounds: DEFAULT_COPY_BOUNDS },
        events: { publish: (detail) => publishResultErased(events, local.resources.eventBusName, detail) },
        environment: 'staging',
        fence: { pollMs: 20 },
      },
      resultId,
      { principal: 'versions-test', selectedBy: 'result-id' },
    );

    // Assess: every version gone; a later announcement brings nothing back.
    expect(record.state).toBe('ERASED');
    expect(await keysOf(resultId)).toEqual([]);
    const items = (await local.dynamo.send(new ScanCommand({ TableName: local.resources.tableName }))).Items;
    const left = (items ?? []).filter((i) => String(i['resultId']).startsWith(resultId));
    expect(left.map((i) => i['resultId']).sort()).toEqual([`${resultId}#erasure`, `${resultId}#publication`]);
    expect(JSON.stringify(left)).not.toMatch(/Versova|tx-versions/);
    service.bodies.set(resultId, result('tx-versions-b', 'APPROVED'));
    expect(
      await processQueueRecord(poll(resultId, '2026-08-20T00:00:00Z'), deps(service), inInvocation()),
    ).toBe('erased');
    expect(await keysOf(resultId)).toEqual([]);
  }, 60_000);

  it('an erasure that fences while a later version is fetched wins: the version claim is refused, nothing of it kept', async () => {
    // Prepare: version 1 stored; the erasure's record and fence land after fetch-result read the item
    // (as an erasure starting during the fetch), just before the version's claim.
    const resultId = 'res-versions-fenced';
    const service = new Service();
    service.bodies.set(resultId, result('tx-versions-fenced', 'APPROVED'));
    await processQueueRecord(poll(resultId, '2026-08-10T12:00:00Z'), deps(service), inInvocation());
    service.bodies.set(resultId, result('tx-versions-fenced', 'DISAPPROVED'));
    const real = local.publications;
    const records = new ErasureRecords(local.dynamo, local.resources.tableName);
    const racing: PublicationWrites = {
      claim: async (...args) => {
        const at = new Date().toISOString();
        await records.put({
          resultId: `${resultId}#erasure`,
          erasedResultId: resultId,
          state: 'ERASING',
          requestedAt: at,
          principal: 'versions-test',
          selectedBy: 'result-id',
          expiresAt: Math.floor(Date.now() / 1000) + 86_400,
        });
        await fencePublication(local.dynamo, local.resources.tableName, resultId, at, 0);
        return real.claim(...args);
      },
      release: (id, token) => real.release(id, token),
      mark: (...args) => real.mark(...args),
    };

    // Act
    const outcome = await processQueueRecord(
      poll(resultId, '2026-08-12T09:30:00Z'),
      {
        ...deps(service),
        publications: racing,
      },
      inInvocation(),
    );

    // Assess: no version 2 anywhere, no Changed event.
    expect(outcome).toBe('erased');
    expect((await local.store.getItem(resultId))?.version).toBeUndefined();
    expect((await keysOf(resultId)).filter((key) => key.includes('/versions/'))).toEqual([]);
    expect(eventsOf(resultId).map((e) => e['detail-type'])).toEqual([DETAIL_TYPES.resultStored]);
  }, 60_000);

  it('a result stored before publication records existed (announced on its item) takes a later version too', async () => {
    // Prepare: stored, then made as such an item was: eventPublishedAt on the item, no publication record.
    const resultId = 'res-versions-legacy';
    const service = new Service();
    service.bodies.set(resultId, result('tx-versions-legacy', 'APPROVED'));
    await processQueueRecord(poll(resultId, '2026-08-10T12:00:00Z'), deps(service), inInvocation());
    const item = await local.store.getItem(resultId);
    await local.dynamo.send(
      new PutCommand({
        TableName: local.resources.tableName,
        Item: { ...item, eventPublishedAt: item!.eventPublishedAt },
      }),
    );
    await local.dynamo.send(
      new DeleteCommand({
        TableName: local.resources.tableName,
        Key: { resultId: `${resultId}#publication` },
      }),
    );
    service.bodies.set(resultId, result('tx-versions-legacy', 'DISAPPROVED'));

    // Act
    const outcome = await processQueueRecord(
      poll(resultId, '2026-08-12T09:30:00Z'),
      deps(service),
      inInvocation(),
    );
    const again = await processQueueRecord(
      poll(resultId, '2026-08-12T09:30:00Z'),
      deps(service),
      inInvocation(),
    );

    // Assess
    expect([outcome, again]).toEqual(['changed', 'duplicate']);
    expect(await local.store.getItem(resultId)).toMatchObject({ version: 2, result: 'DISAPPROVED' });
    expect(await local.publications.get(resultId)).toMatchObject({ version: 2, status: 'STORED' });
  }, 60_000);

  it('a new resultId of a stored transaction is found through the index and stored as its next version', async () => {
    // Prepare
    const service = new Service();
    service.bodies.set('res-versions-a1', result('tx-versions-a', 'APPROVED'));
    service.bodies.set('res-versions-a2', result('tx-versions-a', 'DISAPPROVED'));
    await processQueueRecord(
      poll('res-versions-a1', '2026-08-10T12:00:00Z', 'tx-versions-a'),
      deps(service),
      inInvocation(),
    );

    // Act
    const outcome = await processQueueRecord(
      poll('res-versions-a2', '2026-08-12T09:30:00Z', 'tx-versions-a'),
      deps(service),
      inInvocation(),
    );

    // Assess
    expect(outcome).toBe('changed');
    const item = await local.store.getItem('res-versions-a2');
    expect(item).toMatchObject({ version: 2, result: 'DISAPPROVED', eventPublishedAt: expect.any(String) });
    expect(item?.versions?.map((v) => [v.resultId, v.result])).toEqual([
      ['res-versions-a1', 'APPROVED'],
      ['res-versions-a2', 'DISAPPROVED'],
    ]);
    expect(eventsOf('res-versions-a2').map((e) => e['detail-type'])).toEqual([
      DETAIL_TYPES.resultStored,
      DETAIL_TYPES.resultChanged,
    ]);
    expect(await local.publications.get('res-versions-a2')).toMatchObject({ version: 2 });
  }, 60_000);
});
