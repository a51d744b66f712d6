/**
 * Runs `idv` for CLI integration tests: the real process (`bin/idv.mjs`, as `npx idv` does), or in this
 * process when a test needs the emulators it started.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Path of the CLI entry shim. */
export const IDV_BIN = fileURLToPath(new URL('../../bin/idv.mjs', import.meta.url));

/** Outcome of one `idv` run. */
export interface IdvRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (throws when it is not). */
  json<T = unknown>(): T;
}

/**
 * Runs `idv ...args` with `env` added to a minimal environment (no IDV_* variables leak in from the
 * caller's shell), in `cwd`.
 */
export function runIdv(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<IdvRun> {
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' };
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [IDV_BIN, ...args],
      {
        env: { ...env, ...options.env },
        cwd: options.cwd ?? process.cwd(),
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T });
      },
    );
    // A pipe on stdin, like `… | idv setup credentials`; closed at once when there is nothing to send.
    child.stdin?.end(options.input ?? '');
  });
}

/**
 * `idv ARGS` run in this process (no child): its exit code and what it printed on stdout and stderr.
 * `env` is the whole environment the CLI sees (none by default); `cwd` its working directory.
 */
export async function runIdvInProcess(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<{ code: number; out: string; err: string }> {
  // Loaded on use: the tests that run the real process never load the CLI into their own.
  const { runCli } = await import('../../bin/cli/main');
  let out = '';
  let err = '';
  const code = await runCli(args, {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, out, err };
}

/** `idv results erase --transaction-id ID --local --data-dir DIR --principal ops-test`, in this process. */
export function eraseLocally(transactionId: string, dataDir: string): ReturnType<typeof runIdvInProcess> {
  return runIdvInProcess([
    'results',
    'erase',
    '--transaction-id',
    transactionId,
    '--local',
    '--data-dir',
    dataDir,
    '--principal',
    'ops-test',
  ]);
}

/** The arguments of `idv results list` over August 2026, printed in `format`. */
export function augustList(format: string): string[] {
  return ['results', 'list', '--since', '2026-08-01', '--until', '2026-08-31', '--format', format];
}

/** The arguments of `idv events replay` of the days from `since` to `until` on the local run in `dataDir`. */
export function localReplay(dataDir: string, since: string, until: string): string[] {
  return ['events', 'replay', '--local', '--data-dir', dataDir, '--since', since, '--until', until];
}
