/**
 * `npm run chaos`: the chaos suite at full size (docs/reliability.md "Chaos suite"). Flags:
 * `--results N` (default 1000), `--kill-results N` (default 60), `--seed N` (default 14),
 * `--timeout-seconds N` (default 900); `--help`. An unknown flag or a bad value exits 2 before anything runs.
 * Prints the figures; exits 1 when any result was lost, duplicated, altered or left unannounced.
 * `--hostile` runs the hostile-service suite instead (`bench/hostile.ts`, its own flags).
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { formatFigures, runChaos } from './support/chaos';
import { runKillRestart } from './support/chaos-kill';

const USAGE =
  'usage: npm run chaos -- [--results N (1000)] [--kill-results N (60)] [--seed N (14)] [--timeout-seconds N (900)]';
const FLAGS = ['results', 'kill-results', 'seed', 'timeout-seconds'] as const;

/** The flags, or exit 2 naming the problem (an unknown flag must not start a 15-minute run). */
function readFlags(): Partial<Record<(typeof FLAGS)[number], string>> {
  try {
    const { values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        help: { type: 'boolean' },
        ...Object.fromEntries(FLAGS.map((name) => [name, { type: 'string' as const }])),
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    return values as Partial<Record<(typeof FLAGS)[number], string>>;
  } catch (error) {
    console.error(`chaos: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}
if (process.argv.includes('--hostile')) {
  // `npm run chaos -- --hostile [flags]`: the hostile-service suite instead (bench/hostile.ts).
  const { main } = await import('./hostile');
  process.exit(await main(process.argv.slice(2).filter((arg) => arg !== '--hostile')));
}
const values = readFlags();

function flag(name: (typeof FLAGS)[number], fallback: number): number {
  const value = values[name] === undefined ? fallback : Number(values[name]);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`chaos: --${name} needs a whole number\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

const results = flag('results', 1000);
const figures = await runChaos({
  results,
  unknown: Math.max(2, Math.round(results / 20)),
  seed: flag('seed', 14),
  timeoutMs: flag('timeout-seconds', 900) * 1000,
  progress: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(
  `machine                 ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)} at the end\n`,
);
for (const line of formatFigures(figures)) process.stdout.write(`${line}\n`);
for (const violation of figures.violations.slice(0, 20)) process.stdout.write(`  ! ${violation}\n`);
const killed = await runKillRestart({ results: flag('kill-results', 60), seed: flag('seed', 14) });
process.stdout.write(
  `SIGKILL + restart        ${killed.results} results, killed after ${killed.getsAtKill} GETs; restart exit ${killed.restartExit}, missing ${killed.missing.length}, DLQ ${killed.dlq}; reconcile exit ${killed.reconcile.exit}, unaccounted ${killed.reconcile.unaccounted.length}\n`,
);
const killOk =
  killed.missing.length === 0 &&
  killed.restartExit === 0 &&
  killed.dlq === 0 &&
  killed.reconcile.exit === 0 &&
  killed.reconcile.unaccounted.length === 0;
process.exit(figures.violations.length === 0 && killOk ? 0 : 1);
