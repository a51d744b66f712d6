/**
 * Waiting on a condition, the one way the tests do it: `vi.waitFor` retries the probe until it holds or the
 * time is up. A process that ends first fails the wait at once, naming what was awaited, rather than
 * after the whole timeout.
 */
import { vi } from 'vitest';

/** The first match of `pattern` in what `read` returns, once it shows (or fails when `ended` comes first). */
export async function waitForMatch(
  read: () => string,
  pattern: RegExp,
  options: { timeoutMs: number; intervalMs?: number; ended?: Promise<unknown> },
): Promise<RegExpExecArray> {
  const found = vi.waitFor(
    () => {
      const match = pattern.exec(read());
      if (!match) throw new Error(`no ${pattern} within ${options.timeoutMs} ms in:\n${read().slice(-3000)}`);
      return match;
    },
    { timeout: options.timeoutMs, interval: options.intervalMs ?? 100 },
  );
  if (options.ended === undefined) return found;
  // The loser of the race must not end as an unhandled rejection.
  found.catch(() => undefined);
  const endedFirst = options.ended.then(() => {
    const match = pattern.exec(read());
    if (match) return match;
    throw new Error(`the process ended with no ${pattern} in its output:\n${read().slice(-3000)}`);
  });
  return Promise.race([found, endedFirst]);
}
