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
