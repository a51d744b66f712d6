/**
 * `idv results reconcile`'s core (shared/queries/reconcile.ts, local/reconcile-sources.ts): every enqueued
 * resultId is accounted for by its end in the store, the DLQ, or a message still queued; the rest are
 * listed. The store is read by keys (item and erasure record), never half: unprocessed keys are read again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  DynamoDBDocumentClient,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localQueueFacts, queueNameOf } from '../../local/reconcile-sources';
import { markerIds, reconcile, storeEnds } from '../../shared/queries/reconcile';
import { runIdvInProcess } from '../support/cli';

const ddbMock = mockClient(DynamoDBDocumentClient);
const sqsMock = mockClient(SQSClient);
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));

beforeEach(() => {
  ddbMock.reset();
  sqsMock.reset();
});

describe('reconcile', () => {
  it('counts each id once, by the store first, then the DLQ, then the queue; lists the rest', () => {
    // Act
    const report = reconcile({
      enqueued: ['s', 'u', 'e', 'd', 'q', 'lost-2', 'lost-1', 's', 'both'],
      ends: new Map([
        ['s', 'STORED'],
        ['u', 'UNAVAILABLE'],
        ['e', 'ERASED'],
        ['both', 'STORED'],
      ]),
      dlq: new Set(['d', 'both', 'not-enqueued']),
      queued: new Set(['q', 'd']),
    });

    // Assess
    expect(report).toEqual({
      enqueued: 8,
      ended: { STORED: 2, UNAVAILABLE: 1, ERASED: 1, DLQ: 1 },
      queued: ['q'],
      unaccounted: ['lost-1', 'lost-2'],
      versions: { stored: 2, changed: 0 },
    });
  });

  it('counts the versions of changed verdicts: every version stored under a STORED id', () => {
    // Act: `same` holds version 3 of its own (two changes announced under it), `next` a new resultId
    // holding version 2 of its transaction (one version under it), `first` one version.
    const report = reconcile({
      enqueued: ['first', 'same', 'next', 'gone'],
      ends: new Map([
        ['first', 'STORED'],
        ['same', 'STORED'],
        ['next', 'STORED'],
        ['gone', 'ERASED'],
      ]),
      dlq: new Set(),
      versions: new Map([
        ['same', { version: 3, stored: 3 }],
        ['next', { version: 2, stored: 1 }],
      ]),
    });

    // Assess
    expect(report.versions).toEqual({ stored: 5, changed: 2 });
    expect(report.ended.STORED).toBe(3);
  });

  it('without a view of the queue, an id in none of the ends is unaccounted', () => {
    // Act / Assess
    expect(reconcile({ enqueued: ['a'], ends: new Map(), dlq: new Set() }).unaccounted).toEqual(['a']);
  });

  it('lists the ids still queued sorted, as it lists the lost ones', () => {
    // Act
    const report = reconcile({
      enqueued: ['q-3', 'lost-b', 'q-1', 'lost-a', 'q-2'],
      ends: new Map(),
      dlq: new Set(),
      queued: new Set(['q-2', 'q-3', 'q-1']),
    });

    // Assess
    expect(report.queued).toEqual(['q-1', 'q-2', 'q-3']);
    expect(report.unaccounted).toEqual(['lost-a', 'lost-b']);
  });

  it('does not count a result that holds its first version as a changed verdict', () => {
    // Act
    const report = reconcile({
      enqueued: ['first', 'changed'],
      ends: new Map([
        ['first', 'STORED'],
        ['changed', 'STORED'],
      ]),
      dlq: new Set(),
      versions: new Map([
        ['first', { version: 1, stored: 1 }],
        ['changed', { version: 2, stored: 2 }],
      ]),
    });

    // Assess
    expect(report.versions).toEqual({ stored: 3, changed: 1 });
  });
});

describe('storeEnds', () => {
  it('gives the versions of each changed verdict it reads', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({
      Responses: {
        t: [
          { resultId: 'one', status: 'STORED' },
          {
            resultId: 'same',
            status: 'STORED',
            version: 2,
            versions: [{ resultId: 'same' }, { resultId: 'same' }],
          },
          {
            resultId: 'next',
            status: 'STORED',
            version: 2,
            versions: [{ resultId: 'old' }, { resultId: 'next' }],
          },
        ],
      },
    });
    const versions = new Map();

    // Act
    await storeEnds(dynamo, 't', ['one', 'same', 'next'], { versions });

    // Assess
    expect(Object.fromEntries(versions)).toEqual({
      same: { version: 2, stored: 2 },
      next: { version: 2, stored: 1 },
    });
  });

  it('reads each id and its erasure record; an erasure record wins over an item; unprocessed keys are read again', async () => {
    // Prepare
    ddbMock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: {
          t: [
            { resultId: 'a', status: 'STORED' },
            { resultId: 'b#erasure' },
            { resultId: 'b', status: 'STORED' },
          ],
        },
        UnprocessedKeys: { t: { Keys: [{ resultId: 'c' }] } },
      })
      .resolves({ Responses: { t: [{ resultId: 'c', status: 'UNAVAILABLE' }] } });

    // Act
    const ends = await storeEnds(dynamo, 't', ['a', 'b', 'c', 'd', 'a']);

    // Assess
    expect(Object.fromEntries(ends)).toEqual({ a: 'STORED', b: 'ERASED', c: 'UNAVAILABLE' });
    const calls = ddbMock.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems?.['t']);
    expect(calls[0]?.Keys).toEqual([
      { resultId: 'a' },
      { resultId: 'a#erasure' },
      { resultId: 'b' },
      { resultId: 'b#erasure' },
      { resultId: 'c' },
      { resultId: 'c#erasure' },
      { resultId: 'd' },
      { resultId: 'd#erasure' },
    ]);
    expect(calls[0]?.ConsistentRead).toBe(true);
    expect(calls[1]?.Keys).toEqual([{ resultId: 'c' }]);
  });

  it('asks for at most 100 keys at once', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({ Responses: { t: [] } });

    // Act
    await storeEnds(
      dynamo,
      't',
      Array.from({ length: 120 }, (_, i) => `id-${i}`),
    );

    // Assess
    const sizes = ddbMock
      .commandCalls(BatchGetCommand)
      .map((c) => c.args[0].input.RequestItems?.['t']?.Keys?.length);
    expect(sizes).toEqual([100, 100, 40]);
  });

  it('fails rather than report ids it could not read', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({ UnprocessedKeys: { t: { Keys: [{ resultId: 'a' }] } } });

    // Act / Assess
    await expect(storeEnds(dynamo, 't', ['a'], { sleep: async () => {} })).rejects.toThrow(
      /left 1 key\(s\) of table t unread/,
    );
  });
  it('reads only the key, status and versions of each item, never the result itself', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({ Responses: { t: [{ resultId: 'a', status: 'STORED' }] } });

    // Act
    await storeEnds(dynamo, 't', ['a']);

    // Assess
    const request = ddbMock.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.['t'];
    expect(request?.ProjectionExpression).toBeDefined();
    expect(Object.values(request?.ExpressionAttributeNames ?? {}).sort()).toEqual([
      'resultId',
      'status',
      'version',
      'versions',
    ]);
  });

  it('waits between its reads again with the sleep it is given', async () => {
    // Prepare
    ddbMock
      .on(BatchGetCommand)
      .resolvesOnce({ UnprocessedKeys: { t: { Keys: [{ resultId: 'a' }] } } })
      .resolves({ Responses: { t: [{ resultId: 'a', status: 'STORED' }] } });
    const waits: number[] = [];

    // Act
    const ends = await storeEnds(dynamo, 't', ['a'], {
      sleep: async (ms) => {
        waits.push(ms);
      },
    });

    // Assess
    expect(Object.fromEntries(ends)).toEqual({ a: 'STORED' });
    expect(waits).toHaveLength(1);
  });

  it('gives no versions for a first version or a malformed one, and reads a versions list with holes', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({
      Responses: {
        t: [
          { resultId: 'first', status: 'STORED', version: 1, versions: [{ resultId: 'first' }] },
          { resultId: 'odd', status: 'STORED', version: '2' },
          {
            resultId: 'same',
            status: 'STORED',
            version: 3,
            versions: [null, { resultId: 'same' }, { resultId: 'same' }, { resultId: 'other' }],
          },
        ],
      },
    });
    const versions = new Map();

    // Act
    const ends = await storeEnds(dynamo, 't', ['first', 'odd', 'same'], { versions });

    // Assess
    expect(Object.fromEntries(ends)).toEqual({ first: 'STORED', odd: 'STORED', same: 'STORED' });
    expect(Object.fromEntries(versions)).toEqual({ same: { version: 3, stored: 2 } });
  });

  it('takes no end from an item in a status that is none: its id is reported lost', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({
      Responses: {
        t: [
          { resultId: 'odd', status: 'PENDING' },
          { resultId: 'ok', status: 'UNAVAILABLE' },
        ],
      },
    });

    // Act
    const ends = await storeEnds(dynamo, 't', ['odd', 'ok']);
    const report = reconcile({ enqueued: ['odd', 'ok'], ends, dlq: new Set() });

    // Assess
    expect([...ends.keys()]).toEqual(['ok']);
    expect(report.unaccounted).toEqual(['odd']);
  });

  it('reads a changed verdict when the caller keeps no versions', async () => {
    // Prepare
    ddbMock.on(BatchGetCommand).resolves({
      Responses: {
        t: [{ resultId: 'same', status: 'STORED', version: 2, versions: [{ resultId: 'same' }] }],
      },
    });

    // Act
    const ends = await storeEnds(dynamo, 't', ['same']);

    // Assess
    expect(Object.fromEntries(ends)).toEqual({ same: 'STORED' });
  });
});

describe('markerIds', () => {
  it('takes the markers of sent messages across pages, not those given back after a failed send', async () => {
    // Prepare
    ddbMock
      .on(ScanCommand)
      .resolvesOnce({
        Items: [
          { resultId: 'a', enqueuedAt: 5 },
          { resultId: 'b', enqueuedAt: 0 },
        ],
        LastEvaluatedKey: { resultId: 'b' },
      })
      .resolves({ Items: [{ resultId: 'c', enqueuedAt: 7 }] });

    // Act
    const all = await markerIds(dynamo, 'm');
    ddbMock.reset();
    ddbMock.on(ScanCommand).resolves({
      Items: [
        { resultId: 'a', enqueuedAt: 5 },
        { resultId: 'c', enqueuedAt: 7 },
      ],
    });
    const bounded = await markerIds(dynamo, 'm', 1);

    // Assess
    expect(all).toEqual({ ids: new Set(['a', 'c']), truncated: false });
    expect(bounded).toEqual({ ids: new Set(['a']), truncated: true });
  });

  it('takes no id from a marker without a string resultId', async () => {
    // Prepare
    ddbMock.on(ScanCommand).resolves({
      Items: [{ enqueuedAt: 5 }, { resultId: 7, enqueuedAt: 5 }, { resultId: 'a', enqueuedAt: 5 }],
    });

    // Act
    const read = await markerIds(dynamo, 'm');

    // Assess
    expect(read).toEqual({ ids: new Set(['a']), truncated: false });
  });
});

describe('the local journals', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'idv-reconcile-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('every message taken or delivery seen is enqueued; what no one consumed is pending in its queue', async () => {
    // Prepare: r-1 consumed; r-2 moved to the DLQ; r-3 waiting; an upload; a torn line; r-4 only traced.
    const msg = (resultId: string) => JSON.stringify({ resultId, source: 'webhook' });
    const lines = [
      { op: 'put', q: 'results', id: 'm1', body: msg('r-1') },
      { op: 'del', q: 'results', id: 'm1' },
      { op: 'put', q: 'results', id: 'm2', body: msg('r-2') },
      { op: 'del', q: 'results', id: 'm2' },
      { op: 'put', q: 'results-dlq', id: 'm2', body: msg('r-2') },
      { op: 'put', q: 'results', id: 'm3', body: msg('r-3') },
      { op: 'put', q: 'results', id: 'm4', body: JSON.stringify({ kind: 'upload', transactionId: 't-1' }) },
      { op: 'put', q: 'results', id: 'm5', body: 'not json' },
    ].map((line) => JSON.stringify(line));
    writeFileSync(join(dir, 'queue-journal.jsonl'), `${lines.join('\n')}\n{"op":"put","q":"resu`);
    writeFileSync(join(dir, 'trace.jsonl'), `${JSON.stringify({ resultId: 'r-4', kind: 'announced' })}\n\n`);

    // Act
    const facts = await localQueueFacts(dir);
    const none = await localQueueFacts(join(dir, 'absent'));

    // Assess
    expect([...facts.enqueued].sort()).toEqual(['r-1', 'r-2', 'r-3', 'r-4']);
    expect(facts.pending.get('results')).toEqual(new Set(['r-3']));
    expect(facts.pending.get('results-dlq')).toEqual(new Set(['r-2']));
    expect(facts.sources).toEqual(['queue-journal.jsonl', 'trace.jsonl']);
    expect(none).toEqual({ enqueued: new Set(), pending: new Map(), sources: [] });
    expect(queueNameOf('http://127.0.0.1:9324/000000000000/idv-local-results-dlq')).toBe(
      'idv-local-results-dlq',
    );
  });

  it('reads on past lines that are JSON but no entry, and takes no id from entries the journals never write', async () => {
    // Prepare: `null`, a number and a string parse but are no entry; a put naming no queue, one naming no
    // message, a delete (whatever it carries), an operation the journal does not write, a trace line naming
    // no result. The lines after them count.
    const msg = (resultId: string) => JSON.stringify({ resultId, source: 'webhook' });
    const queueLines = [
      'null',
      '5',
      '"text"',
      JSON.stringify({ op: 'put', id: 'm0', body: msg('r-no-queue') }),
      JSON.stringify({ op: 'put', q: 'results', body: msg('r-no-message') }),
      JSON.stringify({ op: 'del', q: 'results', id: 'm2', body: msg('r-deleted') }),
      JSON.stringify({ op: 'peek', q: 'results', id: 'm3', body: msg('r-other-op') }),
      JSON.stringify({ op: 'put', q: 'results', id: 'm1', body: msg('r-1') }),
    ];
    writeFileSync(join(dir, 'queue-journal.jsonl'), `${queueLines.join('\n')}\n`);
    const traceLines = ['null', JSON.stringify({ kind: 'announced' }), JSON.stringify({ resultId: 'r-2' })];
    writeFileSync(join(dir, 'trace.jsonl'), `${traceLines.join('\n')}\n`);

    // Act
    const facts = await localQueueFacts(dir);

    // Assess
    expect([...facts.enqueued].sort()).toEqual(['r-1', 'r-2']);
    expect(facts.pending).toEqual(new Map([['results', new Set(['r-1'])]]));
  });

  it('names the queue of a URL by its last path segment, whatever the path', () => {
    // Act / Assess
    expect(queueNameOf('http://127.0.0.1:9324/000000000000/idv-local-results/')).toBe('idv-local-results');
    expect(queueNameOf('http://127.0.0.1:9324/idv-local-results')).toBe('idv-local-results');
    expect(queueNameOf('http://127.0.0.1:9324/')).toBe('');
  });
});

describe('idv results reconcile on AWS (the SDK clients mocked)', () => {
  const QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/idv-results';
  const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/idv-results-dlq';
  const TARGET = ['--table', 'results', '--markers-table', 'markers', '--queue-url', QUEUE, '--dlq-url', DLQ];
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'idv-reconcile-aws-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * What the account holds, as the mocked clients answer it: the poll's markers (table `markers`), the
   * items and erasure records (table `results`), the messages of the DLQ and the counts of the queue.
   * Any other table, queue or DLQ is empty.
   */
  function account(holds: {
    markers?: { resultId: string; enqueuedAt: number }[];
    items?: Record<string, unknown>[];
    dlq?: string[];
    waiting?: { visible: number; inFlight: number; delayed: number };
  }): void {
    ddbMock.on(ScanCommand).resolves({ Items: [] });
    ddbMock.on(ScanCommand, { TableName: 'markers' }).resolves({ Items: holds.markers ?? [] });
    ddbMock.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => {
      const responses: Record<string, Record<string, unknown>[]> = {};
      for (const [table, request] of Object.entries(input.RequestItems ?? {})) {
        const wanted = new Set((request.Keys ?? []).map((key) => key['resultId']));
        responses[table] =
          table === 'results' ? (holds.items ?? []).filter((item) => wanted.has(item['resultId'])) : [];
      }
      return { Responses: responses };
    });
    sqsMock.on(ReceiveMessageCommand).resolves({});
    sqsMock
      .on(ReceiveMessageCommand, { QueueUrl: DLQ })
      .resolvesOnce({
        Messages: (holds.dlq ?? []).map((resultId, i) => ({
          MessageId: `d-${i}`,
          ReceiptHandle: `h-${i}`,
          Body: JSON.stringify({ resultId, source: 'webhook' }),
        })),
      })
      .resolves({});
    sqsMock.on(ChangeMessageVisibilityBatchCommand).resolves({});
    sqsMock.on(GetQueueAttributesCommand).resolves({ Attributes: {} });
    const waiting = holds.waiting ?? { visible: 0, inFlight: 0, delayed: 0 };
    sqsMock.on(GetQueueAttributesCommand, { QueueUrl: QUEUE }).resolves({
      Attributes: {
        ApproximateNumberOfMessages: String(waiting.visible),
        ApproximateNumberOfMessagesNotVisible: String(waiting.inFlight),
        ApproximateNumberOfMessagesDelayed: String(waiting.delayed),
      },
    });
  }

  const run = (args: string[], env: Record<string, string> = {}) =>
    runIdvInProcess(['results', 'reconcile', ...args], { env, cwd: dir });

  it('accounts for each marker by its item, its erasure record or the DLQ (read, not consumed): exit 0', async () => {
    // Prepare: one result stored, one whose verdict changed once, one erased, one dead-lettered, one
    // marker given back after a failed send; a DLQ message of a result the markers never saw.
    account({
      markers: [
        { resultId: 'r-stored', enqueuedAt: 5 },
        { resultId: 'r-changed', enqueuedAt: 6 },
        { resultId: 'r-erased', enqueuedAt: 7 },
        { resultId: 'r-dlq', enqueuedAt: 8 },
        { resultId: 'r-given-back', enqueuedAt: 0 },
      ],
      items: [
        { resultId: 'r-stored', status: 'STORED' },
        {
          resultId: 'r-changed',
          status: 'STORED',
          version: 2,
          versions: [{ resultId: 'r-changed' }, { resultId: 'r-changed' }],
        },
        { resultId: 'r-erased#erasure' },
      ],
      dlq: ['r-dlq', 'r-older'],
      waiting: { visible: 2, inFlight: 1, delayed: 4 },
    });

    // Act
    const result = await run(TARGET);

    // Assess
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({
      target: 'aws',
      sources: ['enqueue markers'],
      enqueued: 4,
      ended: { STORED: 2, UNAVAILABLE: 0, ERASED: 1, DLQ: 1 },
      queued: [],
      unaccounted: [],
      versions: { stored: 3, changed: 1 },
      queueMessages: 7,
    });
    // The DLQ's messages are all still there for the operator to redrive.
    expect(sqsMock.commandCalls(DeleteMessageCommand)).toHaveLength(0);
    expect(sqsMock.commandCalls(DeleteMessageBatchCommand)).toHaveLength(0);
  });

  it('exits 1 and lists a marker or --ids-file id that ended nowhere, saying how to trace it', async () => {
    // Prepare: r-lost has a marker and nothing else; r-webhook (from the file) is in the DLQ.
    account({
      markers: [
        { resultId: 'r-stored', enqueuedAt: 5 },
        { resultId: 'r-lost', enqueuedAt: 6 },
      ],
      items: [{ resultId: 'r-stored', status: 'STORED' }],
      dlq: ['r-webhook'],
    });
    writeFileSync(join(dir, 'ids.txt'), 'r-webhook\n\n  r-stored  \n');

    // Act
    const result = await run(['--ids-file', 'ids.txt', ...TARGET]);

    // Assess
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({
      sources: ['--ids-file', 'enqueue markers'],
      enqueued: 3,
      ended: { STORED: 1, DLQ: 1 },
      unaccounted: ['r-lost'],
      queueMessages: 0,
    });
    expect(result.err).toMatch(
      /1 enqueued resultId\(s\) ended nowhere .*run `idv results trace ID` for each/,
    );
  });

  it('takes the names from the deployment (--outputs-file) and the markers table from its variable', async () => {
    // Prepare
    account({
      markers: [{ resultId: 'r-lost', enqueuedAt: 5 }],
      dlq: [],
    });
    writeFileSync(
      join(dir, 'outputs.json'),
      JSON.stringify({
        'IdvPipeline-staging': {
          WebhookBaseUrl: 'https://hooks.example.com/',
          ResultsTableName: 'results',
          ResultsQueueUrl: QUEUE,
          DeadLetterQueueUrl: DLQ,
        },
      }),
    );

    // Act
    const result = await run(['--outputs-file', 'outputs.json'], { IDV_POLL_MARKERS_TABLE: 'markers' });

    // Assess
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ sources: ['enqueue markers'], unaccounted: ['r-lost'] });
  });

  it('without a markers table, checks the --ids-file ids alone and scans no table', async () => {
    // Prepare
    account({ items: [{ resultId: 'r-stored', status: 'UNAVAILABLE' }] });
    ddbMock.on(ScanCommand).rejects(new Error('scan of a table that was not named'));
    writeFileSync(join(dir, 'ids.txt'), 'r-stored\n');

    // Act
    const result = await run([
      '--ids-file',
      'ids.txt',
      '--table',
      'results',
      '--queue-url',
      QUEUE,
      '--dlq-url',
      DLQ,
    ]);

    // Assess
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({
      sources: ['--ids-file'],
      ended: { UNAVAILABLE: 1 },
      unaccounted: [],
    });
  });

  it.each([
    ['the results table', ['--markers-table', 'markers', '--queue-url', QUEUE, '--dlq-url', DLQ]],
    ['the DLQ', ['--table', 'results', '--markers-table', 'markers', '--queue-url', QUEUE]],
    ['the results queue', ['--table', 'results', '--markers-table', 'markers', '--dlq-url', DLQ]],
  ])('refuses to run without %s (exit 2), before reading anything', async (_, args) => {
    // Prepare
    account({ markers: [{ resultId: 'r-lost', enqueuedAt: 5 }] });

    // Act
    const result = await run(args);

    // Assess
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/need the results table, the queue and its DLQ/);
    expect(result.err).toContain('Run "idv results reconcile --help" for usage.');
    expect(ddbMock.calls()).toHaveLength(0);
    expect(sqsMock.calls()).toHaveLength(0);
  });

  it('refuses a flag of the service connection (exit 2): it reads a deployment, not the service', async () => {
    // Prepare
    account({});

    // Act
    const result = await run([...TARGET, '--environment', 'production']);

    // Assess
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/--environment/);
    expect(sqsMock.calls()).toHaveLength(0);
  });

  it('refuses an --ids-file it cannot read (exit 2, with the reason), before reading anything', async () => {
    // Prepare
    account({});

    // Act
    const result = await run(['--ids-file', 'missing.txt', ...TARGET]);

    // Assess
    expect(result.code).toBe(2);
    expect(result.err).toContain('--ids-file missing.txt cannot be read (ENOENT)');
    expect(result.err).toContain('Run "idv results reconcile --help" for usage.');
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('refuses an --ids-file of more than 1,000,000 ids (exit 2) rather than check only some', async () => {
    // Prepare
    const ids = Array.from({ length: 1_000_001 }, (_, i) => `r-${i}`);
    writeFileSync(join(dir, 'ids.txt'), `${ids.join('\n')}\n`);
    account({});

    // Act
    const result = await run(['--ids-file', 'ids.txt', ...TARGET]);

    // Assess
    expect(result.code).toBe(2);
    expect(result.err).toContain('--ids-file holds more than 1000000 ids: split it');
    expect(ddbMock.calls()).toHaveLength(0);
  });
});
