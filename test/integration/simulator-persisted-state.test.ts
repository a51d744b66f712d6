/**
 * A restart is not a loss (simulator/persisted-state.ts): a simulator with a `stateDir` writes its state
 * before each answer goes out, so a copy of the directory taken right after the answers (what a SIGKILL
 * at that moment leaves) starts a simulator where the link still opens with its key and completes, the
 * pending result is still in the poll, the issued token still works. Files 0600, directories 0700; a
 * damaged state file is moved aside and named.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { STATE_FILE } from '../../simulator/persisted-state';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { modes } from '../support/file-modes';
import { callSim, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const dirs: string[] = [];
const sims: RunningSimulator[] = [];
afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'idv-sim-state-'));
  dirs.push(dir);
  return dir;
}

async function start(stateDir: string): Promise<RunningSimulator> {
  const sim = await startSimulator({ ...SIM_CLIENT, seed: 11, linksAwaitBrowser: true, stateDir });
  sims.push(sim);
  return sim;
}

describe('a simulator with a state directory', () => {
  it('starts again from what it had answered: the link opens and completes, the poll and token hold', async () => {
    // Prepare: a link waiting for its end user and a mock-test result not fetched yet
    const first = tempDir();
    const sim = await start(first);
    const token = await tokenFor(sim);
    const link = await callSim(sim, token, 'POST', PATHS.secureLink, {
      product: 'IDV_STANDARD',
      customerReference: 'restart-link',
      disableCommunication: true,
    });
    const mocked = await fetch(`${sim.url}${PATHS.secureLink}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'mock-test': 'APPROVED',
      },
      body: JSON.stringify({ product: 'IDV_STANDARD', customerReference: 'restart-mock' }),
    });
    expect([link.status, mocked.status]).toEqual([200, 200]);
    // What a kill right now would leave: the directory as it is, the first simulator never closed.
    const second = tempDir();
    cpSync(first, second, { recursive: true });

    // Act
    const again = await start(second);
    const path = new URL(link.body.link as string).pathname;
    const page = await fetch(`${again.url}${path}`);
    const poll = await callSim(again, token, 'GET', PATHS.poll);
    const done = await fetch(`${again.url}${path}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ action: 'outcome', outcome: 'DISAPPROVED' }),
    });
    const completed = (await done.json()) as { transactionId: string; resultId: string; result: string };
    const result = await callSim(again, token, 'GET', PATHS.result(completed.resultId));

    // Assess
    expect(again.restored).toMatchObject({ transactions: 2, open: 1, results: 1, notes: [] });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('restart-link');
    expect(poll.status).toBe(200);
    expect((poll.body.results as { customerReference?: string }[]).map((r) => r.customerReference)).toEqual([
      'restart-mock',
    ]);
    expect(done.status).toBe(200);
    expect(completed).toMatchObject({ transactionId: link.body.transactionId, result: 'DISAPPROVED' });
    expect(result.status).toBe(200);
    expect(result.body.customerReference).toBe('restart-link');
    expect((await fetch(`${again.url}/link/${link.body.secureId as string}`)).status).toBe(404);
  });

  it('keeps a pending transaction pending across a restart, and it completes when due', async () => {
    // Prepare: a link its simulated end user completes after the delay
    const first = tempDir();
    const sim = await startSimulator({ ...SIM_CLIENT, seed: 13, completionDelayMs: 60_000, stateDir: first });
    sims.push(sim);
    const token = await tokenFor(sim);
    const link = await callSim(sim, token, 'POST', PATHS.secureLink, {
      product: 'IDV_LITE',
      customerReference: 'restart-pending',
    });
    const second = tempDir();
    cpSync(first, second, { recursive: true });

    // Act
    const again = await startSimulator({
      ...SIM_CLIENT,
      seed: 13,
      completionDelayMs: 60_000,
      stateDir: second,
    });
    sims.push(again);
    const before = again.control.stats().pending;
    again.control.advanceTime(60_000);
    const poll = await callSim(again, token, 'GET', PATHS.poll);

    // Assess
    expect(link.status).toBe(200);
    expect(before).toBe(1);
    expect(again.control.resultIdsOf(link.body.transactionId as string)).toHaveLength(1);
    expect((poll.body.results as { customerReference?: string }[]).map((r) => r.customerReference)).toEqual([
      'restart-pending',
    ]);
  });

  it('keeps its files owner-only and writes no temporary file that outlives a save', async () => {
    // Prepare
    const dir = tempDir();
    const sim = await start(dir);
    const token = await tokenFor(sim);

    // Act
    await fetch(`${sim.url}${PATHS.secureLink}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'mock-test': 'APPROVED',
      },
      body: JSON.stringify({ product: 'IDV_STANDARD' }),
    });

    // Assess
    const found = modes(dir);
    expect(found.some((f) => f.path.endsWith(STATE_FILE))).toBe(true);
    expect(found.filter((f) => f.path.includes('/results/') && !f.dir)).toHaveLength(1);
    expect(found.filter((f) => f.mode !== (f.dir ? 0o700 : 0o600))).toEqual([]);
    expect(found.filter((f) => f.path.endsWith('.tmp'))).toEqual([]);
  });

  it('forgets a transaction once its results are past retention, so the state does not grow', async () => {
    // Prepare: one result kept, one past retention
    const dir = tempDir();
    const sim = await startSimulator({ ...SIM_CLIENT, seed: 12, stateDir: dir, retentionMs: 60_000 });
    sims.push(sim);
    const token = await tokenFor(sim);
    const create = (customerReference: string) =>
      fetch(`${sim.url}${PATHS.secureLink}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'mock-test': 'APPROVED',
        },
        body: JSON.stringify({ product: 'IDV_STANDARD', customerReference }),
      });
    expect((await create('expires')).status).toBe(200);
    sim.control.advanceTime(61_000);
    expect((await create('kept')).status).toBe(200);
    await sim.close();

    // Act
    const again = await start(dir);
    const poll = await callSim(again, token, 'GET', PATHS.poll);

    // Assess
    expect(again.restored).toMatchObject({ transactions: 1, open: 0, results: 1 });
    expect((poll.body.results as { customerReference?: string }[]).map((r) => r.customerReference)).toEqual([
      'kept',
    ]);
    expect(readdirSync(join(dir, 'results'))).toHaveLength(1);
  });

  it.each([
    ['cut off', '{"format":1,"transac'],
    ['of another shape', '{"format":1,"offsetMs":0,"transactions":[{"transactionId":"t"}]}'],
  ])('moves a state file %s aside, says so, and starts empty', async (_, text) => {
    // Prepare
    const dir = tempDir();
    writeFileSync(join(dir, STATE_FILE), text);

    // Act
    const sim = await start(dir);

    // Assess
    expect(sim.restored?.transactions).toBe(0);
    expect(sim.restored?.notes).toEqual([expect.stringContaining('could not be read: moved to')]);
    expect(readdirSync(dir).filter((name) => name.startsWith(`${STATE_FILE}.damaged-`))).toHaveLength(1);
    expect(sim.control.stats().transactions).toBe(0);
  });
});
