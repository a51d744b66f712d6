import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalAws } from './local-aws';
import type { PipelineResources } from './pipeline-resources';

/** File in the data directory through which `idv … --local` finds a running `npm start`. */
export const STACK_FILE = 'stack.json';

/** What `npm start` leaves in `<dataDir>/stack.json` (no secrets: only names, ports and fake keys). */
export interface StackFile {
  pid: number;
  startedAt: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  endpoints: LocalAws['endpoints'];
  resources: PipelineResources;
}

/** Reads `<dataDir>/stack.json` when the process that wrote it is still alive. */
export function readLiveStack(dataDir: string): StackFile | undefined {
  const file = join(dataDir, STACK_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const stack = JSON.parse(readFileSync(file, 'utf8')) as StackFile;
    process.kill(stack.pid, 0);
    return stack;
  } catch {
    return undefined;
  }
}
