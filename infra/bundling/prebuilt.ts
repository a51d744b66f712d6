/**
 * Where a function's code comes from. In the repository the construct runs from its TypeScript sources
 * and `NodejsFunction` bundles each handler with esbuild at synth time. In the package (`idv-pipeline/cdk`,
 * compiled JavaScript) there is no TypeScript, tsx or esbuild: the handlers were bundled when the package
 * was built (`npm run build:package`, the same `LAMBDA_BUNDLING` options) into `dist/lambda/<name>/`, and
 * the construct deploys those with `Code.fromAsset`.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when this module runs from its TypeScript source (the repository), false in the compiled package. */
export const RUNNING_FROM_SOURCES = fileURLToPath(import.meta.url).endsWith('.ts');

/** Folder of the prebuilt bundles, relative to the package root. */
export const LAMBDA_BUNDLE_FOLDER = path.join('dist', 'lambda');

/** A handler's bundle name: `functions/poll/handler.ts` → `poll`. */
export function lambdaBundleName(entry: string): string {
  return path.basename(path.dirname(entry));
}

/** Thrown when the compiled construct finds no prebuilt bundle for a handler (a broken package). */
export class MissingLambdaBundleError extends Error {
  constructor(entry: string, dir: string) {
    super(`idv-pipeline: no prebuilt bundle of ${entry} at ${dir}; the package is incomplete, reinstall it`);
    this.name = 'MissingLambdaBundleError';
  }
}

/**
 * The folder of `entry`'s prebuilt bundle (`index.mjs` and its source map) when running compiled, or
 * `undefined` from the sources (bundle at synth time).
 */
export function prebuiltBundleDir(packageRoot: string, entry: string): string | undefined {
  if (RUNNING_FROM_SOURCES) return undefined;
  const dir = path.join(packageRoot, LAMBDA_BUNDLE_FOLDER, lambdaBundleName(entry));
  if (!existsSync(path.join(dir, 'index.mjs'))) throw new MissingLambdaBundleError(entry, dir);
  return dir;
}
