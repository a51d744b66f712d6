/**
 * Erasure on the local run (`npm start`) while the pipeline works on the result (docs/erasure.md,
 * "How it runs"): the service's answer is held half way by a proxy, `idv results erase --local` runs during
 * the pause, then the body is let go. Nothing of the result is left (objects, item, analytics row), the
 * erasure record says ERASED and the event log has no Stored after the Erased.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IdvClient } from '../../shared/client';
import { DETAIL_TYPES } from '../../shared/events/names';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { runIdvInProcess } from '../support/cli';
import { type HoldingProxy, startHoldingProxy } from '../support/holding-proxy';
import { startLocalRun } from '../support/run-process';

const credentials = { clientId: 'erase-client', clientSecret: 'erase-secret' };

const startedRun = (flags: string[], env: Record<string, string>) => startLocalRun(flags, env);

/** `idv results erase --dry-run` of one result: what is still there. */
async function plan(dataDir: string, resultId: string) {
  const run = await runIdvInProcess([
    'results',
    'erase',
    '--result-id',
    resultId,
    '--dry-run',
    '--local',
    '--data-dir',
    dataDir,
  ]);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out).results[0] as {
    item?: unknown;
    publicationRecord: boolean;
    objects: { keys: string[] };
    analyticsRows: string[];
    erased?: { state: string };
  };
}

describe('npm start: an erasure while the result is being fetched', () => {
  let service: RunningSimulator;
  let proxy: HoldingProxy;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-local-erase-race-'));
    service = await startSimulator({ ...credentials, seed: 17 });
    proxy = await startHoldingProxy(service.url);
  });

  afterAll(async () => {
    await proxy?.close();
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('erased during a paused body: nothing of the result remains and no Stored follows the Erased', async () => {
    // Prepare: the run fetches through the proxy, which holds the result's body half way.
    const run = await startedRun(
      [
        '--port',
        '0',
        '--service-url',
        proxy.url,
        '--client-id',
        credentials.clientId,
        '--data-dir',
        dataDir,
        '--verbose',
        '--poll-interval',
        '2',
      ],
      { IDV_CLIENT_SECRET: credentials.clientSecret },
    );
    try {
      // The CLI loaded into this process before the result exists, so the erasure below starts at once
      // (the body cannot be held for longer than the fetch's read timeout, a few seconds).
      await plan(dataDir, 'res-warm-up');
      const client = new IdvClient({ baseUrl: service.url, environment: 'staging', credentials });
      await client.createSecureLink(
        { product: 'IDV_STANDARD', disableCommunication: true },
        { mockTest: 'APPROVED' },
      );
      const resultId = await proxy.holding;

      // Act: erase during the pause; let the body go once the erasure record is written.
      const erasing = runIdvInProcess([
        'results',
        'erase',
        '--result-id',
        resultId,
        '--local',
        '--data-dir',
        dataDir,
        '--principal',
        'race-test',
      ]);
      // (An erasure that does not wait for the fetch ends first: the body is let go then.)
      await Promise.race([
        erasing,
        vi.waitFor(async () => expect((await plan(dataDir, resultId)).erased).toBeDefined(), {
          timeout: 30_000,
          interval: 100,
        }),
      ]);
      proxy.release();
      const erased = await erasing;
      // The held fetch has ended either way: stored (what the erasure must prevent) or stepped aside
      // after its last object (a delivery that only finds the erasure record says something else).
      const handled = (line: string) =>
        line.includes(`resultId=${resultId}`) &&
        (line.includes('result stored') || line.includes('result was erased while it was stored'));
      await vi.waitFor(() => expect(run.stderr().split('\n').some(handled)).toBe(true), {
        timeout: 30_000,
        interval: 50,
      });
      const left = await plan(dataDir, resultId);

      // Assess
      expect(erased.code, erased.err).toBe(0);
      expect(JSON.parse(erased.out).erased[0]).toMatchObject({ erasedResultId: resultId, state: 'ERASED' });
      expect(left).toMatchObject({ objects: { keys: [] }, analyticsRows: [], erased: { state: 'ERASED' } });
      expect(left.item).toBeUndefined();
      const types = readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"${resultId}"`))
        .map((line) => JSON.parse(line)['detail-type']);
      expect(types).toEqual([DETAIL_TYPES.resultErased]);
      expect(run.stdout()).not.toMatch(new RegExp(`✔ stored.*${resultId}`));
    } finally {
      run.child.kill('SIGINT');
      await run.exited;
    }
  }, 180_000);
});
