/**
 * `npm run bench`: every benchmark with its defaults (about eleven minutes on a 2-core machine, seven of
 * them the backlog drain), a table per bench on stdout, then one summary table — each figure, its target,
 * met or not (`support/targets.ts`) — and all figures with the machine and options in
 * `bench/results/latest.json`.
 * A missed target is reported, never a failure; the benches do fail when the pipeline loses, duplicates
 * or fails a result, since then the figures lie.
 *
 * Flags: those of `bench/fetch-result.ts`, `bench/webhook.ts`, `bench/backlog.ts` and `bench/latency.ts`,
 * plus `--only fetch-result|webhook|backlog|latency|analytics` (the bundles and the CLI start run without `--only`);
 * `--help` lists them. A bad command line exits 2 before anything runs, and `latest.json` is written only
 * when a bench ran.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { analyticsTable, runAnalyticsBench } from './analytics';
import { backlogChecks, backlogTable, runBacklogBench } from './backlog';
import { bundleTable, DEFAULT_BUNDLE_OPTIONS, runBundleBench } from './bundles';
import { cliStartSummaryRows, cliStartTable, runCliStartBench } from './cli-start';
import { fetchResultTable, runFetchResultBench, runSizesOf } from './fetch-result';
import { latencySummaryRows, latencyTable, runLatencyBench } from './latency';
import { DEFAULT_SIZE_REPEATS, sizeDetails, sizeTable } from './sizes';
import { optionsOrExit, parseBenchArgs } from './support/args';
import { costSectionOf, runTracingAb } from './support/cost-section';
import { RUN_FLAGS, RUN_USAGE, runOptionsFromValues } from './support/run-args';
import { sizeFloorTable, sizeSummaryRows } from './support/size-floor';
import { mib, round } from './support/stats';
import { backlogSummaryRows, bundleSummaryRows, costSummaryRows } from './support/summary';
import { type SummaryRow, summaryMarkdown, summaryTable } from './support/targets';
import { runWebhookBench, webhookTable } from './webhook';

const {
  only,
  fetch: fetchOptions,
  webhook: webhookOptions,
  backlog: backlogOptions,
  latency: latencyOptions,
} = optionsOrExit(
  parseBenchArgs(benchArgv(process.argv.slice(2)), RUN_FLAGS, runOptionsFromValues),
  'bench',
  RUN_USAGE,
);

/** `npm run bench -- analytics` is `--only analytics`: a first word naming a bench picks it. */
function benchArgv(argv: readonly string[]): string[] {
  const [first, ...rest] = argv;
  return first !== undefined && !first.startsWith('-') ? ['--only', first, ...rest] : [...argv];
}
const log = (line: string) => console.error(line);
const started = Date.now();

const machine = {
  cpus: availableParallelism(),
  cpuModel: cpus()[0]?.model ?? 'unknown',
  memoryMiB: mib(totalmem()),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  // Other work on the machine skews every figure; the 1-minute load average at start says how much.
  loadAverage: round(loadavg()[0] ?? 0, 2),
};
log(
  `bench: ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, load average ${machine.loadAverage}`,
);

// Analytics at a million results (issue 22): only when named, it takes a minute and a gigabyte of temp space.
const analytics = only === 'analytics' ? await runAnalyticsBench({ log }) : undefined;
const webhook =
  only === undefined || only === 'webhook' ? await runWebhookBench({ ...webhookOptions, log }) : undefined;
const fetchResult =
  only === undefined || only === 'fetch-result'
    ? await runFetchResultBench({ ...fetchOptions, log })
    : undefined;
// Size bench: 1–200 MiB results beside the floor and a raw copy, request counts and cost; with --huge 1 GiB.
const sizes =
  only === undefined || only === 'fetch-result' ? await runSizesOf({ ...fetchOptions, log }) : undefined;
// Tracing A/B (with --tracing): the handler's CPU with X-Ray on and off, alternating.
const tracing =
  sizes && fetchOptions.tracing
    ? await runTracingAb({ repeats: fetchOptions.repeats ?? DEFAULT_SIZE_REPEATS, log })
    : undefined;
// Service result ready → stored event on the bus, by webhook and by the poll alone.
const latency =
  only === undefined || only === 'latency' ? await runLatencyBench({ ...latencyOptions, log }) : undefined;
// A backlog drained behind the service's rate limit: 429s, pace, memory.
const backlog =
  only === undefined || only === 'backlog' ? await runBacklogBench({ ...backlogOptions, log }) : undefined;
// Bundle sizes and cold import times of every function, as CDK bundles them.
const bundles = only === undefined ? await runBundleBench({ ...DEFAULT_BUNDLE_OPTIONS, log }) : undefined;
// `idv --help` in fresh processes: the CLI's own entry, npm run and npx.
const cli = only === undefined ? runCliStartBench({ runs: 5, log }) : undefined;

// Full cost per 1,000 results beside the naive peer, from this run's figures.
const cost = sizes ? costSectionOf({ sizes, webhook, bundles, tracing }) : undefined;

// Every figure with a target (and the costs, without one), in one table.
const summary: SummaryRow[] = [
  ...(sizes ? sizeSummaryRows(sizes) : []),
  ...(latency ? latencySummaryRows(latency) : []),
  ...(backlog ? backlogSummaryRows(backlog) : []),
  ...(bundles ? bundleSummaryRows(bundles) : []),
  ...(cli ? cliStartSummaryRows(cli) : []),
  ...(cost ? costSummaryRows(cost.figures.costs) : []),
];

const report = {
  date: new Date().toISOString(),
  durationSeconds: Math.round((Date.now() - started) / 1000),
  machine,
  options: {
    webhook: { seconds: webhookOptions.seconds, concurrency: webhookOptions.concurrency },
    fetchResult: {
      probe: fetchOptions.probe,
      latency: fetchOptions.latency,
      throughput: fetchOptions.throughput,
      profiles: fetchOptions.profiles.map((p) => p.name),
      sizes: (fetchOptions.sizes ?? []).map((p) => p.name),
      repeats: fetchOptions.repeats,
      huge: fetchOptions.huge === true,
      tracing: fetchOptions.tracing === true,
    },
    backlog: backlogOptions,
    latency: { results: latencyOptions.results, pollIntervalSeconds: latencyOptions.pollIntervalSeconds },
  },
  webhook,
  fetchResult,
  sizes,
  backlog,
  latency,
  bundles,
  cli,
  analytics,
  cost: cost?.figures,
  summary,
};
if (!webhook && !fetchResult && !analytics && !backlog && !latency) {
  // Cannot happen with a valid --only; never replace the last figures with an empty report.
  console.error('bench: nothing ran; bench/results/latest.json left as it was');
  process.exit(1);
}
const out = fileURLToPath(new URL('./results/latest.json', import.meta.url));
mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

if (webhook) {
  console.log(`\nwebhook handler via the local API Gateway adapter (concurrency ${webhook.concurrency})`);
  console.log(webhookTable(webhook));
}
if (fetchResult) {
  console.log('\nfetch-result handler (one concurrent execution; sizes in MiB)');
  console.log(fetchResultTable(fetchResult));
  console.log(
    `checks: ${fetchResult.checks.results} results, ${fetchResult.checks.storedEvents} stored events, ` +
      `at most ${fetchResult.checks.maxFetchesPerResult} fetch per result, ${fetchResult.checks.failedMessages} failed messages`,
  );
}
if (sizes) {
  console.log(
    '\nfetch-result by result size (bundled handler in its own process; MB/s of body, RSS + is VmHWM growth)',
  );
  console.log(sizeTable(sizes));
  console.log(
    '\nagainst the floor (the same storage requests through the same SDK clients, nothing parsed or checked)',
  );
  console.log(sizeFloorTable(sizes));
  console.log(sizeDetails(sizes));
}
if (cost) console.log(`\n${cost.text}`);
if (latency) {
  console.log(
    `\nend-to-end latency: service result ready → VerificationResultStored on the bus (poll every ${latency.pollIntervalSeconds} s; production polls every 60 s)`,
  );
  console.log(latencyTable(latency));
}
if (backlog) {
  console.log(
    `\nbacklog: ${backlog.backlog} pending results drained behind a ${backlog.allowedRate}/s rate limit (429 + Retry-After above it; target ≥ 90 % of the limit)`,
  );
  console.log(backlogTable(backlog));
  console.log(backlogChecks(backlog));
}
if (analytics) {
  console.log(
    '\nanalytics: 1,000,000 projected results, Parquet through DuckDB (targets: each saved query and the report ≤ 2 s, ≤ 200 bytes/result)',
  );
  console.log(analyticsTable(analytics));
}
if (bundles) {
  console.log('\nfunction bundles (as CDK bundles them; import = cold import() in a fresh node process)');
  console.log(bundleTable(bundles));
}
if (cli) {
  console.log('\nCLI start (idv --help in a fresh process; median of 5 after one run)');
  console.log(cliStartTable(cli));
}
if (summary.length > 0) {
  console.log(
    `\nsummary: each figure against its target (${machine.cpus} CPUs, ${machine.cpuModel}, Node ${machine.node})`,
  );
  console.log(summaryTable(summary));
  if (process.env.BENCH_SUMMARY_MARKDOWN === '1') console.log(`\n${summaryMarkdown(summary)}`);
}
console.log(`\n${report.durationSeconds} s; figures in ${out}`);
