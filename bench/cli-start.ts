/**
 * CLI start-up benchmark: `idv --help` in fresh processes, as a person types it, three ways — the CLI's
 * entry itself (`node bin/idv.mjs`), `npm run idv --` and `npx --no-install idv` (what the docs print;
 * npm's lookup of the project's own bin is part of it) — median of several runs after one that builds
 * the CLI's bundle if its sources changed. The target is on the CLI's own start: ≤ 0.8 s (median).
 *
 * `npx tsx bench/cli-start.ts [--runs N]`; part of `npm run bench` (without `--only`).
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatTable, median, round } from './support/stats';
import { atMost, type SummaryRow } from './support/targets';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The CLI's own start, median ms, at most. */
export const CLI_START_TARGET_MS = 800;

/** One way of starting the CLI and its wall times. */
export interface CliStartFigures {
  readonly way: string;
  readonly ms: { readonly min: number; readonly median: number; readonly max: number };
  /** Whether the target applies (the CLI's own entry); the others are information. */
  readonly judged: boolean;
}

const WAYS: readonly { way: string; command: string; args: string[]; judged: boolean }[] = [
  { way: 'node bin/idv.mjs', command: process.execPath, args: ['bin/idv.mjs', '--help'], judged: true },
  { way: 'npm run idv --', command: 'npm', args: ['run', '-s', 'idv', '--', '--help'], judged: false },
  { way: 'npx --no-install idv', command: 'npx', args: ['--no-install', 'idv', '--help'], judged: false },
];

/** Runs each way `runs` times (after one untimed run) and returns the figures. */
export function runCliStartBench(options: { runs: number; log?: (line: string) => void }): CliStartFigures[] {
  return WAYS.map(({ way, command, args, judged }) => {
    options.log?.(`cli: ${way} --help`);
    const once = (): number => {
      const started = performance.now();
      const run = spawnSync(command, args, {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 60_000,
      });
      if (run.status !== 0) {
        throw new Error(
          `${way} --help exited ${run.status ?? run.signal}: ${String(run.stderr).slice(0, 200)}`,
        );
      }
      return performance.now() - started;
    };
    once();
    const samples = Array.from({ length: options.runs }, once);
    return {
      way,
      judged,
      ms: {
        min: round(Math.min(...samples), 0),
        median: round(median(samples), 0),
        max: round(Math.max(...samples), 0),
      },
    };
  });
}

/** The figures as a table. */
export function cliStartTable(figures: readonly CliStartFigures[]): string {
  return formatTable(
    ['way', 'ms min', 'median', 'max', 'target'],
    figures.map((f) => [f.way, f.ms.min, f.ms.median, f.ms.max, f.judged ? `≤ ${CLI_START_TARGET_MS}` : '-']),
  );
}

/** The summary rows: the CLI's own start against its target, the others as information. */
export function cliStartSummaryRows(figures: readonly CliStartFigures[]): SummaryRow[] {
  return figures.map((f) => ({
    bench: `cli ${f.way}`,
    figure: 'idv --help ms min/median/max',
    value: `${f.ms.min}/${f.ms.median}/${f.ms.max}`,
    target: f.judged ? `≤ ${CLI_START_TARGET_MS} (median)` : '-',
    verdict: f.judged ? atMost(f.ms.median, CLI_START_TARGET_MS) : 'no target',
  }));
}

const USAGE = 'usage: npx tsx bench/cli-start.ts [--runs N (a whole number ≥ 1, default 5)]';

/** The command line of `bench/cli-start.ts`: the runs, or why it is refused. */
export function cliStartOptions(
  argv: readonly string[],
): { kind: 'run'; runs: number } | { kind: 'usage'; message: string } {
  let values: { runs?: string };
  try {
    ({ values } = parseArgs({ args: [...argv], options: { runs: { type: 'string' } } }));
  } catch (error) {
    return { kind: 'usage', message: `${(error as Error).message}\n${USAGE}` };
  }
  const runs = Number(values.runs ?? '5');
  if (!Number.isInteger(runs) || runs < 1) return { kind: 'usage', message: `--runs: ${USAGE}` };
  return { kind: 'run', runs };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = cliStartOptions(process.argv.slice(2));
  if (options.kind === 'usage') {
    console.error(options.message);
    process.exit(2);
  }
  console.log(cliStartTable(runCliStartBench({ runs: options.runs, log: (line) => console.error(line) })));
}
