/**
 * The guarded patch that lets `npm run integ` read the cloud assemblies aws-cdk-lib writes (docs/deploy.md,
 * "Prove it in your account"). The newest `@aws-cdk/integ-runner` the registry offers, 2.197.10, carries
 * cloud-assembly schema 53 built into `lib/workers/extract/index.js` and refuses schema 55
 * (`AssemblyVersionMismatch`); an npm `overrides` cannot reach a schema bundled into the runner.
 *
 * Run at install (`prepare`), it raises that built-in revision from 53 to 55, and only when:
 * - the installed runner is the pinned version, and its built-in revision is 53;
 * - the installed aws-cdk-lib writes revision 55;
 * - the two schemas that describe what is deployed — `assets.schema.json` identical, and
 *   `cloud-assembly.schema.json` differing only where compared (metadata entries, which are not deployed:
 *   {@link KNOWN_DIFFERENCES}) — are what was compared.
 * Otherwise it patches nothing and says why (the install goes on; test/infra/integ-runner-schema.test.ts
 * fails). A runner that reads 55 itself makes the patch unnecessary: it says so, and this file and the
 * `prepare` script go.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import vm from 'node:vm';

/** The runner version the schemas were compared for. */
export const PINNED_RUNNER = '2.197.10';
/** The revision the runner carries, and the one aws-cdk-lib writes. */
export const RUNNER_REVISION = 53;
export const TARGET_REVISION = 55;
/** Where the cloud-assembly schemas differ, as compared: metadata entries only (never deployed). */
export const KNOWN_DIFFERENCES: Readonly<Record<string, readonly string[]>> = {
  'assets.schema.json': [],
  'cloud-assembly.schema.json': ['definitions.MetadataEntry', 'definitions.PropertyMutationMetadataEntry'],
};
/** What marks a patched runner. */
const MARK = `/* idv-pipeline: raised from ${RUNNER_REVISION}, test/integ/integ-runner-schema.ts */`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The state of the installed runner. */
export interface RunnerState {
  readonly status: 'patched' | 'not-needed' | 'refused' | 'absent' | 'patchable';
  readonly reason: string;
}

interface Files {
  readonly runnerVersion: string;
  readonly extract: string;
  readonly extractFile: string;
  readonly schemaDir: string;
}

function files(root: string): Files | undefined {
  const runner = path.join(root, 'node_modules', '@aws-cdk', 'integ-runner');
  if (!existsSync(path.join(runner, 'package.json'))) return undefined;
  const extractFile = path.join(runner, 'lib', 'workers', 'extract', 'index.js');
  const fromCdkLib = createRequire(path.join(root, 'node_modules', 'aws-cdk-lib', 'package.json'));
  return {
    runnerVersion: (
      JSON.parse(readFileSync(path.join(runner, 'package.json'), 'utf8')) as { version: string }
    ).version,
    extract: readFileSync(extractFile, 'utf8'),
    extractFile,
    schemaDir: path.join(
      path.dirname(fromCdkLib.resolve('@aws-cdk/cloud-assembly-schema/package.json')),
      'schema',
    ),
  };
}

/** The object a bundled `schema/<name>` module exports, as plain JSON. */
function embedded(extract: string, name: string): unknown {
  const start = extract.indexOf(`"../cloud-assembly-schema/schema/${name}"(exports2, module2) {`);
  if (start < 0) return undefined;
  const from = extract.indexOf('module2.exports = ', start) + 'module2.exports = '.length;
  const end = extract.indexOf('\n  }\n});', from);
  const value = vm.runInNewContext(
    `(${extract.slice(from, end).replace(/;\s*$/, '')})`,
    {},
    { timeout: 5000 },
  );
  return JSON.parse(JSON.stringify(value));
}

/** The `definitions.<name>` (or top-level key) paths where two schemas differ. */
function differences(a: unknown, b: unknown): string[] {
  const left = (a ?? {}) as Record<string, unknown>;
  const right = (b ?? {}) as Record<string, unknown>;
  const found: string[] = [];
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (key === 'definitions') {
      const l = (left[key] ?? {}) as Record<string, unknown>;
      const r = (right[key] ?? {}) as Record<string, unknown>;
      for (const name of new Set([...Object.keys(l), ...Object.keys(r)])) {
        if (!isDeepStrictEqual(l[name], r[name])) found.push(`definitions.${name}`);
      }
    } else if (!isDeepStrictEqual(left[key], right[key])) found.push(key);
  }
  return found.sort();
}

const REVISION =
  /("\.\.\/cloud-assembly-schema\/schema\/version\.json"\(exports2, module2\) \{[\s\S]*?revision: )(\d+)( \/\* idv-pipeline[^*]*\*\/)?/;

/** What the installed runner needs, and why. */
export function runnerState(root = ROOT): RunnerState {
  const found = files(root);
  if (found === undefined) return { status: 'absent', reason: '@aws-cdk/integ-runner is not installed' };
  const revision = Number(REVISION.exec(found.extract)?.[2]);
  if (found.extract.includes(MARK)) {
    return {
      status: 'patched',
      reason: `integ-runner ${found.runnerVersion} reads schema ${revision} (patched)`,
    };
  }
  if (revision >= TARGET_REVISION) {
    return {
      status: 'not-needed',
      reason:
        `integ-runner ${found.runnerVersion} reads schema ${revision} itself: drop the patch ` +
        '(test/integ/integ-runner-schema.ts, the prepare script, docs/deploy.md)',
    };
  }
  if (found.runnerVersion !== PINNED_RUNNER) {
    return {
      status: 'refused',
      reason: `integ-runner ${found.runnerVersion} is not ${PINNED_RUNNER}, the version whose schemas were compared`,
    };
  }
  if (revision !== RUNNER_REVISION) {
    return { status: 'refused', reason: `integ-runner carries schema ${revision}, not ${RUNNER_REVISION}` };
  }
  const target = JSON.parse(readFileSync(path.join(found.schemaDir, 'version.json'), 'utf8')) as {
    revision: number;
  };
  if (target.revision !== TARGET_REVISION) {
    return {
      status: 'refused',
      reason: `aws-cdk-lib writes schema ${target.revision}, not the compared ${TARGET_REVISION}`,
    };
  }
  for (const [name, known] of Object.entries(KNOWN_DIFFERENCES)) {
    const installed = JSON.parse(readFileSync(path.join(found.schemaDir, name), 'utf8')) as unknown;
    const seen = differences(embedded(found.extract, name), installed);
    if (!isDeepStrictEqual(seen, [...known])) {
      return {
        status: 'refused',
        reason: `${name} differs from the runner's where it was not compared (${seen.join(', ') || 'nowhere'}; compared: ${known.join(', ') || 'identical'})`,
      };
    }
  }
  return {
    status: 'patchable',
    reason: `integ-runner ${PINNED_RUNNER}: schema ${RUNNER_REVISION} → ${TARGET_REVISION}`,
  };
}

/** Applies the patch when {@link runnerState} allows it; returns the state after. */
export function patchRunner(root = ROOT): RunnerState {
  const state = runnerState(root);
  if (state.status !== 'patchable') return state;
  const found = files(root)!;
  const patched = found.extract.replace(REVISION, `$1${TARGET_REVISION} ${MARK}`);
  writeFileSync(found.extractFile, patched);
  const after = runnerState(root);
  const digest = createHash('sha256').update(patched).digest('hex').slice(0, 12);
  return { status: after.status, reason: `${after.reason}; extract/index.js ${digest}` };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const state = patchRunner();
  const line = `integ-runner schema patch: ${state.status}: ${state.reason}\n`;
  if (state.status === 'refused') process.stderr.write(line);
  else process.stdout.write(line);
}
