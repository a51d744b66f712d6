/** The command line of `npm run bench` (`bench/run.ts`), apart from it so it can be tested without running. */

import { closest } from '../../shared/args';
import { BACKLOG_FLAGS_HELP, type BacklogBenchOptions, backlogOptionsFromValues } from '../backlog';
import { FETCH_FLAGS_HELP, type FetchBenchOptions, fetchOptionsFromValues } from '../fetch-result';
import { LATENCY_FLAGS_HELP, type LatencyBenchOptions, latencyOptionsFromValues } from '../latency';
import { WEBHOOK_FLAGS_HELP, type WebhookBenchOptions, webhookOptionsFromValues } from '../webhook';
import {
  BACKLOG_FLAGS,
  BenchUsageError,
  type BenchValues,
  FETCH_FLAGS,
  LATENCY_FLAGS,
  WEBHOOK_FLAGS,
} from './args';

/** The benches `--only` can pick. */
export const BENCHES = ['fetch-result', 'webhook', 'backlog', 'latency', 'analytics'] as const;

/** `npm run bench -- --help`. */
export const RUN_USAGE = `Usage: npm run bench -- [NAME] [flags]

Runs the benchmarks (see docs/benchmarks.md): a table per bench on stdout, then a summary of every
figure against its target; every figure with the machine and the options in bench/results/latest.json.

  NAME, --only NAME one bench: ${BENCHES.join(', ')} (default: fetch-result, webhook,
                    latency and backlog, then the bundles; analytics, 1,000,000 projected results on
                    DuckDB, runs only when named)
webhook bench:
${WEBHOOK_FLAGS_HELP}
fetch-result bench:
${FETCH_FLAGS_HELP}
backlog bench:
${BACKLOG_FLAGS_HELP}
latency bench:
${LATENCY_FLAGS_HELP}
  -h, --help        show this help`;

/** What `npm run bench` runs, from its parsed flags. */
export function runOptionsFromValues(values: BenchValues): {
  only: (typeof BENCHES)[number] | undefined;
  fetch: FetchBenchOptions;
  webhook: WebhookBenchOptions;
  backlog: BacklogBenchOptions;
  latency: LatencyBenchOptions;
} {
  const only = values['only'] as string | undefined;
  if (only !== undefined && !(BENCHES as readonly string[]).includes(only)) {
    const guess = closest(only, BENCHES);
    throw new BenchUsageError(
      `--only must be ${BENCHES.slice(0, -1).join(', ')} or ${BENCHES.at(-1)}${guess ? ` (did you mean ${guess}?)` : ''}`,
    );
  }
  return {
    only: only as (typeof BENCHES)[number] | undefined,
    fetch: fetchOptionsFromValues(values),
    webhook: webhookOptionsFromValues(values),
    backlog: backlogOptionsFromValues(values),
    latency: latencyOptionsFromValues(values),
  };
}

/** Every flag of `npm run bench`. */
export const RUN_FLAGS = {
  ...FETCH_FLAGS,
  ...WEBHOOK_FLAGS,
  ...BACKLOG_FLAGS,
  ...LATENCY_FLAGS,
  only: { type: 'string' },
} as const;
