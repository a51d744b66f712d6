/**
 * `npm run mutation`'s second step. StrykerJS 10.1.1's vitest runner reports every *static* mutant (one in
 * a module-level constant: a regex, a condition string) as survived without it ever being active: it runs
 * the tests against the unmutated module (docs/reliability.md, "Mutation testing"). This applies each such
 * survivor to the source by hand, runs the mutation tests (test/support/vitest-mutation.config.ts) against it, restores the file, and prints
 * the score with those results: killed (Stryker's and by hand) over all mutants, for each module and in
 * all. Exits 1 when any module scores below 90 %.
 * Usage: `npx tsx bench/mutation-static.ts [reports/mutation/mutation.json]`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

interface Mutant {
  static?: boolean;
  status: string;
  replacement: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
const reportFile = process.argv[2] ?? 'reports/mutation/mutation.json';
const MUTATION_CONFIG = 'test/support/vitest-mutation.config.ts';
const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
  files: Record<string, { source: string; mutants: Mutant[] }>;
};
/** The score each module must reach, in per cent: every one decides loss, erasure or access. */
const MODULE_FLOOR = 90;
let total = 0;
let killed = 0;
const below: string[] = [];
for (const [file, data] of Object.entries(report.files)) {
  const original = readFileSync(file, 'utf8');
  if (original !== data.source)
    throw new Error(`${file} changed since ${reportFile}: run npm run mutation again`);
  const lines = original.split('\n');
  const offset = (at: { line: number; column: number }) =>
    lines.slice(0, at.line - 1).reduce((n, line) => n + line.length + 1, 0) + at.column - 1;
  let fileKilled = 0;
  for (const mutant of data.mutants) {
    total++;
    if (mutant.status === 'Killed' || mutant.status === 'Timeout') {
      fileKilled++;
      continue;
    }
    if (!mutant.static || mutant.status !== 'Survived') continue;
    const [from, to] = [offset(mutant.location.start), offset(mutant.location.end)];
    writeFileSync(file, original.slice(0, from) + mutant.replacement + original.slice(to));
    try {
      const run = spawnSync('npx', ['vitest', 'run', '--config', MUTATION_CONFIG, '--bail=1'], {
        stdio: 'ignore',
        timeout: 300_000,
      });
      const dead = run.status !== 0;
      if (dead) fileKilled++;
      console.log(
        `${dead ? 'killed  ' : 'SURVIVED'} ${file}:${mutant.location.start.line} → ${mutant.replacement.slice(0, 70)}`,
      );
    } finally {
      writeFileSync(file, original);
    }
  }
  killed += fileKilled;
  const fileScore = data.mutants.length === 0 ? 100 : (100 * fileKilled) / data.mutants.length;
  if (fileScore < MODULE_FLOOR) below.push(`${file} ${fileScore.toFixed(2)} %`);
  console.log(`${file}: ${fileKilled} of ${data.mutants.length} killed (${fileScore.toFixed(2)} %)`);
}
const score = (100 * killed) / total;
console.log(
  `mutation score with the static mutants applied by hand: ${score.toFixed(2)} % (${killed} of ${total})`,
);
if (below.length > 0) console.log(`below ${MODULE_FLOOR} %: ${below.join(', ')}`);
process.exit(below.length === 0 ? 0 : 1);
