/**
 * `npm run chaos`: the chaos suite at full size (docs/reliability.md "Chaos suite"). Flags:
 * `--results N` (default 1000), `--seed N` (default 14), `--timeout-seconds N` (default 900).
 * Prints the figures; exits 1 when any result was lost, duplicated, altered or left unannounced.
 */
import { cpus, loadavg } from 'node:os';
import { formatFigures, runChaos } from './support/chaos';
import { runKillRestart } from './support/chaos-kill';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a whole number`);
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
  `SIGKILL + restart        ${killed.results} results, killed after ${killed.getsAtKill} GETs; restart exit ${killed.restartExit}, missing ${killed.missing.length}, DLQ ${killed.dlq}\n`,
);
const killOk = killed.missing.length === 0 && killed.restartExit === 0 && killed.dlq === 0;
process.exit(figures.violations.length === 0 && killOk ? 0 : 1);
