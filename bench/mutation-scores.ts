/**
 * `npm run mutation`'s second step: the score of each mutated module from StrykerJS's JSON report, by
 * Stryker's own formula — killed and timed out over killed, timed out, survived and uncovered (mutants
 * that could not run, `RuntimeError`/`CompileError`, and `Ignored` ones count on neither side). Stryker's
 * `thresholds.break` judges the total only; every module here decides loss, erasure or access, so each
 * must reach {@link MODULE_FLOOR} on its own. Prints a line per module and exits 1 naming those below.
 * Usage: `npx tsx bench/mutation-scores.ts [reports/mutation/mutation.json]`.
 */
import { readFileSync } from 'node:fs';

/** The score each module must reach, in per cent. */
const MODULE_FLOOR = 90;

interface Mutant {
  readonly status: string;
}

const reportFile = process.argv[2] ?? 'reports/mutation/mutation.json';
const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
  files: Record<string, { mutants: readonly Mutant[] }>;
};
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const below: string[] = [];
for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
  const valid = detected + mutants.filter((m) => UNDETECTED.has(m.status)).length;
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  if (score < MODULE_FLOOR) below.push(file);
  console.log(`${score.toFixed(2).padStart(6)} %  ${detected} of ${valid}  ${file}`);
}
if (below.length > 0) {
  console.log(`below ${MODULE_FLOOR} %: ${below.join(', ')}`);
  process.exit(1);
}
console.log(`every module at ${MODULE_FLOOR} % or more`);
