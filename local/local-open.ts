/**
 * Opening a local data directory for one CLI command, within a stated bound. A command with no running
 * `npm start` starts the emulators on the persisted data itself; that must end, with a clear error when it
 * cannot: another process may still hold the data (an `npm start` shutting down, another command), or the
 * machine may be loaded. So the DynamoDB data's lock is waited for (LevelDB allows one process), the whole
 * start is bounded ({@link OPEN_DEADLINE_MS}), every SDK request to the emulators is given up after 30 s
 * without a byte (the clients' socket timeout, shared/aws-clients.ts) and the close is bounded too
 * ({@link CLOSE_DEADLINE_MS}).
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';

/** Longest time to open the local data (wait for its lock, start the emulators, ensure the resources). */
export const OPEN_DEADLINE_MS = 60_000;
/** Longest time to stop the emulators a command started (and compact the DynamoDB data). */
export const CLOSE_DEADLINE_MS = 20_000;
/** Longest wait for a running `npm start` to answer at all before a command gives up on it. */
export const RUN_ANSWER_MS = 5_000;
/** How often the lock is tried again while another process holds it. */
const LOCK_RETRY_MS = 250;

/** The local data could not be opened (or closed) within its bound; the message says what to do. */
export class LocalDataUnavailableError extends Error {
  override readonly name = 'LocalDataUnavailableError';
}

/**
 * Resolves once no other process holds the DynamoDB data's LevelDB lock in `dataDir` (a process killed
 * with SIGKILL held none: the kernel drops its lock), or rejects when `deadline` (epoch ms) passes first.
 */
export async function waitForDataLock(dataDir: string, deadline: number): Promise<void> {
  const path = join(dataDir, 'dynamodb');
  if (!existsSync(join(path, 'LOCK'))) return;
  for (;;) {
    const db = new ClassicLevel(path, { createIfMissing: false });
    try {
      await db.open();
      await db.close();
      return;
    } catch (error) {
      await db.close().catch(() => undefined);
      if (!isLocked(error)) return; // Not ours to judge here: the emulator reports what is wrong.
    }
    if (Date.now() + LOCK_RETRY_MS > deadline) {
      throw new LocalDataUnavailableError(
        `the local data in ${dataDir} is in use by another process (an \`npm start\` still stopping, or another command) and was not released within ${OPEN_DEADLINE_MS / 1000} s: try again when it has stopped`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

function isLocked(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return (error as { code?: unknown })?.code === 'LEVEL_LOCKED' || cause?.code === 'LEVEL_LOCKED';
}

/**
 * `work` bounded by `ms`: its value, or a {@link LocalDataUnavailableError} saying `what` took too long.
 * `onLate` cleans up what the late work leaves when it ends after all.
 */
export async function withinDeadline<T>(
  what: string,
  ms: number,
  work: Promise<T>,
  onLate?: (value: T) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LocalDataUnavailableError(`${what} took more than ${ms / 1000} s: stopped`)),
      ms,
    );
  });
  try {
    return await Promise.race([work, late]);
  } catch (error) {
    if (error instanceof LocalDataUnavailableError && onLate) {
      work.then(onLate, () => undefined);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once the run of `pid` answers anything at `endpoint` (one of its fronts: an unsigned request is
 * refused at once by a live run); rejects within `ms` when it does not — a run stopped with Ctrl-Z or
 * SIGSTOP, or hung, accepts the connection and never answers, and every SDK request would wait out its
 * socket timeout and its retries (minutes) before saying anything.
 */
export function probeRun(endpoint: string, pid: number, ms = RUN_ANSWER_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    const notAnswering = () =>
      new LocalDataUnavailableError(
        `the local run (pid ${pid}) is not answering: it may be stopped (Ctrl-Z: resume it with \`fg\` or \`kill -CONT ${pid}\`) or hung; stop it (Ctrl-C, or \`kill ${pid}\`) and this command opens the data itself`,
      );
    const req = request(endpoint, { method: 'GET', agent: false, timeout: ms }, (res) => {
      res.resume();
      resolve();
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(notAnswering());
    }, ms);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      clearTimeout(timer);
      reject(notAnswering());
    });
    req.end();
  });
}
