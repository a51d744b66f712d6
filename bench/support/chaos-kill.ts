/**
 * The SIGKILL part of the chaos suite: a local run (`bin/start.ts`, a process of its own) against an
 * external, faulted simulator is killed with SIGKILL mid-way, then started with `--once` on the same data
 * directory; every transaction's result must end stored and announced, nothing dead-lettered, and
 * `idv results reconcile --local` on the data directory finds no enqueued resultId that ended nowhere.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdvClient } from '../../shared/client';
import { DETAIL_TYPES } from '../../shared/events/names';
import { startSimulator } from '../../simulator/server';

const ROOT = join(import.meta.dirname, '..', '..');
const CREDENTIALS = { clientId: 'chaos-kill-client', clientSecret: 'chaos-kill-secret-R4' };

/** What the kill-and-restart run measured. */
export interface KillFigures {
  results: number;
  /** Successful result GETs when the first run was killed. */
  getsAtKill: number;
  restartExit: number | null;
  /** Transactions without a Stored event after the restart; empty when nothing was lost. */
  missing: string[];
  dlq: number;
  /** `idv results reconcile --local` after the restart: its exit code and the ids it found unaccounted. */
  reconcile: { exit: number | null; unaccounted: string[] };
}

/** Runs the kill-and-restart scenario with `results` transactions. */
export async function runKillRestart(options: { results: number; seed: number }): Promise<KillFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-chaos-kill-'));
  const sim = await startSimulator({ ...CREDENTIALS, seed: options.seed });
  try {
    const client = new IdvClient({ baseUrl: sim.url, environment: 'staging', credentials: CREDENTIALS });
    const transactions = new Set<string>();
    for (let i = 0; i < options.results; i++) {
      const link = await client.createSecureLink(
        { product: 'IDV_STANDARD', disableCommunication: true },
        { mockTest: i % 2 ? 'DISAPPROVED' : 'APPROVED' },
      );
      transactions.add(link.transactionId);
    }
    sim.control.setFaults({ slowRate: 0.5, slowMs: 400, serverErrorRate: 0.05, paths: ['/api/v2/result'] });
    const flags = ['--service-url', sim.url, '--client-id', CREDENTIALS.clientId, '--data-dir', dataDir];
    const env = { IDV_CLIENT_SECRET: CREDENTIALS.clientSecret, FORCE_COLOR: '0' };
    const first = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts', '--port', '0', ...flags], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const firstExit = new Promise((resolve) => first.on('close', resolve));
    const gets = () => Object.values(sim.control.stats().resultFetches).reduce((a, b) => a + b, 0);
    const killAt = Math.max(1, Math.floor(options.results / 3));
    const giveUp = Date.now() + 120_000;
    while (gets() < killAt && Date.now() < giveUp) await new Promise((r) => setTimeout(r, 20));
    const getsAtKill = gets();
    first.kill('SIGKILL');
    await firstExit;
    sim.control.setFaults(undefined);
    const second = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/start.ts', '--once', '--port', '0', ...flags],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let stdout = '';
    second.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const restartExit = await new Promise<number | null>((resolve) => second.on('close', resolve));
    const summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { dlq?: number };
    const stored = new Set(
      readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((event) => event['detail-type'] === DETAIL_TYPES.resultStored)
        .map((event) => event.detail.transactionId as string),
    );
    const reconcile = await reconcileDataDir(dataDir);
    return {
      reconcile,
      results: transactions.size,
      getsAtKill,
      restartExit,
      missing: [...transactions].filter((t) => !stored.has(t)),
      dlq: summary.dlq ?? -1,
    };
  } finally {
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs `idv results reconcile --local` on `dataDir` as an operator would (`npx idv`, a process of its own). */
async function reconcileDataDir(dataDir: string): Promise<KillFigures['reconcile']> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'idv.mjs'), 'results', 'reconcile', '--local', '--data-dir', dataDir],
    { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    return { exit, unaccounted: (JSON.parse(stdout) as { unaccounted: string[] }).unaccounted };
  } catch {
    return { exit, unaccounted: [`(no report: ${stdout.length} bytes on stdout)`] };
  }
}
