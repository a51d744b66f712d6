/**
 * The CLI start bench's verdicts and command line (bench/cli-start.ts): only the CLI's own entry is held
 * to the target; npm run and npx are information.
 */
import { describe, expect, it } from 'vitest';
import { CLI_START_TARGET_MS, cliStartOptions, cliStartSummaryRows } from '../../bench/cli-start';

describe('CLI start bench', () => {
  it('judges the CLI’s own entry against the target and reports the others', () => {
    // Act
    const rows = cliStartSummaryRows([
      { way: 'node bin/idv.mjs', judged: true, ms: { min: 700, median: CLI_START_TARGET_MS + 1, max: 900 } },
      { way: 'npx --no-install idv', judged: false, ms: { min: 2000, median: 2100, max: 2200 } },
    ]);

    // Assess
    expect(rows.map((r) => [r.bench, r.value, r.verdict])).toEqual([
      ['cli node bin/idv.mjs', '700/801/900', 'NOT MET'],
      ['cli npx --no-install idv', '2000/2100/2200', 'no target'],
    ]);
    expect(
      cliStartSummaryRows([{ way: 'w', judged: true, ms: { min: 1, median: 800, max: 2 } }])[0]?.verdict,
    ).toBe('met');
  });

  it('takes --runs N and refuses anything else with its usage', () => {
    expect(cliStartOptions([])).toEqual({ kind: 'run', runs: 5 });
    expect(cliStartOptions(['--runs', '3'])).toEqual({ kind: 'run', runs: 3 });
    expect(cliStartOptions(['--runs', '0'])).toMatchObject({ kind: 'usage' });
    expect(cliStartOptions(['--runs', 'x'])).toMatchObject({ kind: 'usage' });
    expect(cliStartOptions(['--fast'])).toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('usage:'),
    });
  });
});
