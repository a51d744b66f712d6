/**
 * The set-up of integration tests that import the real handler modules (functions/…/handler.ts) against
 * the emulators: every line the handlers print kept in memory, the environment the modules read on import,
 * and the webhook path secret the local run serves.
 */
import { vi } from 'vitest';
import { readSecret } from '../../local/service-access';
import { type PipelineEnvSettings, pipelineEnv } from './local-aws';
import type { LocalStore } from './local-store';

/**
 * Keeps every line written to stdout, stderr or the console in `into` instead of printing it: the handlers
 * log through process.stdout (Powertools) or console. Undo with `vi.restoreAllMocks()`.
 */
export function captureOutput(into: string[]): void {
  const keep = (chunk: unknown) => {
    into.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(keep as never);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep as never);
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => keep(args.map(String).join(' ')));
  }
}

/** Puts the emulators' endpoints and the pipeline's settings in process.env, before a handler module is imported. */
export function setHandlerEnv(local: LocalStore, settings: PipelineEnvSettings): void {
  Object.assign(process.env, local.aws.env(), pipelineEnv(local.resources, settings));
}

/** The webhook path secret (its current version), as the local run reads it. */
export function webhookSecretOf(local: LocalStore): Promise<string> {
  return readSecret(local.aws, local.resources.webhookSecretId);
}
