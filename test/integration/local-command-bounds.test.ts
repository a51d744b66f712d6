/**
 * Every CLI command against a local data directory ends (local/local-open.ts): it waits, bounded, for
 * data another process still holds, and the operator commands answer right after a run was killed with
 * SIGKILL, on a machine kept busy by a spinning child.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLocalAws } from '../../local/local-aws';
import { OPEN_DEADLINE_MS } from '../../local/local-open';
import { createPipelineResources } from '../../local/pipeline-resources';
import { runIdv } from '../support/cli';
import { ROOT } from '../support/run-process';

/** A command must answer within the open bound plus its own work (generous for a loaded 2-core box). */
const COMMAND_BOUND_MS = OPEN_DEADLINE_MS + 60_000;

let dataDir: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'idv-bounds-'));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Spawns `node -e code` and resolves once it printed `ready`. */
async function child(code: string, args: string[] = []): Promise<ChildProcess> {
  const started = spawn(process.execPath, ['-e', code, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(started);
  await new Promise<void>((resolve, reject) => {
    started.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    started.on('close', (status) => reject(new Error(`child ended early (${status})`)));
  });
  return started;
}

/** A child that keeps one core busy for `seconds`. */
function busyLoop(seconds: number): Promise<ChildProcess> {
  return child(
    `console.log('ready'); const end = Date.now() + ${seconds * 1000}; while (Date.now() < end) {}`,
  );
}

async function timed(args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const result = await runIdv(args, { cwd: ROOT, timeoutMs: COMMAND_BOUND_MS + 30_000 });
  return { ...result, ms: Date.now() - started };
}

describe('local commands end', () => {
  it('wait for data another process is still releasing, then answer (no crash, no hang)', async () => {
    // Prepare: persisted data, and a process holding its DynamoDB lock for 15 s, as a stopping run does.
    const aws = await startLocalAws({ dataDir });
    await createPipelineResources(aws);
    await aws.close();
    await child(
      `const { ClassicLevel } = require('classic-level');
       const db = new ClassicLevel(process.argv[1]);
       db.open().then(() => { console.log('ready'); setTimeout(() => db.close(), 15000); });`,
      [join(dataDir, 'dynamodb')],
    );

    // Act
    const listed = await timed(['results', 'list', '--local', '--data-dir', dataDir]);

    // Assess
    expect(listed.stderr).not.toMatch(/Database is not open|at .*\.js:\d+/);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
    expect(listed.ms).toBeLessThan(COMMAND_BOUND_MS);
  }, 200_000);

  it('answers the operator commands right after a SIGKILLed run, under CPU load', async () => {
    // Prepare: a run killed mid-flight leaves its data, its stack file (a dead pid) and its journals.
    const run = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/start.ts', '--port', '0', '--demo', '2', '--data-dir', dataDir],
      {
        cwd: ROOT,
        env: { ...process.env, FORCE_COLOR: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(run);
    const exited = new Promise((resolve) => run.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      run.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('+ created')) resolve();
      });
      run.on('close', () => reject(new Error('npm start ended early')));
    });
    run.kill('SIGKILL');
    await exited;
    await busyLoop(240);
    await busyLoop(240);

    // Act
    const answers = [];
    for (const args of [
      ['results', 'list', '--local', '--data-dir', dataDir],
      ['dlq', 'list', '--local', '--data-dir', dataDir],
      ['results', 'list', '--local', '--data-dir', dataDir, '--format', 'table'],
    ]) {
      answers.push({ args: args.join(' '), ...(await timed(args)) });
    }

    // Assess
    for (const answer of answers) {
      expect(answer.code, `${answer.args}: ${answer.stderr}`).toBe(0);
      expect(answer.ms, answer.args).toBeLessThan(COMMAND_BOUND_MS);
    }
  }, 600_000);
});
