/**
 * The simulator an `idv` process test talks to: started for the `demo` client, with the environment
 * that points `idv` at it and a temporary working directory holding the files the test names.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import type { SimulatorOptions } from '../../simulator/types';

/** A running simulator, the `idv` environment for it, and the working directory; `close` ends both. */
export interface CliSimulator {
  readonly sim: RunningSimulator;
  readonly env: Record<string, string>;
  readonly dir: string;
  close(): Promise<void>;
}

/**
 * Starts the simulator with `options` for client `demo` / `demo-secret`, and writes `files` (name →
 * content) into a new temporary directory whose name starts with `prefix`.
 */
export async function startCliSimulator(
  options: Omit<SimulatorOptions, 'clientId' | 'clientSecret'>,
  prefix: string,
  files: Record<string, string | Uint8Array>,
): Promise<CliSimulator> {
  const sim = await startSimulator({ clientId: 'demo', clientSecret: 'demo-secret', ...options });
  const env = { IDV_BASE_URL: sim.url, IDV_CLIENT_ID: 'demo', IDV_CLIENT_SECRET: 'demo-secret' };
  const dir = await mkdtemp(join(tmpdir(), prefix));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return {
    sim,
    env,
    dir,
    close: async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
