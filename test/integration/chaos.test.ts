/**
 * The chaos suite, small and seeded (`npm run chaos` is the full size): real handlers and emulators
 * against service faults, crashes between the steps of fetch-result, duplicate deliveries and two
 * consumers; every result stored once, byte-identical and announced, the DLQ empty; results redriven
 * after a 404 end UNAVAILABLE, results redriven after an erasure stay erased; nothing enqueued is
 * unaccounted for (`idv results reconcile`).
 */
import { describe, expect, it } from 'vitest';
import { runChaos } from '../../bench/support/chaos';
import { runKillRestart } from '../../bench/support/chaos-kill';

describe('chaos suite (small)', () => {
  it('stores and announces every result once, byte-identical, with nothing in the DLQ', async () => {
    // Act
    const figures = await runChaos({ results: 40, unknown: 4, seed: 14, timeoutMs: 90_000 });

    // Assess
    expect(figures.violations).toEqual([]);
    expect(figures.results).toBe(40);
    expect(figures.dlq).toBe(0);
    // Redrives after a 404 and after an erasure: each ended UNAVAILABLE or stayed erased (no violation
    // above), and every enqueued resultId ended somewhere (idv results reconcile's check).
    expect([figures.gone, figures.erased]).toEqual([2, 2]);
    expect(figures.unaccounted).toEqual([]);
    expect(figures.eventsPerResult.mean).toBeGreaterThanOrEqual(1);
    expect(Object.values(figures.crashes).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  }, 120_000);
});

describe('chaos suite: SIGKILL of a local run', () => {
  it('leaves every result stored and announced after a restart with --once', async () => {
    // Act
    const figures = await runKillRestart({ results: 12, seed: 14 });

    // Assess
    expect(figures.missing).toEqual([]);
    expect(figures.restartExit).toBe(0);
    expect(figures.dlq).toBe(0);
    expect(figures.getsAtKill).toBeGreaterThan(0);
    // `idv results reconcile --local` on the data directory: nothing enqueued ended nowhere.
    expect(figures.reconcile).toEqual({ exit: 0, unaccounted: [] });
  }, 150_000);
});
