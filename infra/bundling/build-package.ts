/**
 * Builds what `npm pack` ships (`npm run build:package`, run by `prepack`), into `dist/`:
 *
 * - `dist/{cdk,client,events}/index.js` and `index.cjs`: the subpath exports, each one ESM file and one
 *   CommonJS file of this repository's code (an app that `cdk init` generates is CommonJS, and so are
 *   many services). Packages stay external (`aws-cdk-lib` and `constructs` are peer dependencies; one
 *   copy of each, or `instanceof` breaks), except in the client's CommonJS file, which carries its own;
 *   an import of a package whose names are all unused is dropped, so `idv-pipeline/cdk` loads no SDK;
 * - `dist/cli/idv.mjs`: the `idv` CLI, run by `bin/idv.mjs` where there is no TypeScript source, with its
 *   dependencies inside (minified, no source map) except DuckDB, an optional peer loaded on first use;
 * - `dist/lambda/<name>/index.mjs` (+ map): every handler bundled with `LAMBDA_BUNDLING`, the options
 *   `NodejsFunction` uses in the repository, so the package deploys them with `Code.fromAsset`;
 * - `dist/types/…`: declarations of the three library entries (tsc), relative imports ending in `.js`
 *   so that `node16`/`nodenext` resolution finds them as well as `bundler`; `dist/types-cjs/…` the same
 *   files under a `{"type":"commonjs"}` package.json, the `types` of the `require` condition (TypeScript
 *   reads a declaration's module format from the nearest package.json) and of `typesVersions`, which
 *   the `node10` resolution of `module: commonjs` reads instead of `exports`.
 *
 * Files read at run time next to a module (the saved SQL of `shared/analytics/queries.ts`) are copied
 * next to every bundle that contains it.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import ts from 'typescript';
import { esbuildOptionsFor } from './bundle-size';
import { PROJECT_ROOT } from './lambda-bundling';
import { LAMBDA_BUNDLE_FOLDER, lambdaBundleName } from './prebuilt';

const DIST = path.join(PROJECT_ROOT, 'dist');

/** The library entries: subpath → source. */
export const LIBRARY_ENTRIES = {
  cdk: 'infra/index.ts',
  client: 'shared/client/index.ts',
  events: 'shared/events/index.ts',
} as const;

/** Handlers deployed as Lambda functions (the `entry` of every PipelineFunction). */
export const HANDLER_ENTRIES = [
  'functions/webhook/handler.ts',
  'functions/poll/handler.ts',
  'functions/fetch-result/handler.ts',
  'functions/projector/transform.ts',
  'functions/retention-check/handler.ts',
] as const;

/** Files a module reads from its own folder at run time: source module → files (globs of one folder). */
const RUNTIME_FILES: Readonly<Record<string, readonly string[]>> = {
  'shared/analytics/queries.ts': ['shared/analytics/queries', 'shared/analytics/results-view.sql'],
};

/**
 * Packages only the repository's development setup has (the local run's emulators): the compiled CLI
 * gets stand-ins that say so when called, so that `idv` loads where only production dependencies are.
 */
const DEV_ONLY_STUBS: Readonly<Record<string, string>> = {
  dynalite: 'export default missing;',
  s3rver: 'export default missing;',
  fauxqs: 'export const buildApp = missing;',
  'classic-level': 'export const ClassicLevel = missing;',
};

/**
 * Packages the CLI needs only for some commands, which an install may lack (optional peer dependencies):
 * package → the names the CLI imports. Each becomes a stand-in that loads the package on first use and,
 * where it is missing, says which package to install.
 */
const LOADED_ON_FIRST_USE: Readonly<Record<string, readonly string[]>> = {
  '@duckdb/node-api': ['DuckDBInstance', 'StatementType'],
};

function loadedOnFirstUse(): Plugin {
  const filter = new RegExp(`^(${Object.keys(LOADED_ON_FIRST_USE).join('|')})$`);
  const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };
  return {
    name: 'loaded-on-first-use',
    setup(builder) {
      builder.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'first-use' }));
      builder.onLoad({ filter: /.*/, namespace: 'first-use' }, (args) => {
        const install = `npm install ${args.path}@${manifest.peerDependencies[args.path] ?? 'latest'}`;
        return {
          contents: `import { createRequire as idvCreateRequire } from 'node:module';
let loaded;
function load() {
  if (loaded === undefined) {
    try {
      loaded = idvCreateRequire(import.meta.url)(${JSON.stringify(args.path)});
    } catch (cause) {
      throw new Error(${JSON.stringify(`this command needs ${args.path}, an optional dependency of idv-pipeline: ${install}`)}, { cause });
    }
  }
  return loaded;
}
function lazy(name) {
  return new Proxy(function () {}, {
    get: (_, key) => Reflect.get(load()[name], key),
    has: (_, key) => key in load()[name],
    construct: (_, args) => Reflect.construct(load()[name], args),
    apply: (_, self, args) => Reflect.apply(load()[name], self, args),
  });
}
${(LOADED_ON_FIRST_USE[args.path] ?? []).map((name) => `export const ${name} = lazy(${JSON.stringify(name)});`).join('\n')}
`,
          loader: 'js',
          resolveDir: PROJECT_ROOT,
        };
      });
    },
  };
}

function devOnlyStubs(): Plugin {
  const filter = new RegExp(`^(${Object.keys(DEV_ONLY_STUBS).join('|')})$`);
  return {
    name: 'dev-only-stubs',
    setup(builder) {
      builder.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'dev-only' }));
      builder.onLoad({ filter: /.*/, namespace: 'dev-only' }, (args) => ({
        contents:
          'function missing() { throw new Error(' +
          JSON.stringify(
            `${args.path} is a development dependency of idv-pipeline: the local emulators run from a clone of the repository (npm start)`,
          ) +
          '); }\n' +
          DEV_ONLY_STUBS[args.path],
        loader: 'js',
      }));
    },
  };
}

/**
 * Every bare import is an external package, and one without side effects: esbuild then drops an import
 * whose names the bundle never uses (the cdk entry reaches shared modules that import the AWS SDK only
 * for code the construct does not run).
 */
function externalPackages(): Plugin {
  return {
    name: 'external-packages',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) =>
        args.kind === 'entry-point' ? undefined : { path: args.path, external: true, sideEffects: false },
      );
    },
  };
}

const LIBRARY_OPTIONS: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  plugins: [externalPackages()],
  // The maps of the library files point into sources the package does not ship: they serve no user.
  sourcemap: false,
  absWorkingDir: PROJECT_ROOT,
  logLevel: 'error',
  metafile: true,
};

/**
 * CommonJS has no `import.meta`: the modules that find files next to themselves (`PROJECT_ROOT`, the
 * saved queries) read the file's URL from `__filename` instead.
 */
const COMMONJS_OPTIONS: BuildOptions = {
  format: 'cjs',
  define: { 'import.meta.url': '__idvModuleUrl' },
  banner: { js: "const __idvModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
};

/** Builds `dist/` from scratch. */
export async function buildPackage(): Promise<void> {
  rmSync(DIST, { recursive: true, force: true });

  for (const [name, entry] of Object.entries(LIBRARY_ENTRIES)) {
    await bundle({ ...LIBRARY_OPTIONS, entryPoints: [entry], outfile: path.join(DIST, name, 'index.js') });
    await bundle({
      ...LIBRARY_OPTIONS,
      ...COMMONJS_OPTIONS,
      // The client's CommonJS file carries its dependencies, because esbuild's Node interop gives zod's
      // ESM locale default export to a CommonJS caller as the module object.
      ...(name === 'client' && { plugins: [] }),
      entryPoints: [entry],
      outfile: path.join(DIST, name, 'index.cjs'),
    });
  }

  // The CLI carries its dependencies (the AWS SDK among them), so that an install for the client or the
  // construct needs none of them; only DuckDB, a native package, stays outside and loads on first use.
  await bundle({
    ...LIBRARY_OPTIONS,
    plugins: [devOnlyStubs(), loadedOnFirstUse()],
    minify: true,
    entryPoints: ['bin/idv.ts'],
    outfile: path.join(DIST, 'cli', 'idv.mjs'),
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });

  for (const entry of HANDLER_ENTRIES) {
    const outfile = path.join(PROJECT_ROOT, LAMBDA_BUNDLE_FOLDER, lambdaBundleName(entry), 'index.mjs');
    await build({ ...esbuildOptionsFor(entry, outfile), sourcemap: true });
  }

  emitDeclarations();
}

/** One bundle, plus the run-time files of the modules it contains. */
async function bundle(options: BuildOptions): Promise<void> {
  const result = await build(options);
  const outdir = path.dirname(options.outfile!);
  for (const input of Object.keys(result.metafile?.inputs ?? {})) {
    for (const source of RUNTIME_FILES[input] ?? []) {
      cpSync(path.join(PROJECT_ROOT, source), path.join(outdir, path.basename(source)), { recursive: true });
    }
  }
}

/** `.d.ts` of the library entries and everything they reach, into `dist/types/`. */
function emitDeclarations(): void {
  const configFile = ts.readConfigFile(path.join(PROJECT_ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, PROJECT_ROOT);
  const outDir = path.join(DIST, 'types');
  const program = ts.createProgram(
    Object.values(LIBRARY_ENTRIES).map((entry) => path.join(PROJECT_ROOT, entry)),
    {
      ...parsed.options,
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      outDir,
      rootDir: PROJECT_ROOT,
    },
  );
  const emitted = program.emit();
  const problems = ts.getPreEmitDiagnostics(program).concat(emitted.diagnostics);
  if (problems.length > 0) {
    throw new Error(ts.formatDiagnostics(problems, ts.createCompilerHost({})));
  }
  for (const file of filesUnder(outDir)) {
    if (file.endsWith('.d.ts')) writeFileSync(file, withJsExtensions(file, readFileSync(file, 'utf8')));
  }
  const commonjs = path.join(DIST, 'types-cjs');
  cpSync(outDir, commonjs, { recursive: true });
  writeFileSync(path.join(commonjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
}

/**
 * `from './x'`, `import('./x')` and the side-effect `import './x'` → `./x.js` (or `./x/index.js`), as Node's
 * ESM resolution and `nodenext` need (an ESM consumer's tsc otherwise stops at TS2834, skipLibCheck off).
 */
function withJsExtensions(file: string, text: string): string {
  return text.replace(
    /(from\s+|import\s*\(\s*|import\s+)(['"])(\.{1,2}\/[^'"]*)\2/g,
    (whole, lead, quote, spec) => {
      if (/\.(js|json)$/.test(spec)) return whole;
      const target = path.resolve(path.dirname(file), spec);
      const resolved = existsSync(`${target}.d.ts`)
        ? `${spec}.js`
        : existsSync(path.join(target, 'index.d.ts'))
          ? `${spec}/index.js`
          : spec;
      return `${lead}${quote}${resolved}${quote}`;
    },
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await buildPackage();
  process.stdout.write(`idv-pipeline: built ${path.relative(process.cwd(), DIST) || DIST}\n`);
}
