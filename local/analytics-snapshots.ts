/**
 * The analyst's snapshots of the local projection (local/analytics-duckdb.ts): each query command copies
 * the projection into a private DuckDB file, and that copy holds rows — customer references among them.
 * A snapshot lives in its own owner-only (0700) directory in the temporary directory, named after the
 * process that made it and the data directory it copies (`idv-analytics-<pid>-<tag>-XXXXXX`, the tag a
 * hash of the data directory's path), and is removed when the command closes its
 * engine, on SIGINT/SIGTERM, and — if a crash or a SIGKILL left one — by the next analyst command and by
 * erasure ({@link removeStaleSnapshots}), which refuses to say "erased" while a live one exists.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ownTempDirs, processAlive } from './owner-only';

/** Prefix of a snapshot directory in the temporary directory. */
export const SNAPSHOT_PREFIX = 'idv-analytics-';

/** The tag of a data directory in its snapshots' names. */
function tagOf(dataDir: string): string {
  return createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 8);
}

/** A new owner-only (0700, as mkdtemp makes it) snapshot directory of this process for `dataDir`. */
export function newSnapshotDir(dataDir: string): string {
  return mkdtempSync(join(tmpdir(), `${SNAPSHOT_PREFIX}${process.pid}-${tagOf(dataDir)}-`));
}

/** The snapshot directories in the temporary directory that this user owns, with the pid of their maker. */
function ownSnapshotDirs(): { path: string; pid: number | undefined; tag: string | undefined }[] {
  const found: { path: string; pid: number | undefined; tag: string | undefined }[] = [];
  for (const { path, rest } of ownTempDirs(SNAPSHOT_PREFIX)) {
    // `idv-analytics-<pid>-<tag>-XXXXXX`; an older version named neither (`idv-analytics-XXXXXX`).
    // Any other name is not a snapshot (a directory a user named so is left alone).
    const match = /^(\d+)-([0-9a-f]{8})-[A-Za-z0-9]{6}$/.exec(rest);
    if (match) found.push({ path, pid: Number(match[1]), tag: match[2] });
    else if (/^[A-Za-z0-9]{6}$/.test(rest) && isLegacySnapshot(path))
      found.push({ path, pid: undefined, tag: undefined });
  }
  return found;
}

/**
 * Whether an older version's directory (`idv-analytics-XXXXXX`, no pid) is a snapshot: it holds the
 * snapshot's database file and nothing but its companions — never a directory someone else named so.
 */
function isLegacySnapshot(path: string): boolean {
  try {
    const names = readdirSync(path);
    return (
      names.includes('results.duckdb') &&
      names.every((name) => name === 'tmp' || /^results\.duckdb(\.wal)?$/.test(name))
    );
  } catch {
    return false;
  }
}

/** The paths of this user's snapshot directories of `dataDir` (or of an older version), live or left by a crash. */
export function snapshotDirs(dataDir: string): string[] {
  const tag = tagOf(dataDir);
  return ownSnapshotDirs()
    .filter((dir) => dir.tag === undefined || dir.tag === tag)
    .map((dir) => dir.path);
}

/**
 * Removes every snapshot directory of this user whose process is gone (a crash or a SIGKILL left it;
 * an older version's, which names no process, too). Returns what it removed and the pids of the live
 * analyst processes whose snapshots remain — with `dataDir`, only those of snapshots of that directory.
 */
export function removeStaleSnapshots(dataDir?: string): { removed: string[]; live: number[] } {
  const removed: string[] = [];
  const live: number[] = [];
  const tag = dataDir === undefined ? undefined : tagOf(dataDir);
  for (const dir of ownSnapshotDirs()) {
    if (dir.pid !== undefined && processAlive(dir.pid)) {
      if (tag === undefined || dir.tag === tag) live.push(dir.pid);
      continue;
    }
    rmSync(dir.path, { recursive: true, force: true });
    removed.push(dir.path);
  }
  return { removed, live: [...new Set(live)] };
}

/**
 * Removes `dir` if this process is stopped by SIGINT or SIGTERM (the signal then ends the process as it
 * would have: exit code 128 + the signal's number), or exits, before `release` is called. `release`
 * undoes it. `stopWork` runs first: a statement still running in the engine's threads would hold the
 * exit until it ended.
 */
export function removeOnSignal(dir: string, stopWork: () => void = () => undefined): () => void {
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const handler = () => {
      try {
        stopWork();
      } catch {
        // Stopping is best effort: the directory goes and the process ends either way.
      }
      rmSync(dir, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once(signal, handler);
    return () => process.off(signal, handler);
  });
  // And on any exit before the engine closed (an uncaught error, a `process.exit` elsewhere).
  const onExit = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', onExit);
  return () => {
    for (const off of handlers) off();
    process.off('exit', onExit);
  };
}
