/**
 * Runs a command in the repository root and collects its output, for tests that start `npm start` or
 * `idv` as real processes. The last stdout line is parsed as JSON when it is (the local run's summary).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Repository root: the working directory of every run. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** Outcome of one run. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The last stdout line as JSON, or `{}` when it is not JSON. */
  summary: Record<string, unknown>;
}

/** Runs `command args` (killed after `timeoutMs`); resolves with what it printed and its exit code. */
export function run(
  command: string,
  args: string[],
  timeoutMs = 120_000,
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env, FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let summary: Record<string, unknown> = {};
      try {
        summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
      } catch {
        // Not every command ends with a summary line.
      }
      resolve({ code, stdout, stderr, summary });
    });
  });
}

/** A service the local run is pointed at: its address and the client credentials it accepts. */
export interface ServiceUnderTest {
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * `npm start --once` against `service` on a free webhook port, storing in `dataDir`: the one way the
 * integration tests run the local pipeline once against a service of their own. `extra` flags follow.
 */
export function npmStartOnce(
  service: ServiceUnderTest,
  dataDir: string,
  extra: readonly string[] = [],
  timeoutMs = 120_000,
): Promise<Run> {
  const access = [
    '--service-url',
    service.url,
    '--client-id',
    service.clientId,
    '--client-secret',
    service.clientSecret,
  ];
  const args = [
    'start',
    '--silent',
    '--',
    '--port',
    '0',
    ...access,
    '--once',
    '--data-dir',
    dataDir,
    ...extra,
  ];
  return run('npm', args, timeoutMs);
}

/**
 * `bin/start.ts` itself (no npm/tsx wrapper, so signals reach exactly this process), resolved once it
 * printed that the pipeline runs; rejected when it ends before.
 */
export async function startLocalRun(flags: readonly string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts', ...flags], {
    cwd: ROOT,
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Local pipeline running')) resolve();
    });
    child.on('close', () => reject(new Error(`npm start ended early: ${stderr}`)));
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}
