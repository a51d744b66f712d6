import { defineConfig } from 'vitest/config';

/**
 * The tests `npm run mutation` (StrykerJS, stryker.config.json, then bench/mutation-scores.ts) runs against
 * each mutant — the one list of them: the focused tests of the mutated modules only, so a mutant costs
 * seconds on a shared machine (the whole unit project, with the CLI's tests that reach the same code, took
 * longer than Stryker's five-minute dry run allows). Add a mutate target's tests here with the target; they
 * must run in-process (a child process records no coverage, so Stryker would count its mutants uncovered).
 */
export default defineConfig({
  test: {
    include: [
      'test/unit/erasure*.test.ts',
      'test/unit/acknowledge-decision.test.ts',
      'test/unit/event-detail-bounds.test.ts',
      'test/unit/event-details.test.ts',
      'test/unit/events-schemas.test.ts',
      'test/unit/fetch-result-core.test.ts',
      'test/unit/publication-errors.test.ts',
      'test/unit/webhook-hints.test.ts',
      'test/integration/publication-record.test.ts',
      'test/unit/batch-get.test.ts',
      'test/unit/results-reconcile.test.ts',
      'test/unit/cli-analytics-sandbox.test.ts',
      'test/unit/local-analytics-engine.test.ts',
      'test/integration/results-reconcile-cli.test.ts',
    ],
    // The SDK-level marker scan runs the whole pipeline and covers nearly every mutant: it would run for
    // each of them and triple the run. The focused tests must kill the mutants on their own.
    exclude: ['test/unit/erasure-marker-scan.test.ts'],
    environment: 'node',
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
