/**
 * The hostile-service suite, small (`npm run chaos -- --hostile` is the full size, with memory figures):
 * each cheap attack of bench/support/hostile-attacks.ts against the real handlers, bundled, in processes
 * of their own, with the local emulators and a hostile service double on 127.0.0.1. Every attack must end
 * in its named outcome (a 404 UNAVAILABLE, a 5xx retried, a stored result reading back with every
 * checksum, a refusal with a reason code), and none of the personal data, tokens or client credentials
 * the service planted may appear in a log line, an error or an event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACKS } from '../../bench/support/hostile-attacks';
import { type HostileHarness, startHostileHarness } from '../../bench/support/hostile-runner';

describe('hostile service (small)', () => {
  let harness: HostileHarness;

  beforeAll(async () => {
    harness = await startHostileHarness();
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  for (const attack of ATTACKS.filter((a) => a.cheap)) {
    it(`${attack.name} (${attack.what}): ${attack.expect}, no planted string in logs, errors or events`, async () => {
      // Act
      const row = await harness.run(attack, 'quick', { capMs: 30_000, checkMemory: false });

      // Assess
      expect(row.seen).toEqual([]);
      expect(row.outcome).not.toMatch(/^(crashed|nothing|failed)/);
      expect(row.violations).toEqual([]);
    }, 60_000);
  }
});
