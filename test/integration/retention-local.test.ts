/**
 * `idv results retention --local` against the emulators on a data directory: the schedule by day, and
 * `--check` exiting 1 with what is past retention (an item whose TTL passed, an old projection row) and 0
 * when nothing is.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIdvInProcess } from '../support/cli';
import { startLocalStore } from '../support/local-store';

const DAY_S = 86_400;

const cli = runIdvInProcess;

describe('idv results retention --local', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-retention-'));
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    // The local run's default prefix, which `idv … --local` reads.
    const local = await startLocalStore('idv-local', { dataDir });
    const { resources, dynamo } = local;
    const item = (resultId: string, expiresAt: number) =>
      dynamo.send(
        new PutCommand({
          TableName: resources.tableName,
          Item: {
            resultId,
            status: 'STORED',
            expiresAt,
            objectCount: 2,
            completed: '2026-01-01T00:00:00.000Z',
          },
        }),
      );
    await item('expired-1', now - 10 * DAY_S);
    await item('fresh-1', now + 5 * DAY_S);
    await local.close();
    // A projection row stored 90 days ago, as the local run appends it (analytics/incoming.jsonl).
    const longAgo = new Date(Date.now() - 90 * DAY_S * 1000);
    mkdirSync(join(dataDir, 'analytics'), { recursive: true });
    writeFileSync(
      join(dataDir, 'analytics', 'incoming.jsonl'),
      `${JSON.stringify({ result_id: 'old-row', status: 'STORED', stored_at: longAgo.toISOString(), day: '2026-01-01' })}\n`,
    );
  }, 60_000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('lists what expires on which day', async () => {
    // Act
    const run = await cli(['results', 'retention', '--local', '--data-dir', dataDir]);

    // Assess
    expect(run.code, run.err).toBe(0);
    const days = JSON.parse(run.out).days as { day: string; results: number; objects: number }[];
    expect(days).toEqual([
      { day: new Date((now - 10 * DAY_S) * 1000).toISOString().slice(0, 10), results: 1, objects: 3 },
      { day: new Date((now + 5 * DAY_S) * 1000).toISOString().slice(0, 10), results: 1, objects: 3 },
    ]);
  }, 60_000);

  it('--check reports what is past retention and exits 1', async () => {
    // Act
    const run = await cli(['results', 'retention', '--check', '--local', '--data-dir', dataDir]);

    // Assess
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/past their retention/);
    const report = JSON.parse(run.out);
    expect(report.pastRetention).toEqual({ items: 1, objectVersions: 0, projectionRows: 1 });
    expect(report.resultIds).toEqual(['expired-1', 'old-row']);
  }, 60_000);

  it('--check exits 0 when the retention covers everything', async () => {
    // Act
    const run = await cli([
      'results',
      'retention',
      '--check',
      '--retention-days',
      '365',
      '--grace-days',
      '30',
      '--local',
      '--data-dir',
      dataDir,
    ]);

    // Assess: the item's own TTL still counts (10 days past, grace 30: within it).
    expect(run.code, run.out + run.err).toBe(0);
    expect(JSON.parse(run.out).total).toBe(0);
  }, 60_000);
});
