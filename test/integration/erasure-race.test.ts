/**
 * Erasure wins the race with a fetch in flight (docs/erasure.md, "How it runs"), against the emulators
 * with the SDK: fetch-result's real core and `ResultStore`, the real erasure (`eraseResult`), the local
 * EventBridge with its event log and the local analytics projection.
 *
 * A result body is held half way (its first image already stored), the result is erased during the
 * pause, then the body is let go: nothing of the result remains (objects, items, analytics row), the
 * erasure record says ERASED, and the event log has no Stored after the Erased. An erasure that starts
 * after the fetch's last look waits for it: the fetch's Stored comes first, the erasure removes what it
 * stored. A delivery whose claim has expired is not waited for: it removes its own objects.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { attachAnalyticsSink } from '../../local/analytics-sink';
import { eraseLocalProjectionResult, findLocalProjectionResult } from '../../local/analytics-store';
import { DEFAULT_COPY_BOUNDS } from '../../shared/erasure/bounds';
import { type ErasureDeps, eraseResult } from '../../shared/erasure/erase-result';
import { publishResultErased } from '../../shared/events/erased-event';
import { DETAIL_TYPES } from '../../shared/events/names';
import { EventBridgePublisher } from '../../shared/events/publisher';
import {
  type FetchResultDeps,
  processQueueRecord,
  type RecordBudget,
  type ResultSource,
  type ResultStorePort,
} from '../../shared/pipeline/fetch-result';
import { ErasureRecords } from '../../shared/store/erasure-record';
import { clientConfig } from '../support/local-aws';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { memoryLogger } from '../support/pipeline-fakes';

const PLANTED = 'Plantedname-Racova';

function jpeg(marker: string): string {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(marker)]).toString('base64');
}

/** A result body whose first image ends before `split`, where the source holds it. */
function body(transactionId: string): { bytes: Buffer; split: number } {
  const text = JSON.stringify({
    transactionId,
    customerReference: `ref-${transactionId}`,
    result: 'APPROVED',
    images: [
      { data: jpeg(`PIXEL-${PLANTED}-front`), documentType: 'PASSPORT', pageType: 'FRONT' },
      { data: jpeg(`PIXEL-${PLANTED}-back`), documentType: 'PASSPORT', pageType: 'BACK' },
    ],
    identity: { result: 'APPROVED', data: { name: { fullname: PLANTED } } },
  });
  const bytes = Buffer.from(text);
  return { bytes, split: text.indexOf('"documentType":"PASSPORT","pageType":"FRONT"') + 10 };
}

/** A source that sends the first part of the body, then waits until `release` is called. */
function heldSource(transactionId: string) {
  const { bytes, split } = body(transactionId);
  let release!: () => void;
  let reachedPause!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const paused = new Promise<void>((resolve) => (reachedPause = resolve));
  const source: ResultSource = {
    async getResultStream() {
      return (async function* () {
        yield bytes.subarray(0, split);
        reachedPause();
        await released;
        yield bytes.subarray(split);
      })();
    },
  };
  return { source, paused, release };
}

describe('erasure racing a fetch in flight (SDK against the emulators)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-erase-race-'));
  let local: LocalStore;
  let events: EventBridgeClient;
  let detach: () => void;

  beforeAll(async () => {
    local = await startLocalStore('idv-race', { dataDir });
    events = new EventBridgeClient(clientConfig(local.aws, 'eventBridge'));
    detach = attachAnalyticsSink(local.aws.events, dataDir, () => undefined);
  }, 60_000);

  afterAll(async () => {
    detach?.();
    events?.destroy();
    await local?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function fetchDeps(source: ResultSource, store: ResultStorePort = local.store): FetchResultDeps {
    return {
      source,
      store,
      publications: local.publications,
      publisher: new EventBridgePublisher(events, local.resources.eventBusName),
      environment: 'staging',
      retentionDays: 30,
      logger: memoryLogger().logger,
    };
  }

  /** The budget of a record in a Lambda invocation with a minute left: its deadline bounds the claim. */
  function inInvocation(): RecordBudget {
    return { invocationDeadlineMs: Date.now() + 60_000 };
  }

  function erasureDeps(): ErasureDeps {
    return {
      dynamo: local.dynamo,
      s3: local.s3,
      tableName: local.resources.tableName,
      bucketName: local.resources.bucketName,
      dialect: 'local',
      markersTableName: local.resources.pollMarkersTableName,
      reaches: {
        projection: {
          find: (resultId) => findLocalProjectionResult(dataDir, resultId),
          remove: (resultId) => eraseLocalProjectionResult(dataDir, resultId),
        },
      },
      receipt: { local: true, analytics: false, bounds: DEFAULT_COPY_BOUNDS },
      events: { publish: (detail) => publishResultErased(events, local.resources.eventBusName, detail) },
      environment: 'staging',
      fence: { pollMs: 20 },
    };
  }

  const audit = { principal: 'race-test', selectedBy: 'result-id' as const };

  /** What is left of `resultId`: object keys, table keys and the event log's detail-types, in order. */
  async function leftOf(resultId: string) {
    const keys = (
      (await local.s3.send(new ListObjectsV2Command({ Bucket: local.resources.bucketName }))).Contents ?? []
    )
      .map((object) => object.Key!)
      .filter((key) => key.includes(resultId));
    const items = (
      (await local.dynamo.send(new ScanCommand({ TableName: local.resources.tableName }))).Items ?? []
    ).filter((item) => String(item['resultId']).startsWith(resultId));
    const eventTypes = readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes(`"${resultId}"`))
      .map((line) => JSON.parse(line)['detail-type'] as string);
    return { keys, items, eventTypes, rows: await findLocalProjectionResult(dataDir, resultId) };
  }

  it('an erasure during a paused body: the fetch stores nothing, announces nothing, and the record says ERASED', async () => {
    // Prepare: the body held after its first image.
    const resultId = 'res-race-paused';
    const held = heldSource('tx-race-paused');
    const fetching = processQueueRecord(
      JSON.stringify({ resultId, source: 'poll' }),
      fetchDeps(held.source),
      inInvocation(),
    );
    await held.paused;
    const records = new ErasureRecords(local.dynamo, local.resources.tableName);

    // Act: erase while the body is paused; let the body go once the erasure record is written.
    const erasing = eraseResult(erasureDeps(), resultId, audit);
    await vi.waitFor(async () => expect((await records.get(resultId))?.state).toBeDefined(), {
      timeout: 10_000,
      interval: 20,
    });
    held.release();
    const [outcome, record] = await Promise.all([fetching, erasing]);

    // Assess
    expect(outcome).toBe('erased');
    expect(record.state).toBe('ERASED');
    expect((await records.get(resultId))?.state).toBe('ERASED');
    const left = await leftOf(resultId);
    expect(left.keys).toEqual([]);
    expect(left.rows).toEqual([]);
    // What stays: the erasure record and the fence of the publication record, neither with personal data.
    expect(left.items.map((item) => item['resultId']).sort()).toEqual([
      `${resultId}#erasure`,
      `${resultId}#publication`,
    ]);
    expect(JSON.stringify(left.items)).not.toMatch(/Racova|tx-race|ref-tx/);
    expect(left.eventTypes).toEqual([DETAIL_TYPES.resultErased]);
    // A redelivery of the message after the erasure brings nothing back.
    const again = held.source;
    expect(
      await processQueueRecord(
        JSON.stringify({ resultId, source: 'redrive' }),
        fetchDeps(again),
        inInvocation(),
      ),
    ).toBe('erased');
    expect((await leftOf(resultId)).keys).toEqual([]);
  }, 60_000);

  it('an erasure that starts during the item put waits for the fetch: Stored first, then everything erased', async () => {
    // Prepare: the item put is held until the erasure has written its record (after the fetch's last look).
    const resultId = 'res-race-put';
    const { bytes } = body('tx-race-put');
    const source: ResultSource = {
      getResultStream: async () =>
        (async function* () {
          yield bytes;
        })(),
    };
    let putReached!: () => void;
    let releasePut!: () => void;
    const atPut = new Promise<void>((resolve) => (putReached = resolve));
    const putReleased = new Promise<void>((resolve) => (releasePut = resolve));
    const real = local.store;
    const store: ResultStorePort = {
      bucket: real.bucket,
      table: real.table,
      readState: (id, options) => real.readState(id, options),
      storeResult: (id, b) => real.storeResult(id, b),
      isErased: (id) => real.isErased(id),
      discardStored: (stored) => real.discardStored(stored),
      putStoredItem: async (item) => {
        putReached();
        await putReleased;
        return real.putStoredItem(item);
      },
      putUnavailableItem: (item) => real.putUnavailableItem(item),
      putVersionItem: (item) => real.putVersionItem(item),
      latestOfTransaction: (tx, id) => real.latestOfTransaction(tx, id),
    };
    const records = new ErasureRecords(local.dynamo, local.resources.tableName);
    const fetching = processQueueRecord(
      JSON.stringify({ resultId, source: 'poll' }),
      fetchDeps(source, store),
      inInvocation(),
    );
    await atPut;

    // Act
    const erasing = eraseResult(erasureDeps(), resultId, audit);
    await vi.waitFor(async () => expect(await records.get(resultId)).toBeDefined(), {
      timeout: 10_000,
      interval: 20,
    });
    releasePut();
    const [outcome, record] = await Promise.all([fetching, erasing]);

    // Assess: the fetch finished under its claim; the erasure waited for it, then removed it all.
    expect(outcome).toBe('stored');
    expect(record.state).toBe('ERASED');
    const left = await leftOf(resultId);
    expect(left.keys).toEqual([]);
    expect(left.rows).toEqual([]);
    expect(left.items.map((item) => item['resultId']).sort()).toEqual([
      `${resultId}#erasure`,
      `${resultId}#publication`,
    ]);
    expect(left.eventTypes).toEqual([DETAIL_TYPES.resultStored, DETAIL_TYPES.resultErased]);
  }, 60_000);

  it('a delivery whose claim expired mid-fetch is not waited for: it deletes its own objects on its last look', async () => {
    // Prepare: two minutes pass while the body is held (both clocks jump), so the delivery's claim (a
    // minute's invocation and the margin) has expired by the time the erasure runs, as after an
    // invocation ran past its deadline.
    const resultId = 'res-race-expired';
    const held = heldSource('tx-race-expired');
    const jump = { ms: 0 };
    const fetching = processQueueRecord(
      JSON.stringify({ resultId, source: 'poll' }),
      {
        ...fetchDeps(held.source),
        now: () => new Date(Date.now() + jump.ms),
      },
      inInvocation(),
    );
    await held.paused;
    jump.ms = 120_000;

    // Act: the erasure fences at once and ends while the body is still held; then the body goes on.
    const erasure = erasureDeps();
    const record = await eraseResult(
      { ...erasure, fence: { ...erasure.fence, now: () => Date.now() + jump.ms } },
      resultId,
      audit,
    );
    held.release();
    const outcome = await fetching;

    // Assess: what the delivery wrote after the erasure's purge is gone too, and nothing was announced.
    expect(record.state).toBe('ERASED');
    expect(outcome).toBe('erased');
    const left = await leftOf(resultId);
    expect(left.keys).toEqual([]);
    expect(left.items.map((item) => item['resultId']).sort()).toEqual([
      `${resultId}#erasure`,
      `${resultId}#publication`,
    ]);
    expect(left.eventTypes).toEqual([DETAIL_TYPES.resultErased]);
  }, 60_000);
});
