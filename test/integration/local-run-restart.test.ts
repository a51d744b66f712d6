/**
 * A restart is not a loss (docs/local-run.md, "Stopping and starting again"): the simulator of `npm start`
 * keeps its state in the data directory. A secure link created on one run, killed with SIGKILL before the
 * link was used, opens on the next run (on the `--simulator-port` both runs were given), completes, and the
 * pipeline stores and announces its result. The start screen says what the simulator kept. Before the
 * kill, another user of the machine (uid 65534, when the test runs as root) holding the link's ids but not
 * its key gets 404 trying to complete it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { StackFile } from '../../local/stack-file';
import { PATHS } from '../../shared/api/enums';
import { DETAIL_TYPES } from '../../shared/events/names';
import { modes } from '../support/file-modes';
import { startLocalRun } from '../support/run-process';

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * POSTs a DISAPPROVED completion to each path as uid 65534 (when the test runs as root; undefined
 * otherwise) and resolves with the statuses.
 */
async function asOtherUser(base: string, paths: string[]): Promise<number[] | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const probe = `
    const { base, paths } = JSON.parse(process.argv[1]);
    const statuses = [];
    for (const path of paths) {
      const res = await fetch(base + path, { method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ action: 'outcome', outcome: 'DISAPPROVED' }) });
      statuses.push(res.status);
    }
    console.log(JSON.stringify(statuses));`;
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', probe, JSON.stringify({ base, paths })],
    {
      uid: 65534,
      gid: 65534,
      cwd: '/',
      env: { PATH: process.env.PATH! },
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await new Promise((resolve) => child.on('close', resolve));
  return JSON.parse(out) as number[];
}

describe('npm start killed with a link open, then started again', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-local-restart-'));
  const runs: Awaited<ReturnType<typeof startLocalRun>>[] = [];
  afterAll(async () => {
    for (const run of runs) {
      if (run.child.exitCode === null && run.child.signalCode === null) {
        run.child.kill('SIGINT');
        await run.exited;
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens the link on the next run, completes it, and the pipeline stores the result', async () => {
    // Prepare: a run whose links wait for their end user, and one link created through its simulator
    const simulatorPort = await freePort();
    const flags = [
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--simulator-port',
      String(simulatorPort),
      '--demo',
      '0',
      '--links-await-browser',
    ];
    const first = await startLocalRun(flags);
    runs.push(first);
    const stack = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
    const simulator = stack.simulator!;
    expect(new URL(simulator.url).port).toBe(String(simulatorPort));
    const basic = Buffer.from(`${simulator.clientId}:${simulator.clientSecret}`).toString('base64');
    const tokenAnswer = await fetch(`${simulator.url}${PATHS.oauthToken}`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: ['productapi.secureidlink.write'] }),
    });
    const { accessToken } = (await tokenAnswer.json()) as { accessToken: string };
    const created = await fetch(`${simulator.url}${PATHS.secureLink}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        product: 'IDV_STANDARD',
        customerReference: 'restart-1',
        disableCommunication: true,
      }),
    });
    expect(created.status).toBe(200);
    const link = (await created.json()) as { link: string; transactionId: string; secureId: string };
    // Another user of the machine who learnt the link's ids (not its key) tries to decide it.
    const neighbour = await asOtherUser(simulator.url, [
      `/link/${link.secureId}/complete`,
      `/link/${link.transactionId}/complete`,
    ]);

    // Act: kill -9, start again, complete the link
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startLocalRun(flags);
    runs.push(second);
    const page = await fetch(link.link);
    const done = await fetch(`${link.link}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ action: 'outcome', outcome: 'APPROVED' }),
    });
    const completed = (await done.json()) as { transactionId: string; resultId: string };
    const events = join(dataDir, 'events.jsonl');
    await vi.waitFor(
      () => {
        const stored = readFileSync(events, 'utf8')
          .split('\n')
          .filter((line) => line.includes(DETAIL_TYPES.resultStored) && line.includes(completed.resultId));
        expect(stored).toHaveLength(1);
      },
      { timeout: 60_000, interval: 200 },
    );

    // Assess
    if (neighbour !== undefined) expect(neighbour).toEqual([404, 404]);
    expect(second.stderr()).toContain(
      "↺ the simulator kept the earlier run's 1 transaction(s): 1 still open (they complete as before)",
    );
    expect(page.status).toBe(200);
    expect(done.status).toBe(200);
    expect(completed.transactionId).toBe(link.transactionId);
    const files = modes(join(dataDir, 'simulator'));
    expect(files.filter((f) => f.mode !== (f.dir ? 0o700 : 0o600))).toEqual([]);
    expect(files.some((f) => f.path.endsWith(`${completed.resultId}.json`))).toBe(true);
  }, 180_000);
});
