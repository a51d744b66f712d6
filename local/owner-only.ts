/**
 * Owner-only files and the processes that own them: the helpers the data directory's guards share
 * (local/stack-file.ts, local/local-aws.ts, local/socket-dirs.ts, local/analytics-snapshots.ts), in a module
 * that imports no other.
 */
import { chmodSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * This user's own directories in the temporary directory whose names start with `prefix`: real
 * directories only, never a link or a directory another user planted under that name. Each with the
 * rest of its name, for the caller to read its pid or tag.
 */
export function ownTempDirs(prefix: string): { path: string; rest: string }[] {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return [];
  }
  const found: { path: string; rest: string }[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const path = join(tmpdir(), name);
    try {
      const stat = lstatSync(path);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
    } catch {
      continue;
    }
    found.push({ path, rest: name.slice(prefix.length) });
  }
  return found;
}

/** Whether process `pid` still runs (this process, or one that answers signal 0 and is no zombie). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return processStartTime(pid) !== 'zombie';
}
