/**
 * Builds a function bundle the way `PipelineFunction` has CDK build it, to measure it: the esbuild
 * options come from `LAMBDA_BUNDLING` (translated here, and refusing anything this translation does not
 * know, so a new bundling option cannot silently go unmeasured). Source maps are left out: the limit is
 * on the code Lambda loads. Used by `test/infra/bundle-size.test.ts` and `bench/bundles.ts`.
 */
import * as path from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { LAMBDA_BUNDLING, PROJECT_ROOT } from '../constructs/pipeline-function';

/** Largest minified bundle a function may have (KiB of JavaScript, source map aside): issue 10, item 6. */
export const MAX_BUNDLE_KIB = 500;

/**
 * Functions allowed above {@link MAX_BUNDLE_KIB}, each with its own ceiling, a ratchet: no function bundle
 * may pass 600 KiB. fetch-result measures about 598 KiB: the AWS SDK it needs (S3 with multipart and
 * checksums, DynamoDB, EventBridge, Secrets Manager: ~430 KiB, 66 KiB of it the S3 schemas, which esbuild
 * keeps whole, computed keys or not) plus the X-Ray SDK that the Powertools tracer loads where tracing is
 * on (aws-xray-sdk-core and cls-hooked: ~80 KiB, loaded late, `shared/tracing.ts`). The functions bundle
 * no zod (the responses and messages they read are parsed by hand), no semver and no typed-array LRU
 * (stand-ins, `semver-gte.ts`, `lru-cache.ts`), and of the SDK's credential chain only the environment
 * (`lambda-credentials.ts`). Externalising the SDK would make the bundle ~125 KiB smaller but measured
 * 1.5–3× slower to import than the bundle (docs/deploy.md, "Bundle size"), so it is not the way; webhook
 * and poll stay under the limit itself.
 */
export const BUNDLE_CEILINGS_KIB: Readonly<Record<string, number>> = {
  'functions/fetch-result/handler.ts': 600,
};

/** The ceiling that applies to `entry` (KiB). */
export function bundleCeilingKiB(entry: string): number {
  return BUNDLE_CEILINGS_KIB[entry] ?? MAX_BUNDLE_KIB;
}

/** The esbuild options of `LAMBDA_BUNDLING`, for `entry` (relative to the repository root). */
export function esbuildOptionsFor(entry: string, outfile: string): BuildOptions {
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
    alias[from!] = to!;
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

/** Bundles `entry` with the function options; writes `outfile` when given (to import it), else only measures. */
export async function measureBundle(entry: string, outfile?: string): Promise<BundleMeasure> {
  const result = await build({
    ...esbuildOptionsFor(entry, outfile ?? path.join(PROJECT_ROOT, 'cdk.out', 'bundle-size', 'index.mjs')),
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
