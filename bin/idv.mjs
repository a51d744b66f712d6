#!/usr/bin/env node
// Entry of `npx idv` (package.json "bin"). In the installed package (no TypeScript sources) it runs the
// compiled CLI that `npm run build:package` wrote to dist/cli/. In the repository it runs an esbuild bundle
// of bin/idv.ts kept in node_modules/.cache/idv-cli/, rebuilt on demand when one of the files it was built
// from changed (tsx compiled every module on every start: about 1.2 s before the first line of output).
// Should the bundle fail to build, tsx runs the sources as before. bin/idv.ts itself silences the AWS SDK's
// Node-version warning, for this entry and `npm run idv` alike.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Packages left to Node's loader: native addons, and packages that read files beside their modules. */
const EXTERNAL = [
  '@duckdb/*',
  'classic-level',
  'dynalite',
  's3rver',
  's3rver/*',
  'fauxqs',
  'aws-cdk-lib',
  'aws-cdk-lib/*',
  'esbuild',
  'tsx',
  'tsx/*',
];

const source = new URL('./idv.ts', import.meta.url);
if (!existsSync(source)) {
  await import(new URL('../dist/cli/idv.mjs', import.meta.url).href);
} else {
  const bundled = await freshBundle(fileURLToPath(new URL('..', import.meta.url))).catch((error) => {
    if (process.env.IDV_DEBUG === '1') process.stderr.write(`idv: no CLI bundle (${error}); running tsx\n`);
    return undefined;
  });
  if (bundled) {
    // V8's code cache of every module loaded (Node 22.1+): the SDK's and other packages' modules load
    // without being compiled again on each start.
    module.enableCompileCache?.(join(dirname(bundled), '..', 'compile-cache'));
    await import(pathToFileURL(bundled).href);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    await import(source.href);
  }
}

/**
 * The path of an up-to-date bundle of bin/idv.ts. `current.json` names the bundle's folder, when it was
 * built and every file it was built from (esbuild's metafile); a file changed since, or a new
 * package-lock.json, makes a new folder. The pointer is replaced atomically, so CLIs started at the same
 * moment each run a complete bundle.
 */
async function freshBundle(root) {
  const cache = join(root, 'node_modules', '.cache', 'idv-cli');
  const pointer = join(cache, 'current.json');
  const current = readPointer(pointer);
  if (current && isFresh(root, current)) return join(cache, current.dir, 'idv.js');

  const { build } = await import('esbuild');
  const builtAt = Date.now();
  const dir = `b-${builtAt}-${process.pid}`;
  const outdir = join(cache, dir);
  const result = await build({
    entryPoints: [join(root, 'bin', 'idv.ts')],
    outdir,
    bundle: true,
    // Chunks per dynamic import, so a command loads only its own modules and packages.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Packages are bundled too (one file parses faster than the SDK's hundreds), except those that load
    // native code or files next to their modules.
    external: EXTERNAL,
    sourcemap: true,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    plugins: [sourceUrls(root)],
  });
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/'));
  mkdirSync(cache, { recursive: true });
  const next = { dir, builtAt, inputs: [...inputs, 'package-lock.json'], previous: current?.dir };
  writeFileSync(`${pointer}.${process.pid}`, JSON.stringify(next));
  renameSync(`${pointer}.${process.pid}`, pointer);
  // The bundle before is left to a CLI that may still be starting from it; the one before that goes.
  if (current?.previous && current.previous !== dir) {
    rmSync(join(cache, current.previous), { recursive: true, force: true });
  }
  return join(outdir, 'idv.js');
}

function readPointer(file) {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8'));
    return typeof value.dir === 'string' && Array.isArray(value.inputs) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isFresh(root, current) {
  for (const file of current.inputs) {
    try {
      if (statSync(join(root, file)).mtimeMs > current.builtAt) return false;
    } catch {
      return false;
    }
  }
  return existsSync(join(root, 'node_modules', '.cache', 'idv-cli', current.dir, 'idv.js'));
}

/**
 * Keeps `import.meta.url` of every repository module its own file's URL: the CLI reads files next to its
 * modules (package.json, the analytics queries), which must be found from the bundle's folder too.
 */
function sourceUrls(root) {
  return {
    name: 'source-urls',
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, (args) => {
        if (relative(root, args.path).startsWith('node_modules')) return undefined;
        const text = readFileSync(args.path, 'utf8');
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return {
          contents: text.replaceAll('import.meta.url', url),
          loader: 'ts',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}
