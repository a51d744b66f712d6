/**
 * The owner-only directories of the emulators' unix sockets (local/local-aws.ts): one per run, in the
 * temporary directory (a socket path must stay short), named after the process
 * (`idv-aws-<pid>-XXXXXX`). A run closed normally removes its own; one killed with SIGKILL cannot, so each
 * start removes the directories of this user whose run is gone: its process ended, or — a directory
 * named by an older version, without a pid — it has sockets and none of them accepts a connection.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownTempDirs, processAlive } from './owner-only';

/** Prefix of a socket directory in the temporary directory. */
export const SOCKET_DIR_PREFIX = 'idv-aws-';

/** A new owner-only (0700, as mkdtemp makes it) socket directory for this process. */
export function newSocketDir(): string {
  return mkdtempSync(join(tmpdir(), `${SOCKET_DIR_PREFIX}${process.pid}-`));
}

/** Removes this user's socket directories whose run is gone; returns their paths. */
export async function removeDeadSocketDirs(): Promise<string[]> {
  const removed: string[] = [];
  for (const { path, rest } of ownTempDirs(SOCKET_DIR_PREFIX)) {
    const named = /^(\d+)-[A-Za-z0-9]{6}$/.exec(rest);
    const dead = named
      ? !processAlive(Number(named[1]))
      : /^[A-Za-z0-9]{6}$/.test(rest) && !(await anySocketAnswers(path));
    if (!dead) continue;
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

/**
 * Whether a run may still use `dir`: any `*.sock` in it accepts a connection, or it has no socket yet (a
 * run of an older version that is starting).
 */
async function anySocketAnswers(dir: string): Promise<boolean> {
  let sockets: string[];
  try {
    sockets = readdirSync(dir).filter((name) => name.endsWith('.sock'));
  } catch {
    return false;
  }
  if (sockets.length === 0) return true;
  for (const socket of sockets) {
    const answers = await new Promise<boolean>((resolve) => {
      const connection = connect(join(dir, socket));
      const timer = setTimeout(() => {
        connection.destroy();
        resolve(true); // No refusal: something holds it.
      }, 1000);
      connection.once('connect', () => {
        clearTimeout(timer);
        connection.destroy();
        resolve(true);
      });
      connection.once('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (answers) return true;
  }
  return false;
}
