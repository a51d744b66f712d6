/**
 * Builds a function bundle the way `PipelineFunction` has CDK build it, to measure it: the esbuild
 * options come from `LAMBDA_BUNDLING` (translated here, and refusing anything this translation does not
 * know, so a new bundling option cannot silently go unmeasured). Source maps are left out: what is
 * measured is the code Lambda loads. The size is information; the target is the cold import it costs
 * (`bench/bundles.ts`). Used by `test/infra/bundle-size.test.ts` and `bench/bundles.ts`.
 */
import * as path from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { LAMBDA_BUNDLING, PROJECT_ROOT } from './lambda-bundling';

/**
 * The esbuild options of `LAMBDA_BUNDLING`, for `entry` (relative to the repository root); `withoutAliases`
 * leaves those stand-ins out (the bench measures what each buys).
 */
export function esbuildOptionsFor(
  entry: string,
  outfile: string,
  withoutAliases: readonly string[] = [],
): BuildOptions {
  const known = new Set([
    'format',
    'target',
    'mainFields',
    'banner',
    'minify',
    'sourceMap',
    'externalModules',
    'esbuildArgs',
  ]);
  const unknown = Object.keys(LAMBDA_BUNDLING).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw new Error(`bundle-size does not translate the bundling option(s) ${unknown.join(', ')} yet`);
  }
  const alias: Record<string, string> = {};
  for (const value of LAMBDA_BUNDLING.esbuildArgs['--alias']) {
    const [from, to] = value.split('=');
    if (!withoutAliases.includes(from!)) alias[from!] = to!;
  }
  const translated = new Set(['--alias', '--legal-comments']);
  const untranslated = Object.keys(LAMBDA_BUNDLING.esbuildArgs).filter((flag) => !translated.has(flag));
  if (untranslated.length > 0) {
    throw new Error(`bundle-size does not translate the esbuild flag(s) ${untranslated.join(', ')} yet`);
  }
  return {
    entryPoints: [path.join(PROJECT_ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: LAMBDA_BUNDLING.format,
    target: LAMBDA_BUNDLING.target,
    mainFields: [...LAMBDA_BUNDLING.mainFields],
    banner: { js: LAMBDA_BUNDLING.banner },
    minify: LAMBDA_BUNDLING.minify,
    external: [...LAMBDA_BUNDLING.externalModules],
    alias,
    legalComments: LAMBDA_BUNDLING.esbuildArgs['--legal-comments'],
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'error',
  };
}

/** One measured bundle. */
export interface BundleMeasure {
  entry: string;
  /** Minified JavaScript, bytes (no source map). */
  bytes: number;
  /** Bytes in the output per package (node_modules name) or first-party folder, largest first. */
  parts: { name: string; bytes: number }[];
}

/**
 * Bundles `entry` with the function options (less the stand-ins `withoutAliases` names); writes `outfile`
 * when given (to import it), else only measures.
 */
export async function measureBundle(
  entry: string,
  outfile?: string,
  withoutAliases: readonly string[] = [],
): Promise<BundleMeasure> {
  const outPath = outfile ?? path.join(PROJECT_ROOT, 'cdk.out', 'bundle-size', 'index.mjs');
  const result = await build({
    ...esbuildOptionsFor(entry, outPath, withoutAliases),
    write: outfile !== undefined,
    metafile: true,
  });
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined);
  if (!output) throw new Error(`esbuild produced no bundle for ${entry}`);
  return { entry, bytes: output.bytes, parts: partsOf(output.inputs) };
}

function partsOf(inputs: Metafile['outputs'][string]['inputs']): { name: string; bytes: number }[] {
  const parts = new Map<string, number>();
  for (const [file, { bytesInOutput }] of Object.entries(inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    const name = pkg ? pkg[1]! : file.split('/').slice(0, 2).join('/');
    parts.set(name, (parts.get(name) ?? 0) + bytesInOutput);
  }
  return [...parts].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}
