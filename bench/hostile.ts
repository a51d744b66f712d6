/**
 * `npm run chaos -- --hostile` (or `npx tsx bench/hostile.ts`): the hostile-service suite
 * (docs/reliability.md "Hostile service"). Flags: `--quick` (small bodies), `--only a,b` (attack names),
 * `--cap-seconds N` (per attack, default 120), `--json` (the rows as JSON after the table); `--help`.
 * Prints one row per attack; exits 1 when any attack broke a promise, 2 on a bad flag.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ATTACKS } from './support/hostile-attacks';
import { hostileTable, runHostile } from './support/hostile-runner';

const USAGE = `usage: npm run chaos -- --hostile [--quick] [--only NAME,NAME] [--cap-seconds N (120)] [--json]
attacks: ${ATTACKS.map((a) => a.name).join(', ')}`;

/** Runs the suite with `args`; resolves with the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  let values: { quick?: boolean; only?: string; 'cap-seconds'?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        quick: { type: 'boolean' },
        only: { type: 'string' },
        'cap-seconds': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    console.error(`hostile: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const only = values.only?.split(',').filter(Boolean);
  const unknown = only?.filter((name) => !ATTACKS.some((a) => a.name === name)) ?? [];
  const capSeconds = Number(values['cap-seconds'] ?? 120);
  if (unknown.length > 0 || !Number.isInteger(capSeconds) || capSeconds <= 0) {
    console.error(
      `hostile: ${unknown.length ? `unknown attack ${unknown.join(', ')}` : '--cap-seconds needs a whole number'}\n${USAGE}`,
    );
    return 2;
  }
  const rows = await runHostile({
    scale: values.quick ? 'quick' : 'full',
    ...(only && { only }),
    capMs: capSeconds * 1000,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${hostileTable(rows)}\n`);
  if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  const broken = rows.filter((r) => r.violations.length > 0).length;
  process.stdout.write(`${rows.length - broken} of ${rows.length} attacks kept their promises\n`);
  return broken === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  process.exit(await main(process.argv.slice(2)));
