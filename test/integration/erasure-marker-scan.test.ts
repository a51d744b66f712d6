/**
 * The planted-marker scan (docs/erasure.md, "How it is proven"): one result with a unique marker in every
 * field — the service's polling record (customer reference, user id), the result's names, numbers and
 * reference, the image's bytes and the PDF's — goes the whole way on a local data directory: polled
 * (enqueue marker, queue message), dead-lettered, redriven from the DLQ, stored by the real results batch
 * (item, kept polling record, publication record, objects, event, projection row), its events replayed,
 * then erased with `idv results erase --local`. Before the erasure every key the result left in the table,
 * the markers table and the bucket is one the erasure module registers (shared/erasure/traces.ts); after
 * it (emulators closed, so dynalite's files are compacted) no file of the data directory holds any marker
 * raw, in base64 or in hex. A second result stays whole: the scan's positive control.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markReplay, selectRecordedEvents } from '../../bin/cli/events-replay';
import { attachAnalyticsSink } from '../../local/analytics-sink';
import { localErasureReaches } from '../../local/erase-local-files';
import type { PollResponse } from '../../shared/api/schemas';
import { DEFAULT_COPY_BOUNDS } from '../../shared/erasure/bounds';
import { type ErasureDeps, eraseResult } from '../../shared/erasure/erase-result';
import { queuePurgeReach } from '../../shared/erasure/queue-purge';
import { itemTraceKind, objectTraceKind, type TraceReach } from '../../shared/erasure/traces';
import { processResultsBatch, type ResultsBatchDeps } from '../../shared/pipeline/results-batch';
import { redriveDlq } from '../../shared/queries/dlq';
import { ErasureRecords } from '../../shared/store/erasure-record';
import { NO_TRACER } from '../../shared/tracing';
import { runIdvInProcess } from '../support/cli';
import { clientConfig } from '../support/local-aws';
import { localBatchDeps, pollIntoLocalQueue, startLocalStore } from '../support/local-store';
import { FakeSource } from '../support/pipeline-fakes';
import { MARKED_FIELDS, markedPair, markersIn } from '../support/planted-markers';

const ERASED = 'res-scan-1';
const KEPT = 'res-scan-2';
const { of: markerFn, pollRecord, result } = markedPair(ERASED, KEPT);

/** Every file under `dir`, with its path relative to `dir`. */
function files(dir: string, base = dir): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, base);
    return [{ path: path.slice(base.length + 1), bytes: readFileSync(path) }];
  });
}

/** `file: field (form)` for each marker of `resultId` found in a file of `dir` (or its name). */
function findings(dir: string, resultId: string): string[] {
  return markersIn(
    files(dir).map((f) => ({ where: f.path, bytes: f.bytes })),
    markerFn(resultId),
  );
}

/** The local stack on `dataDir` with clients and the results batch's dependencies. */
async function openRun(dataDir: string) {
  const local = await startLocalStore('idv-local', { dataDir, resources: { maxReceiveCount: 1 } });
  const { aws } = local;
  aws.restoreQueues();
  const sqs = new SQSClient(clientConfig(aws, 'sqs'));
  const events = new EventBridgeClient(clientConfig(aws, 'eventBridge'));
  const detach = attachAnalyticsSink(aws.events, dataDir, () => undefined);
  const service = { poll: async () => ({ results: [pollRecord(ERASED), pollRecord(KEPT)] }) as PollResponse };
  const source = new FakeSource(
    new Map<string, unknown>([
      [ERASED, result(ERASED)],
      [KEPT, result(KEPT)],
    ]),
  );
  const deps: ResultsBatchDeps = { ...localBatchDeps(local, events, source), pollSource: service };
  const receive = async (queueUrl: string) =>
    (
      await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      )
    ).Messages ?? [];
  return {
    local,
    sqs,
    events,
    deps,
    service,
    receive,
    async close() {
      detach();
      for (const client of [events, sqs]) client.destroy();
      await local.close();
    },
  };
}

describe('planted-marker scan: stored, dead-lettered, redriven, replayed, erased', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-marker-scan-'));
  const traceKinds: string[] = [];
  const unregistered: string[] = [];

  beforeAll(async () => {
    const pipeline = await openRun(dataDir);
    const { local, sqs, receive } = pipeline;
    const { resources, dynamo, s3 } = local;
    try {
      // The poll enqueues both results (enqueue markers, messages carrying the polling records).
      await pollIntoLocalQueue(local, sqs, pipeline.service, 30);
      // A failed attempt (received, never deleted), then the DLQ (maxReceiveCount 1) …
      const first = await receive(resources.queueUrl);
      expect(first).toHaveLength(2);
      for (const message of first)
        await sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: resources.queueUrl,
            ReceiptHandle: message.ReceiptHandle!,
            VisibilityTimeout: 0,
          }),
        );
      expect(await receive(resources.queueUrl)).toEqual([]);
      // … and the redrive, which puts them back; a webhook hint comes too (its record is kept).
      const redriven = await redriveDlq({ sqs, dlqUrl: resources.dlqUrl, queueUrl: resources.queueUrl });
      expect(redriven.moved).toBe(2);
      const batch = [
        ...(await receive(resources.queueUrl)).map((m) => ({ messageId: m.MessageId!, body: m.Body! })),
        { messageId: 'hint-1', body: JSON.stringify({ resultId: ERASED, source: 'webhook' }) },
      ];
      const answer = await processResultsBatch(batch, {
        deps: pipeline.deps,
        tracer: NO_TRACER,
        metrics: { addMetric: () => undefined } as never,
      });
      expect(answer.batchItemFailures).toEqual([]);
      for (const message of await receive(resources.queueUrl))
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: resources.queueUrl, ReceiptHandle: message.ReceiptHandle! }),
        );
      // Every key of the erased result in the tables and the bucket, by its registered kind.
      const scan = async (table: string) =>
        (await dynamo.send(new ScanCommand({ TableName: table }))).Items!.map((i) => String(i['resultId']));
      const objects = (
        await s3.send(new ListObjectsV2Command({ Bucket: resources.bucketName }))
      ).Contents!.map((o) => o.Key!);
      for (const [table, keys] of [
        ['results', await scan(resources.tableName)],
        ['markers', await scan(resources.pollMarkersTableName)],
      ] as const) {
        for (const key of keys.filter((k) => k.includes(ERASED))) {
          const kind = itemTraceKind(table, key, ERASED);
          if (kind) traceKinds.push(kind);
          else unregistered.push(`${table}: ${key}`);
        }
      }
      for (const key of objects.filter((k) => k.includes(ERASED))) {
        const kind = objectTraceKind(key, ERASED);
        if (kind) traceKinds.push(kind);
        else unregistered.push(`bucket: ${key}`);
      }
      // A replay of everything the local bus recorded (as `idv events replay --local` sends it).
      const { events } = selectRecordedEvents(readFileSync(join(dataDir, 'events.jsonl'), 'utf8'), {
        since: new Date(0),
        until: new Date(Date.now() + 60_000),
      });
      for (const event of events) {
        await pipeline.events.send(
          new PutEventsCommand({
            Entries: [
              {
                EventBusName: resources.eventBusName,
                Source: event.source,
                DetailType: event['detail-type'],
                Detail: JSON.stringify(markReplay(event.detail, 'scan-replay')),
              },
            ],
          }),
        );
      }
    } finally {
      await pipeline.close();
    }
  }, 120_000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('leaves only keys the erasure module registers (a new per-result record fails here)', () => {
    // Assess
    expect(unregistered).toEqual([]);
    expect(new Set(traceKinds)).toEqual(
      new Set(['result-item', 'publication-record', 'poll-record', 'enqueue-marker', 'result-objects']),
    );
  });

  it('finds every marker on disk before the erasure (the scan sees each form)', () => {
    // Act
    const before = findings(dataDir, ERASED);

    // Assess: each field somewhere, raw or encoded.
    for (const field of MARKED_FIELDS)
      expect(
        before.some((f) => f.includes(`: ${field} (`)),
        field,
      ).toBe(true);
  });

  it('an erase killed at each step stays ERASING, names what is left, and never says ERASED with data left', async () => {
    // Prepare: the erasure's own deps on the local stack, as `idv results erase --local` builds them.
    const store = await startLocalStore('idv-local', { dataDir });
    const sqs = new SQSClient(clientConfig(store.aws, 'sqs'));
    const { resources } = store;
    const published: unknown[] = [];
    /** The erasure's deps, with every call `dies` picks failing as a kill at that point would end it. */
    const depsKilledAt = (
      dies: (command: object) => boolean,
      reach?: 'projection' | 'queues' | 'journals',
    ) => {
      const killable = <T extends { send: (...args: never[]) => unknown }>(client: T): T =>
        new Proxy(client, {
          get: (target, name, receiver) =>
            name === 'send'
              ? (command: object, ...rest: unknown[]) =>
                  dies(command)
                    ? Promise.reject(new Error('killed'))
                    : (target.send as (...args: unknown[]) => unknown)(command, ...rest)
              : Reflect.get(target, name, receiver),
        });
      const killed: TraceReach = {
        find: async () => [],
        remove: async () => {
          throw new Error('killed');
        },
      };
      const queues = queuePurgeReach(
        sqs,
        [
          { name: 'results', url: resources.queueUrl },
          { name: 'dlq', url: resources.dlqUrl },
        ],
        [],
      );
      const reaches = { ...localErasureReaches(dataDir), queues };
      return {
        dynamo: killable(store.dynamo),
        s3: killable(store.s3),
        tableName: resources.tableName,
        bucketName: resources.bucketName,
        dialect: 'local' as const,
        markersTableName: resources.pollMarkersTableName,
        reaches: reach ? { ...reaches, [reach]: killed } : reaches,
        receipt: { local: true, analytics: false, bounds: DEFAULT_COPY_BOUNDS },
        events: { publish: async (detail: unknown) => void published.push(detail) },
      } satisfies ErasureDeps;
    };
    const steps = [
      { at: 'objects', deps: depsKilledAt((c) => c instanceof ListObjectsV2Command) },
      { at: 'analytics-row', deps: depsKilledAt(() => false, 'projection') },
      { at: 'queue-messages', deps: depsKilledAt(() => false, 'queues') },
      { at: 'local-journals', deps: depsKilledAt(() => false, 'journals') },
      { at: 'items', deps: depsKilledAt((c) => c instanceof DeleteCommand) },
    ];
    const order = [
      'result-objects',
      'staged-uploads',
      'analytics-row',
      'queue-messages',
      'local-journals',
      'result-item',
      'poll-record',
      'enqueue-marker',
    ];
    const lefts: (readonly string[] | undefined)[] = [];
    const states: string[] = [];
    const dataLeft: number[] = [];
    try {
      // Act: each run dies at the next step; the one before finished the earlier ones (again).
      for (const step of steps) {
        await expect(
          eraseResult(step.deps, ERASED, { principal: 'kill-test', selectedBy: 'result-id' }),
        ).rejects.toThrow('killed');
        const record = await new ErasureRecords(store.dynamo, resources.tableName).get(ERASED);
        states.push(record!.state);
        lefts.push(record!.left);
        dataLeft.push(findings(dataDir, ERASED).length);
      }
    } finally {
      sqs.destroy();
      await store.close();
    }

    // Assess: never ERASED, `left` names the step it died at and everything after, no event yet.
    expect(states).toEqual(steps.map(() => 'ERASING'));
    expect(lefts).toEqual([order, order.slice(2), order.slice(3), order.slice(4), order.slice(5)]);
    expect(published).toEqual([]);
    for (const [i, count] of dataLeft.entries()) expect(count, steps[i]!.at).toBeGreaterThan(0);
  }, 120_000);

  it('after idv results erase --local no file holds a marker of the erased result; the other is whole', async () => {
    // Act
    const erased = await runIdvInProcess([
      'results',
      'erase',
      '--result-id',
      ERASED,
      '--local',
      '--data-dir',
      dataDir,
      '--principal',
      'dpo-test',
    ]);

    // Assess
    expect(erased.code, erased.err).toBe(0);
    expect(JSON.parse(erased.out).erased[0]).toMatchObject({
      state: 'ERASED',
      receipt: { localFiles: { erased: true } },
    });
    // The queue journal included: the erasure drops the result's messages (queue and DLQ) from it.
    expect(findings(dataDir, ERASED)).toEqual([]);
    // Positive control: the kept result's markers are all still found.
    const kept = findings(dataDir, KEPT);
    for (const field of MARKED_FIELDS)
      expect(
        kept.some((f) => f.includes(`: ${field} (`)),
        field,
      ).toBe(true);
  }, 120_000);
});
