/**
 * `npm start`: the whole pipeline on this machine (see docs/local-run.md). Flags: `start-args.ts`;
 * the last stdout line is always one JSON summary; exit 0 on success, 1 when the run failed or timed
 * out, 2 on bad flags.
 */

import type { LocalModules, PipelineHandlers } from '../local/run-contract';
import { emptySummary } from '../local/run-report';
import { runLocal } from '../local/runner';
import { RunDependencyError } from '../local/service-access';
import { parseStartArgs, START_HELP } from '../local/start-args';

// The AWS SDK's Node-version notice (Node < 22) is noise for a local run; Lambda runs Node 24.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * What the local runtime hosts: the simulator and the three handler modules. Imported only when needed
 * (the handlers read their environment at import, which the run sets first).
 */
const MODULES: LocalModules = {
  startSimulator: async (options) => (await import('../simulator/server')).startSimulator(options),
  loadHandlers: async () => {
    const [webhook, poll, fetchResult] = await Promise.all([
      import('../functions/webhook/handler'),
      import('../functions/poll/handler'),
      import('../functions/fetch-result/handler'),
    ]);
    return {
      webhook: webhook.handler as unknown as PipelineHandlers['webhook'],
      poll: poll.handler as unknown as PipelineHandlers['poll'],
      fetchResult: fetchResult.handler as unknown as PipelineHandlers['fetchResult'],
    };
  },
};

/** A second stop signal forces only when it comes this long after the first (see main). */
const FORCE_AFTER_MS = 1000;

/** Prints the usage error with the summary line every run ends with, and exits 2. */
function fail(message: string): never {
  process.stderr.write(`npm start: ${message} (see --help)\n`);
  process.stdout.write(`${JSON.stringify({ ...emptySummary(), exit: 'usage' })}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const args = parseStartArgs(process.argv.slice(2), process.env);
  if (args.kind === 'help') {
    process.stdout.write(`${START_HELP}\n`);
    process.exit(0);
  }
  if (args.kind === 'usage') fail(args.message);
  const { options } = args;
  let stopRequestedAt: number | undefined;
  const interrupted = new Promise<void>((resolve) => {
    const onSignal = (): void => {
      if (stopRequestedAt !== undefined) {
        // One Ctrl-C can arrive twice: the terminal signals the whole process group and tsx relays
        // the signal to this process again when it is busy. Only a later, deliberate one forces.
        if (Date.now() - stopRequestedAt < FORCE_AFTER_MS) return;
        process.stderr.write('\nForced stop.\n');
        process.exit(130);
      }
      stopRequestedAt = Date.now();
      process.stderr.write('\nStopping (Ctrl-C again to force)…\n');
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // Killed wrappers (npm, tsx) leave this process behind, holding the data directory and its ports:
    // when the parent is gone, stop as if Ctrl-C was pressed (nothing is lost: see docs/local-run.md).
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent && stopRequestedAt === undefined) {
        process.stderr.write('\nThe process that started this run is gone: stopping.\n');
        stopRequestedAt = Date.now();
        resolve();
      }
    }, 1000);
    watch.unref();
  });
  try {
    const summary = await runLocal(
      options,
      {
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
        interrupted,
      },
      MODULES,
    );
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    process.exitCode =
      summary.exit === 'done' || summary.exit === 'once' || summary.exit === 'signal' ? 0 : 1;
  } catch (error) {
    const message =
      error instanceof RunDependencyError
        ? error.message
        : `unexpected failure: ${error instanceof Error ? `${error.name}: ${error.message}` : 'error'}`;
    process.stderr.write(`npm start: ${message}\n`);
    process.stdout.write(`${JSON.stringify({ ...emptySummary(), exit: 'error' })}\n`);
    process.exitCode = 1;
  }
  // SDK keep-alive agents and emulator timers must not keep a finished run alive.
  setTimeout(() => process.exit(), 500).unref();
}

await main();
