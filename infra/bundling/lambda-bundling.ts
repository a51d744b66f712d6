/**
 * How every function is bundled, in one place beside the bundling tools that read it: the construct
 * (`infra/constructs/pipeline-function.ts`), the bundle measure (`bundle-size.ts`) and the package build.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * Repository root: entries, the lock file and tsconfig are resolved from here, whatever the cwd. In the
 * package this module is compiled into `dist/cdk/index.js`, also two levels below the package root, where
 * `dist/lambda/` (the prebuilt bundles) and `shared/events/schemas/` are.
 */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The SDK's default credential chain, which the bundles replace by its environment link. */
export const CREDENTIAL_CHAIN_PACKAGE = '@aws-sdk/credential-provider-node';

/**
 * How every function is bundled (esbuild through `NodejsFunction`, no Docker). Exported so the bundle
 * size check (`test/infra/bundle-size.test.ts`, `infra/bundling/bundle-size.ts`) builds with exactly
 * these options and cannot drift from what is deployed.
 */
export const LAMBDA_BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node24',
  mainFields: ['module', 'main'],
  // Some dependencies are CommonJS and call require(); give the ESM bundle one.
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  minify: true,
  sourceMap: true,
  // The runtime ships an AWS SDK v3, but its version moves under us; bundling the SDK pins the
  // exact versions that the unit and integration tests ran against.
  externalModules: [],
  // One stand-in for code a function bundle carries but Lambda never runs: the SDK's default credential
  // chain beyond the environment (infra/bundling/lambda-credentials.ts). Kept for the cold start it buys,
  // 12–15 ms of each function's import (docs/benchmarks.md, "Function bundles"), not for bytes.
  esbuildArgs: {
    // The only "legal" comments the dependencies carry are coverage pragmas (`v8 ignore … @preserve`).
    '--legal-comments': 'none',
    '--alias': [
      `${CREDENTIAL_CHAIN_PACKAGE}=${path.join(PROJECT_ROOT, 'infra', 'bundling', 'lambda-credentials.ts')}`,
    ],
  },
} as const satisfies BundlingOptions;
