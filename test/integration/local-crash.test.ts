/**
 * A kill at any moment leaves a data directory that starts (docs/local-run.md, "A crash loses nothing"):
 * a burst that writes many objects through the real pipeline code (test/support/crash-burst.ts: a poll
 * enqueues results with an image and a PDF each, the results batch stores them) is killed with SIGKILL at
 * random moments, round after round, on one data directory. After each kill the directory must start
 * again (its poll enqueues again what the kill lost between an enqueue marker and its message, as the
 * service still lists it) and `idv results reconcile --local` account for every id (stored, or queued);
 * at the end, once a last run finished the queue, no object may be left without the item that names it.
 * The rounds' kill times come from a printed seed (`IDV_CRASH_SEED=N` repeats a run). Also: the damage
 * the issue found — an object's metadata file truncated to nothing — is repaired at the start, with a
 * line, instead of failing it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { runIdvInProcess } from '../support/cli';
import { startLocalStore } from '../support/local-store';
import { ROOT } from '../support/run-process';

const ROUNDS = 4;
const PER_ROUND = 30;
const SEED = Number(process.env['IDV_CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** A small seeded generator (mulberry32): the kill times of a run, repeatable from the seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const dataDir = mkdtempSync(join(tmpdir(), 'idv-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The burst child on the data directory; `ready` once its stack is open, `ended` with its exit. */
function burst(rounds: number, mode: 'burst' | 'poll') {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/crash-burst.ts', dataDir, String(rounds), String(PER_ROUND), mode],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const ended = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = (async () => {
    while (!out.includes('ready')) {
      if (child.exitCode !== null) throw new Error(`the run did not start (${child.exitCode}): ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return { child, ready, ended, out: () => out, err: () => err };
}

/** The keys of the objects under `results/` in the S3 emulator's files: `results/<id>/<name>`. */
function storedObjectIds(): Set<string> {
  const ids = new Set<string>();
  const s3 = join(dataDir, 's3');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('._S3rver_object')) {
        const [, prefix, id] = relative(s3, path).split('/');
        if (prefix === 'results' && id) ids.add(id);
      }
    }
  };
  if (existsSync(s3)) walk(s3);
  return ids;
}

describe(`a kill at any moment leaves a data directory that starts (IDV_CRASH_SEED=${SEED})`, () => {
  it('SIGKILL at random moments of a write-heavy burst: each start succeeds, reconcile accounts for every id, no orphan object', async () => {
    // Prepare
    console.log(`crash test seed: IDV_CRASH_SEED=${SEED}`);
    const random = seeded(SEED);
    const reconciles: { round: number; code: number; unaccounted: unknown }[] = [];
    const repaired: string[] = [];

    // Act: each round starts on what the last kill left, enqueues more, and is killed mid-burst; then a
    // start on what it left polls (a message lost between its marker and its send is enqueued again) and
    // reconcile looks.
    for (let round = 0; round < ROUNDS; round++) {
      const run = burst(round + 1, 'burst');
      await run.ready;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(random() * 1500)));
      run.child.kill('SIGKILL');
      await run.ended;
      const again = burst(round + 1, 'poll');
      await again.ready;
      const code = await again.ended;
      expect(code, `seed ${SEED}: ${again.err()}`).toBe(0);
      repaired.push(
        ...[run, again].flatMap((r) =>
          r
            .err()
            .split('\n')
            .filter((line) => line.startsWith('repaired')),
        ),
      );
      const reconciled = await runIdvInProcess(['results', 'reconcile', '--local', '--data-dir', dataDir]);
      reconciles.push({
        round,
        code: reconciled.code,
        unaccounted: reconciled.code === 0 ? [] : reconciled.out || reconciled.err,
      });
    }
    const last = burst(ROUNDS, 'burst');
    await last.ready;
    const lastCode = await last.ended;
    const local = await startLocalStore('idv-local', { dataDir });
    let items: Set<string>;
    try {
      const scan = await local.dynamo.send(new ScanCommand({ TableName: local.resources.tableName }));
      items = new Set(
        (scan.Items ?? [])
          .filter((item) => item['status'] === 'STORED')
          .map((item) => String(item['resultId'])),
      );
    } finally {
      await local.close();
    }
    const final = await runIdvInProcess(['results', 'reconcile', '--local', '--data-dir', dataDir]);

    // Assess
    expect(reconciles, `seed ${SEED}; repairs: ${repaired.join('; ')}`).toEqual(
      reconciles.map(({ round }) => ({ round, code: 0, unaccounted: [] })),
    );
    expect(lastCode, last.err()).toBe(0);
    expect(last.out()).toContain('done');
    expect(final.code, final.out + final.err).toBe(0);
    expect(JSON.parse(final.out)).toMatchObject({ unaccounted: [], queued: [] });
    const orphans = [...storedObjectIds()].filter((id) => !items.has(id));
    expect(orphans, `seed ${SEED}`).toEqual([]);
    expect(items.size).toBeGreaterThan(0);
  }, 180_000);

  it('repairs a metadata file a kill truncated to nothing, with a line, instead of failing the start', async () => {
    // Prepare: the reproduction — truncate an object's metadata file (one for the command,
    // one for the run).
    const [first, second] = readdirSync(join(dataDir, 's3'), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('._S3rver_metadata.json'))
      .map((path) => join(dataDir, 's3', path));
    expect(second).toBeDefined();
    writeFileSync(first!, '');

    // Act: a command that starts the emulators itself, then a run.
    const listed = await runIdvInProcess(['results', 'list', '--local', '--data-dir', dataDir]);
    writeFileSync(second!, '');
    const run = burst(ROUNDS, 'poll');
    await run.ready;
    const code = await run.ended;

    // Assess
    expect(listed.code, listed.err).toBe(0);
    expect(listed.err).toMatch(
      /↺ repaired S3 emulator: rebuilt .*\._S3rver_metadata\.json: it was torn by a crash/,
    );
    expect(code, run.err()).toBe(0);
    expect(run.err()).toMatch(
      /repaired S3 emulator: rebuilt .*\._S3rver_metadata\.json: it was torn by a crash/,
    );
  }, 120_000);
});
