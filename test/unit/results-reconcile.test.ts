/**
 * `idv results reconcile`'s core (shared/queries/reconcile.ts, local/reconcile-sources.ts): every enqueued
 * resultId is accounted for by its end in the store, the DLQ, or a message still queued; the rest are
 * listed. The store is read by keys (item and erasure record), never half: unprocessed keys are read again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localQueueFacts, queueNameOf } from '../../local/reconcile-sources';
import { markerIds, reconcile, storeEnds } from '../../shared/queries/reconcile';

const ddbMock = mockClient(DynamoDBDocumentClient);
const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));

beforeEach(() => {
  ddbMock.reset();
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
});
