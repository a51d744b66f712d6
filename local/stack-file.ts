import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalAws } from './local-aws';
import type { PipelineResources } from './pipeline-resources';

/** File in the data directory through which `idv … --local` finds a running `npm start`. */
export const STACK_FILE = 'stack.json';

/**
 * What `npm start` leaves in `<dataDir>/stack.json` (owner-only, 0600): names, ports and the run's random
 * key pair, without which its emulators refuse every request (see `aws-auth.ts`).
 */
export interface StackFile {
  pid: number;
  /**
   * When the process started (Linux `/proc/<pid>/stat`, clock ticks since boot), so that a new process
   * that got the same pid after a crash is not taken for the run. Absent where /proc is not available.
   */
  pidStartTime?: string;
  startedAt: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  endpoints: LocalAws['endpoints'];
  resources: PipelineResources;
  /** The run's own simulator (absent with `--service-url`): `idv simulator trigger --local` talks to it. */
  simulator?: { url: string; clientId: string; clientSecret: string };
}

/** The stack file of a data directory and whether the run that wrote it is still alive. */
export function readStack(dataDir: string): { stack: StackFile; alive: boolean } | undefined {
  const file = join(dataDir, STACK_FILE);
  if (!existsSync(file)) return undefined;
  let stack: StackFile;
  try {
    stack = JSON.parse(readFileSync(file, 'utf8')) as StackFile;
  } catch {
    return undefined;
  }
  return { stack, alive: isAlive(stack) };
}

/** Reads `<dataDir>/stack.json` when the process that wrote it is still alive. */
export function readLiveStack(dataDir: string): StackFile | undefined {
  const found = readStack(dataDir);
  return found?.alive ? found.stack : undefined;
}

function isAlive(stack: StackFile): boolean {
  try {
    process.kill(stack.pid, 0);
  } catch {
    return false;
  }
  const now = processStartTime(stack.pid);
  // A zombie, or another process that reuses the pid, is not the run that wrote the file.
  if (now === 'zombie') return false;
  return stack.pidStartTime === undefined || now === undefined || now === stack.pidStartTime;
}

/**
 * The start time of a process from `/proc/<pid>/stat` (field 22), `'zombie'` for a process that ended
 * but was not reaped, or `undefined` where /proc is not available.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return 'zombie';
    return fields[19];
  } catch {
    return undefined;
  }
}

/**
 * Makes a directory tree owner-only (directories 0700, files 0600): a data directory written by an
 * older version, or with a permissive umask, can hold identity documents. Symbolic links are left alone.
 */
export function restrictToOwner(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o077) !== 0) chmodSync(path, 0o700);
    for (const name of readdirSync(path)) restrictToOwner(join(path, name));
  } else if ((stat.mode & 0o077) !== 0) {
    chmodSync(path, 0o600);
  }
}
