/**
 * Erasure on the local run (docs/erasure.md, "How it runs"): two results stored by the real fetch-result
 * core into the emulators on a data directory (with the analytics projection and the event log), then
 * `idv results erase --transaction-id … --local`. Afterwards a byte scan of every file of the data
 * directory (emulators' files included) finds none of the erased result's planted personal data, the
 * emulators hold no object, item, marker or row of it, the other result is untouched (the scan's positive
 * control), a redelivered message stores nothing, and the erasure record and event are there.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachAnalyticsSink } from '../../local/analytics-sink';
import { DETAIL_TYPES } from '../../shared/events/names';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { type FetchResultDeps, processQueueRecord } from '../../shared/pipeline/fetch-result';
import { eraseLocally, runIdvInProcess } from '../support/cli';
import { clientConfig } from '../support/local-aws';
import { startLocalStore } from '../support/local-store';
import { eventValidators, FakeSource, memoryLogger } from '../support/pipeline-fakes';

const ERASED = 'res-erase-1';
const KEPT = 'res-keep-1';
/** Personal data planted in the erased result: its name, document number, date of birth and image bytes. */
const PLANTED = ['Plantedname-Erasurova', 'DOCNO-PLANT-93X7', '1961-04-12', 'PIXEL-Erasurova-7731'];
/** The same kinds in the result that stays: the scan must still find these (positive control). */
const CONTROL = ['Controlname-Keepova', 'PIXEL-Keepova-5512'];

function jpeg(marker: string): string {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(marker)]).toString('base64');
}

function result(
  transactionId: string,
  name: string,
  pixel: string,
  documentNumber: string,
  dateOfBirth: string,
) {
  return {
    transactionId,
    customerReference: `ref-${transactionId}`,
    result: 'APPROVED',
    images: [{ data: jpeg(pixel), documentType: 'PASSPORT', pageType: 'FRONT' }],
    identity: {
      result: 'APPROVED',
      data: { name: { fullname: name }, documentNumber, dateOfBirth },
    },
  };
}

/** Every file under `dir` with its bytes. */
function files(dir: string): { path: string; bytes: Buffer }[] {
  const found: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...files(path));
    else found.push({ path, bytes: readFileSync(path) });
  }
  return found;
}

function filesHolding(dir: string, needle: string): string[] {
  return files(dir)
    .filter((f) => f.path.includes(needle) || f.bytes.includes(Buffer.from(needle)))
    .map((f) => f.path.slice(dir.length));
}

const cli = runIdvInProcess;

/** Starts the emulators on `dataDir` with clients, a store and fetch-result's dependencies. */
async function openRun(dataDir: string, source: FakeSource) {
  // The local run's default prefix, which `idv … --local` reads.
  const local = await startLocalStore('idv-local', { dataDir });
  const { aws, resources, s3, dynamo, store, publications } = local;
  aws.restoreQueues();
  const sqs = new SQSClient(clientConfig(aws, 'sqs'));
  const events = new EventBridgeClient(clientConfig(aws, 'eventBridge'));
  const detach = attachAnalyticsSink(aws.events, dataDir, () => undefined);
  const deps: FetchResultDeps = {
    source,
    store,
    publications,
    publisher: new EventBridgePublisher(events, resources.eventBusName),
    environment: 'staging',
    retentionDays: 30,
    logger: memoryLogger().logger,
  };
  return {
    aws,
    resources,
    s3,
    dynamo,
    sqs,
    deps,
    async close() {
      detach();
      for (const client of [events, sqs]) client.destroy();
      await local.close();
    },
  };
}

describe('idv results erase --local', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-erase-'));
  const source = new FakeSource(
    new Map<string, unknown>([
      [ERASED, result('tx-erase-1', PLANTED[0]!, PLANTED[3]!, PLANTED[1]!, PLANTED[2]!)],
      [KEPT, result('tx-keep-1', CONTROL[0]!, CONTROL[1]!, 'DOCNO-KEEP-1', '1977-11-30')],
    ]),
  );

  beforeAll(async () => {
    const run = await openRun(dataDir, source);
    try {
      for (const resultId of [ERASED, KEPT]) {
        const outcome = await processQueueRecord(JSON.stringify({ resultId, source: 'poll' }), run.deps);
        expect(outcome).toBe('stored');
      }
      // What a crash mid-upload and a poll leave: a staged blob and an enqueue marker.
      await run.s3.send(
        new PutObjectCommand({
          Bucket: run.resources.bucketName,
          Key: `staging/${ERASED}/images-01`,
          Body: `staged ${PLANTED[3]}`,
        }),
      );
      await run.dynamo.send(
        new PutCommand({
          TableName: run.resources.pollMarkersTableName,
          Item: { resultId: ERASED, enqueuedAt: Date.now(), expiresAt: 1 },
        }),
      );
    } finally {
      await run.close();
    }
    // Before: the planted data is on disk (the scan sees it).
    for (const needle of PLANTED) expect(filesHolding(dataDir, needle), needle).not.toEqual([]);
  }, 120_000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a dry run lists the objects, items and row, and removes nothing', async () => {
    // Act
    const run = await cli([
      'results',
      'erase',
      '--transaction-id',
      'tx-erase-1',
      '--dry-run',
      '--local',
      '--data-dir',
      dataDir,
    ]);

    // Assess
    expect(run.code, run.err).toBe(0);
    const answer = JSON.parse(run.out);
    expect(answer.results).toHaveLength(1);
    expect(answer.results[0]).toMatchObject({
      resultId: ERASED,
      item: { status: 'STORED', transactionId: 'tx-erase-1' },
      publicationRecord: true,
      enqueueMarker: true,
    });
    expect(answer.results[0].objects.keys).toEqual([
      `results/${ERASED}/images/01-PASSPORT-FRONT.jpg`,
      `results/${ERASED}/result.json`,
      `staging/${ERASED}/images-01`,
    ]);
    expect(answer.results[0].analyticsRows).toHaveLength(1);
    expect(run.out).not.toContain(PLANTED[0]);
    for (const needle of PLANTED) expect(filesHolding(dataDir, needle), needle).not.toEqual([]);
  }, 60_000);

  it('erases every trace of the result and nothing of the other one', async () => {
    // Act
    const run = await eraseLocally('tx-erase-1', dataDir);

    // Assess: the answer
    expect(run.code, run.err).toBe(0);
    const answer = JSON.parse(run.out);
    expect(answer.erased).toEqual([
      expect.objectContaining({
        resultId: `${ERASED}#erasure`,
        erasedResultId: ERASED,
        state: 'ERASED',
        principal: 'ops-test',
        selectedBy: 'transaction-id',
        counts: {
          objectVersions: 3,
          deleteMarkers: 0,
          objects: 3,
          uploadsAborted: 0,
          items: 3,
          analyticsRows: 1,
          // The result's lines in events.jsonl (its Stored event) and the trace journal.
          journalLines: expect.any(Number),
          // The queues are walked inside the erasure, before the record says ERASED.
          queueMessages: 0,
        },
        receipt: {
          dataBucket: { erased: true },
          tables: { erased: true },
          analyticsRow: { erased: true },
          localFiles: { erased: true },
        },
      }),
    ]);
    expect(answer.erased[0].counts.journalLines).toBeGreaterThan(0);

    // Assess: no planted personal data in any file of the data directory (emulators' files included) …
    for (const needle of PLANTED) expect(filesHolding(dataDir, needle), needle).toEqual([]);
    // … no file named after the result but the erasure record's line in the event log …
    expect(
      files(dataDir)
        .filter((f) => f.path.includes(ERASED))
        .map((f) => f.path),
    ).toEqual([]);
    const eventLines = readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes(`"${ERASED}"`))
      .map((line) => JSON.parse(line));
    expect(eventLines.map((e) => e['detail-type'])).toEqual([DETAIL_TYPES.resultErased]);
    const validate = eventValidators()[DETAIL_TYPES.resultErased];
    expect(validate(eventLines[0].detail), JSON.stringify(validate.errors)).toBe(true);
    // … and the other result's data is all still there (the scan's positive control).
    for (const needle of CONTROL) expect(filesHolding(dataDir, needle), needle).not.toEqual([]);
    expect(filesHolding(join(dataDir, 'dynamodb'), CONTROL[0]!)).not.toEqual([]);
  }, 60_000);

  it('the emulators hold no object, item, marker or row of it; a redelivered message stores nothing', async () => {
    // Prepare
    const run = await openRun(dataDir, source);
    const callsBefore = source.calls;
    try {
      // Act
      const outcome = await processQueueRecord(
        JSON.stringify({ resultId: ERASED, source: 'redrive' }),
        run.deps,
      );

      // Assess
      expect(outcome).toBe('erased');
      expect(source.calls).toBe(callsBefore);
      const keys = (
        await run.s3.send(new ListObjectsV2Command({ Bucket: run.resources.bucketName }))
      ).Contents!.map((o) => o.Key);
      expect(keys.filter((k) => k?.includes(ERASED))).toEqual([]);
      expect(keys.filter((k) => k?.includes(KEPT))).toHaveLength(2);
      const table = (await run.dynamo.send(new ScanCommand({ TableName: run.resources.tableName }))).Items!;
      const ofErased = table.filter((item) => String(item['resultId']).startsWith(ERASED));
      // The erasure record and the fence that replaced the publication record (erasedAt, a TTL, no data).
      expect(ofErased.map((item) => item['resultId']).sort()).toEqual([
        `${ERASED}#erasure`,
        `${ERASED}#publication`,
      ]);
      expect(JSON.stringify(ofErased)).not.toMatch(/Erasurova|PLANT|tx-erase-1|ref-tx/);
      const markers = (
        await run.dynamo.send(new ScanCommand({ TableName: run.resources.pollMarkersTableName }))
      ).Items!;
      expect(markers.filter((m) => m['resultId'] === ERASED)).toEqual([]);
    } finally {
      await run.close();
    }
    for (const needle of PLANTED) expect(filesHolding(dataDir, needle), needle).toEqual([]);
  }, 60_000);

  it('idv results refetch queues the one message that fetches an erased result again', async () => {
    // Act: the command starts the emulators itself; the queue journal keeps the message for the next run.
    const sent = await cli(['results', 'refetch', ERASED, '--local', '--data-dir', dataDir]);
    const run = await openRun(dataDir, source);
    try {
      const received = await run.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: run.resources.queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      const bodies = (received.Messages ?? []).map((m) => m.Body!);
      const outcomes = [];
      for (const body of bodies) outcomes.push(await processQueueRecord(body, run.deps));

      // Assess
      expect(sent.code, sent.err).toBe(0);
      expect(bodies.map((b) => JSON.parse(b))).toEqual([
        { resultId: ERASED, source: 'redrive', refetch: true },
      ]);
      expect(outcomes).toEqual(['stored']);
    } finally {
      await run.close();
    }
  }, 60_000);
});
