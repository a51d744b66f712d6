import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file';
import type { LocalAws } from './local-aws';
import { processStartTime } from './owner-only';

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
  /** The simulator `npm start` runs (none with --service-url): its URL, per-run credentials, `/__sim` secret. */
  simulator?: { url: string; clientId: string; clientSecret: string; controlSecret: string };
}

/**
 * Writes the stack file of a running `npm start` into `dataDir`; returns its path. Owner-only whatever the
 * umask: it holds the run's key pair (the one way into its emulators), the console's secret address and
 * the simulator's per-run credentials and control secret.
 */
export function writeStack(
  dataDir: string,
  aws: LocalAws,
  resources: PipelineResources,
  consoleUrl: string,
  simulator: StackFile['simulator'],
): string {
  const stack: StackFile & { consoleUrl: string } = {
    pid: process.pid,
    pidStartTime: processStartTime(process.pid),
    startedAt: new Date().toISOString(),
    region: aws.region,
    credentials: aws.credentials,
    endpoints: aws.endpoints,
    resources,
    consoleUrl,
    ...(simulator && { simulator }),
  };
  const file = join(dataDir, STACK_FILE);
  // Atomic: a kill mid-write never leaves a torn stack file for the next start or command to misread.
  writeFileAtomic(file, JSON.stringify(stack, null, 2));
  return file;
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
