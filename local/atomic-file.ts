/**
 * One way the local run replaces a file (docs/local-run.md, "A crash loses nothing"): the new content is
 * written to a temporary file beside it (owner-only), flushed to disk (fsync), renamed over the old one,
 * and the directory flushed, so a kill — or a power cut — at any moment leaves the old file or the new
 * one, never a torn or empty one. A temporary file left by a kill is named `<file>.<pid>.tmp` and removed
 * by the next write of the same file (or {@link removeStaleTemporaries}).
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Suffix of a temporary file of {@link writeFileAtomic}. */
const TEMPORARY = /\.\d+\.tmp$/;

/**
 * Replaces `file` with `data` atomically and durably; owner-only (0600) whatever the umask. With
 * `changed`, asked once the new content is on disk: when it answers true (the old file changed meanwhile)
 * nothing is replaced and the answer is false.
 */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: { readonly changed?: () => boolean } = {},
): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let written = 0; written < bytes.length; )
      written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  if (options.changed?.()) {
    rmSync(temporary, { force: true });
    return false;
  }
  renameSync(temporary, file);
  syncDirectory(dirname(file));
  return true;
}

/** Flushes a file's content to disk (before it is renamed into place). */
export function syncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a directory's entries (a rename is durable only once its directory is); best effort. */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Ends an append-only journal whose last line a kill tore (no line feed at its end) with a line feed, so
 * the next append starts a line of its own instead of joining the torn one (readers skip a torn line).
 * Returns whether it did.
 */
export function sealTornLine(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch {
    return false;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return false;
    writeSync(fd, '\n', size);
    fsyncSync(fd);
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Removes the temporaries a killed writer left beside `file` (any pid); returns how many. */
export function removeStaleTemporaries(file: string): number {
  const dir = dirname(file);
  if (!existsSync(dir)) return 0;
  const prefix = `${basename(file)}.`;
  let removed = 0;
  for (const name of readdirSync(dir)) {
    if (name.startsWith(prefix) && TEMPORARY.test(name.slice(prefix.length - 1))) {
      rmSync(join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}
