/**
 * Function bundle benchmark: every function bundled as CDK bundles it (`infra/bundling/bundle-size.ts`,
 * options from `LAMBDA_BUNDLING`), its **import time** — a cold `import()` of the bundle in a fresh Node
 * process (nothing cached, configuration in the environment, no network), median of several processes:
 * the part of a Lambda cold start the bundle decides — and, as information, its minified size and largest
 * parts. For each stand-in the bundling puts in place of an SDK internal (an esbuild alias), the same
 * function is also bundled without it and imported in turn with the real bundle, so the figure says what
 * the stand-in buys in milliseconds (docs/benchmarks.md: a stand-in stays only if it buys 10 ms or more).
 *
 * `npx tsx bench/bundles.ts [--imports N]`; part of `npm run bench` (without `--only`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureBundle } from '../infra/bundling/bundle-size';
import { LAMBDA_BUNDLING } from '../infra/bundling/lambda-bundling';
import { ENV } from '../shared/config';
import { BenchUsageError, type BenchValues, countFlag, optionsOrExit, parseBenchArgs } from './support/args';
import { formatTable, median, round } from './support/stats';

/** The functions of the stack (each `PipelineFunction` entry). */
export const FUNCTION_ENTRIES = [
  'functions/webhook/handler.ts',
  'functions/poll/handler.ts',
  'functions/fetch-result/handler.ts',
] as const;

/** Options of the bundle bench. */
export interface BundleBenchOptions {
  /** Fresh processes per bundle whose import is timed. */
  imports: number;
  log?: (line: string) => void;
}

/** Figures of one bundle. */
export interface BundleFigures {
  entry: string;
  kib: number;
  /** Largest parts (package or first-party folder), KiB. */
  top: { name: string; kib: number }[];
  importMs: { median: number; min: number; max: number; samples: number[] };
  /** Per stand-in (alias source): KiB and median import without it, and what it buys (ms). */
  standIns: { alias: string; kibWithout: number; medianWithoutMs: number; buysMs: number }[];
}

/** The packages the bundling replaces by a stand-in (`LAMBDA_BUNDLING`'s esbuild aliases). */
const STAND_INS: readonly string[] = LAMBDA_BUNDLING.esbuildArgs['--alias'].map((a) => a.split('=')[0]!);

/** Configuration every handler reads at module load; placeholders, nothing is called during the import. */
const HANDLER_ENV: Record<string, string> = {
  [ENV.environment]: 'staging',
  [ENV.serviceBaseUrl]: 'https://service.invalid',
  [ENV.scopes]: 'productapi.poll.read,productapi.result.read',
  [ENV.credentialsSecretId]: 'bench-credentials',
  [ENV.tokenCacheSecretId]: 'bench-token-cache',
  [ENV.webhookSecretId]: 'bench-webhook',
  [ENV.resultsQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/000000000000/bench',
  [ENV.resultsTableName]: 'bench',
  [ENV.pollMarkersTableName]: 'bench-poll-markers',
  [ENV.pollMarkerWindowSeconds]: '360',
  [ENV.dataBucketName]: 'bench',
  [ENV.eventBusName]: 'bench',
  [ENV.retentionDays]: '30',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_METRICS_DISABLED: 'true',
};

const IMPORT_SCRIPT =
  'const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));';

/** Times one cold import of `file` in a fresh process (ms). */
function importOnce(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', IMPORT_SCRIPT, pathToFileURL(file).href],
      {
        env: { PATH: process.env.PATH ?? '', ...HANDLER_ENV },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(out);
      if (code === 0 && Number.isFinite(ms)) resolve(ms);
      // The end of stderr names the error; its start is often a line of minified code.
      else reject(new Error(`importing ${file} failed (exit ${code}): ${err.slice(-800)}`));
    });
  });
}

/** Bundles every function and times its import. */
export async function runBundleBench(options: BundleBenchOptions): Promise<BundleFigures[]> {
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(path.join(tmpdir(), 'idv-bundles-'));
  try {
    const figures: BundleFigures[] = [];
    for (const entry of FUNCTION_ENTRIES) {
      log(`bundles: ${entry}`);
      const outfile = path.join(dir, path.dirname(entry).replaceAll('/', '-'), 'index.mjs');
      const measure = await measureBundle(entry, outfile);
      const without = await Promise.all(
        STAND_INS.map(async (alias, i) => {
          const file = outfile.replace(/index\.mjs$/, `without-${i}/index.mjs`);
          return { alias, file, measure: await measureBundle(entry, file, [alias]) };
        }),
      );
      // Interleaved, so a slow minute of a shared machine touches every variant alike.
      const samples: number[] = [];
      const withoutSamples: number[][] = without.map(() => []);
      for (let i = 0; i < options.imports; i++) {
        samples.push(round(await importOnce(outfile)));
        for (const [j, variant] of without.entries())
          withoutSamples[j]!.push(round(await importOnce(variant.file)));
      }
      const importMedian = median(samples);
      figures.push({
        entry,
        kib: round(measure.bytes / 1024),
        top: measure.parts.slice(0, 5).map((p) => ({ name: p.name, kib: round(p.bytes / 1024) })),
        importMs: {
          median: importMedian,
          min: Math.min(...samples),
          max: Math.max(...samples),
          samples,
        },
        standIns: without.map((variant, j) => ({
          alias: variant.alias,
          kibWithout: round(variant.measure.bytes / 1024),
          medianWithoutMs: median(withoutSamples[j]!),
          buysMs: round(median(withoutSamples[j]!) - importMedian),
        })),
      });
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures as a table. */
export function bundleTable(figures: readonly BundleFigures[]): string {
  return formatTable(
    [
      'function',
      'import ms p50',
      'min',
      'max',
      'stand-ins: ms bought (KiB, ms p50 without)',
      'KiB',
      'largest parts (KiB)',
    ],
    figures.map((f) => [
      f.entry.split('/')[1],
      f.importMs.median,
      f.importMs.min,
      f.importMs.max,
      f.standIns.map((x) => `${x.alias} ${x.buysMs} (${x.kibWithout}, ${x.medianWithoutMs})`).join(', '),
      f.kib,
      f.top.map((p) => `${p.name} ${p.kib}`).join(', '),
    ]),
  );
}

/** Flags of `bench/bundles.ts` (also taken by `npm run bench`). */
export const BUNDLE_FLAGS = { imports: { type: 'string' } } as const;

/** Default: 5 fresh processes per bundle. */
export const DEFAULT_BUNDLE_OPTIONS: BundleBenchOptions = { imports: 5 };

/** Help line of the bundle bench's flag. */
export const BUNDLE_FLAGS_HELP = `  --imports N       fresh processes whose import of each bundle is timed (default ${DEFAULT_BUNDLE_OPTIONS.imports})`;

/** Options from the parsed flags. */
export function bundleOptionsFromValues(values: BenchValues): BundleBenchOptions {
  const imports = countFlag(values, 'imports', DEFAULT_BUNDLE_OPTIONS.imports, 100);
  if (imports < 1) throw new BenchUsageError('--imports must be at least 1');
  return { imports };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = optionsOrExit(
    parseBenchArgs(process.argv.slice(2), BUNDLE_FLAGS, bundleOptionsFromValues),
    'bench/bundles',
    `Usage: npx tsx bench/bundles.ts [flags]\n\nFunction bundle sizes and import times (see docs/benchmarks.md).\n${BUNDLE_FLAGS_HELP}\n  -h, --help        show this help`,
  );
  const figures = await runBundleBench({ ...options, log: console.error });
  console.log(bundleTable(figures));
}
