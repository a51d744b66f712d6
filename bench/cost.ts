/**
 * The cost section of `npm run bench` alone (docs/benchmarks.md, "Full cost per 1,000 results"): the
 * full cost per 1,000 results of the pipeline beside its naive peer, with the storage plan priced, and
 * the cost rows of the summary.
 *
 *   npx tsx bench/cost.ts --from bench/results/latest.json   # arithmetic only, on a saved run's sizes
 *   npx tsx bench/cost.ts --repeats 3                        # measures them first (the size bench)
 *
 * The arithmetic needs what the size bench measures of the function and its peer (time, CPU, peak RSS,
 * requests, log bytes); `--from` takes them from a saved run (`npm run bench` writes `latest.json`, this
 * script `cost-sizes.json`), so a change to the prices, the plan or the assumptions costs no rerun.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runSizeBench, SIZE_PROFILES, type SizeFigures } from './sizes';
import { costSectionOf } from './support/cost-section';
import { costSummaryRows } from './support/summary';
import { summaryMarkdown, summaryTable } from './support/targets';

const USAGE = `usage: npx tsx bench/cost.ts [--from FILE | --repeats N]
  --from FILE   a saved run's size figures (bench/results/latest.json or cost-sizes.json): no measuring
  --repeats N   results per size profile when measuring (1..50, default 3)`;

function options(): { from?: string; repeats: number } {
  try {
    const { values } = parseArgs({
      options: {
        from: { type: 'string' },
        repeats: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    const repeats = Number(values.repeats ?? 3);
    if (!Number.isInteger(repeats) || repeats < 1 || repeats > 50) throw new Error('--repeats takes 1..50');
    if (values.from !== undefined && values.repeats !== undefined) {
      throw new Error('--from and --repeats exclude each other');
    }
    return { ...(values.from !== undefined && { from: values.from }), repeats };
  } catch (error) {
    console.error(`bench/cost: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

/** The `sizes` of a saved run, refused when the file holds none. */
function savedSizes(file: string): SizeFigures[] {
  let saved: { sizes?: unknown };
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as { sizes?: unknown };
  } catch (error) {
    console.error(`bench/cost: cannot read ${file} as a saved run (${(error as Error).name})`);
    process.exit(2);
  }
  if (!Array.isArray(saved?.sizes) || saved.sizes.length === 0) {
    console.error(`bench/cost: ${file} holds no size figures (run the size bench, or drop --from)`);
    process.exit(2);
  }
  return saved.sizes as SizeFigures[];
}

const { from, repeats } = options();
let sizes: SizeFigures[];
if (from !== undefined) {
  sizes = savedSizes(from);
} else {
  sizes = await runSizeBench({ profiles: SIZE_PROFILES, repeats, log: (line) => console.error(line) });
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    `${dir}cost-sizes.json`,
    `${JSON.stringify({ date: new Date().toISOString(), sizes }, null, 2)}\n`,
  );
}
const cost = costSectionOf({ sizes });
const rows = costSummaryRows(cost.figures.costs);
console.log(cost.text);
console.log(`\n${summaryTable(rows)}`);
if (process.env['BENCH_SUMMARY_MARKDOWN'] === '1') console.log(`\n${summaryMarkdown(rows)}`);
