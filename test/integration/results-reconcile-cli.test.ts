/**
 * `idv results reconcile --local` on a data directory left by a run (no `npm start` running): the ids the
 * queue journal and the trace journal saw, against the items, erasure records and the DLQ the journal
 * holds. Exit 1 and the lost ids listed while any id ended nowhere; exit 0 once each has an end.
 */
import { appendFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { markerIds } from '../../shared/queries/reconcile';
import { ErasureRecords, erasureKey } from '../../shared/store/erasure-record';
import type { ResultItem } from '../../shared/store/item';
import { runIdvInProcess } from '../support/cli';
import { startLocalStore } from '../support/local-store';

// The real scan, which one test cuts short as a table of more markers than the bound would be.
vi.mock('../../shared/queries/reconcile', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../shared/queries/reconcile')>();
  return { ...real, markerIds: vi.fn(real.markerIds) };
});

const dataDir = mkdtempSync(join(tmpdir(), 'idv-reconcile-cli-'));

const item = (resultId: string, status: 'STORED' | 'UNAVAILABLE'): ResultItem => ({
  resultId,
  status,
  completed: '2027-01-01T00:00:00.000Z',
  completedKnown: true,
  completedDay: '2027-01-01',
  storedAt: '2027-01-01T00:00:00.000Z',
  expiresAt: 1_900_000_000,
});

/** Writes items (and an erasure record) into the data directory's emulators, then stops them. */
async function store(items: ResultItem[], erased: string[] = []): Promise<void> {
  const local = await startLocalStore('idv-local', { dataDir });
  try {
    for (const one of items) {
      if (one.status === 'STORED') await local.store.putStoredItem(one);
      else await local.store.putUnavailableItem(one);
    }
    for (const id of erased) {
      await new ErasureRecords(local.dynamo, local.resources.tableName).put({
        resultId: erasureKey(id),
        erasedResultId: id,
        state: 'ERASED',
        requestedAt: '2027-01-02T00:00:00.000Z',
        principal: 'operator',
        selectedBy: 'result-id',
        expiresAt: 1_900_000_000,
      });
    }
  } finally {
    await local.close();
  }
}

const reconcile = (...args: string[]) =>
  runIdvInProcess(['results', 'reconcile', '--local', '--data-dir', dataDir, ...args]);

beforeAll(async () => {
  await store([item('r-stored', 'STORED'), item('r-gone', 'UNAVAILABLE')], ['r-erased']);
  // What the run's journals hold: consumed messages of every end, one moved to the DLQ, one still
  // queued, one consumed with nothing stored (lost), and one seen only by the trace journal (lost).
  const msg = (resultId: string) => JSON.stringify({ resultId, source: 'webhook' });
  const lines: object[] = [];
  for (const id of ['r-stored', 'r-gone', 'r-erased', 'r-lost']) {
    lines.push({ op: 'put', q: 'idv-local-results', id: `m-${id}`, body: msg(id) });
    lines.push({ op: 'del', q: 'idv-local-results', id: `m-${id}` });
  }
  lines.push({ op: 'put', q: 'idv-local-results', id: 'm-dlq', body: msg('r-dlq') });
  lines.push({ op: 'del', q: 'idv-local-results', id: 'm-dlq' });
  lines.push({ op: 'put', q: 'idv-local-results-dlq', id: 'm-dlq', body: msg('r-dlq') });
  lines.push({ op: 'put', q: 'idv-local-results', id: 'm-queued', body: msg('r-queued') });
  writeFileSync(join(dataDir, 'queue-journal.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  appendFileSync(
    join(dataDir, 'trace.jsonl'),
    `${JSON.stringify({ resultId: 'r-traced', kind: 'announced', at: '2027-01-01T00:00:00.000Z', from: 'journal' })}\n`,
  );
}, 60_000);

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('idv results reconcile --local', () => {
  it('lists the enqueued ids that ended nowhere and exits 1; exits 0 once every id has an end', async () => {
    // Act
    const before = await reconcile();
    await store([item('r-lost', 'UNAVAILABLE'), item('r-traced', 'STORED')]);
    const after = await reconcile();

    // Assess
    expect(before.code).toBe(1);
    expect(before.err).toMatch(/2 enqueued resultId\(s\) ended nowhere/);
    expect(JSON.parse(before.out)).toMatchObject({
      target: 'local (emulators started for this command)',
      sources: ['queue-journal.jsonl', 'trace.jsonl', 'enqueue markers'],
      enqueued: 7,
      ended: { STORED: 1, UNAVAILABLE: 1, ERASED: 1, DLQ: 1 },
      queued: ['r-queued'],
      unaccounted: ['r-lost', 'r-traced'],
    });
    expect(after.code).toBe(0);
    expect(JSON.parse(after.out)).toMatchObject({
      ended: { STORED: 2, UNAVAILABLE: 2, ERASED: 1, DLQ: 1 },
      unaccounted: [],
    });
  }, 60_000);

  it('counts every --ids-file id, and lists one that ended nowhere (a result announced only by webhook)', async () => {
    // Prepare: one id with an end, one the journals never saw and nothing stored.
    const file = join(dataDir, 'webhook-ids.txt');
    writeFileSync(file, 'r-stored\n\nr-webhook-only\n');

    // Act
    const run = await reconcile('--ids-file', file);

    // Assess
    expect(run.code).toBe(1);
    const report = JSON.parse(run.out) as { unaccounted: string[]; sources: string[] };
    expect(report.unaccounted).toEqual(['r-webhook-only']);
    expect(report.sources).toContain('--ids-file');
  }, 60_000);

  it('refuses a malformed --ids-file line before it opens anything (exit 2)', async () => {
    // Prepare
    const file = join(dataDir, 'ids.txt');
    writeFileSync(file, 'r-ok\nnot an id\n');

    // Act
    const run = await reconcile('--ids-file', file);

    // Assess
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--ids-file line 2 is not a resultId/);
  });

  it('exits 1 when the marker scan stopped at its bound, though every id it read has an end', async () => {
    // Prepare: every id of the data directory has an end (the tests above stored them); the scan stops
    // at its bound, as on a table of more markers than it reads.
    vi.mocked(markerIds).mockImplementationOnce(async () => ({
      ids: new Set(['r-stored']),
      truncated: true,
    }));

    // Act
    const run = await reconcile();

    // Assess: nothing beyond the bound was checked, so the command proves nothing and says so.
    expect(run.code).toBe(1);
    expect(JSON.parse(run.out)).toMatchObject({
      unaccounted: [],
      partial: ['enqueue markers: stopped at 1,000,000 ids'],
    });
    expect(run.err).toMatch(
      /not every enqueued resultId was checked .*enqueue markers: stopped at 1,000,000 ids/,
    );
  }, 60_000);

  it('without --data-dir, reads the journals of ./.local: a result lost there is reported (exit 1)', async () => {
    // Prepare: a working directory whose .local is this data directory, whose queue journal now holds
    // a message consumed with nothing stored.
    const cwd = mkdtempSync(join(tmpdir(), 'idv-reconcile-cwd-'));
    symlinkSync(dataDir, join(cwd, '.local'));
    const msg = JSON.stringify({ resultId: 'r-lost-here', source: 'webhook' });
    appendFileSync(
      join(dataDir, 'queue-journal.jsonl'),
      `${JSON.stringify({ op: 'put', q: 'idv-local-results', id: 'm-here', body: msg })}\n` +
        `${JSON.stringify({ op: 'del', q: 'idv-local-results', id: 'm-here' })}\n`,
    );

    try {
      // Act
      const run = await runIdvInProcess(['results', 'reconcile', '--local'], { cwd });

      // Assess
      expect(run.code).toBe(1);
      expect(JSON.parse(run.out)).toMatchObject({
        sources: ['queue-journal.jsonl', 'trace.jsonl', 'enqueue markers'],
        unaccounted: ['r-lost-here'],
      });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});
