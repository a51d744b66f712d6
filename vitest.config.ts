import { defineConfig } from 'vitest/config';

/**
 * Three projects: `unit` (no network, no child processes), `integration` (real HTTP against the
 * simulator and the local AWS emulators, all on port 0) and `infra` (CDK template assertions).
 * The summary reporter prints the plain `N passed, N failed` line that CI reads.
 */
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // The AWS SDK's Node-version notice would repeat in every worker's output when a run uses a Node older than
    // the one the project brings (`node` in devDependencies puts Node 24, the functions' runtime, on `npm run`'s PATH).
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
