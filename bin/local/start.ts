/**
 * `npm start`: the whole pipeline on this machine (see docs/local-run.md). Flags via `parseArgs`;
 * the last stdout line is always one JSON summary; exit 0 on success, 1 when the run failed or timed
 * out, 2 on bad flags.
 */
import { parseArgs } from 'node:util';
import { emptySummary } from './run-report';
import { RunDependencyError, type RunOptions, runLocal } from './runner';

const HELP = `Usage: npm start -- [options]

Runs the results pipeline locally: simulator, DynamoDB/S3/SQS emulators, local Secrets Manager and
EventBridge, the webhook endpoint, the poll schedule and the SQS event source around the real handlers.

Options:
  --demo N                  demo transactions to create (default 6 against the simulator, 0 otherwise)
  --exit-when-done          exit 0 once every demo transaction is stored and announced
  --once                    one poll, drain the queue (stored, unavailable or dead-lettered), exit
  --poll-interval SECONDS   poll schedule (default 60)
  --port N                  webhook endpoint port (default 3000; 0 picks a free one)
  --service-url URL         use this service instead of the simulator (needs the two flags below)
  --client-id ID            client id for --service-url
  --client-secret SECRET    client secret for --service-url
  --environment ENV         staging or production (default staging; mock-test needs staging)
  --data-dir DIR            persistent state (default .local)
  --timeout SECONDS         limit of --exit-when-done and --once (default 300)
  --completion-delay-ms N   simulator delay of transactions without mock-test (default 3000)
  --seed N                  simulator seed (repeatable runs)
  --retention-days N        retention of stored results (default 30)
  --verbose                 handler logs at INFO (default WARN)
  -h, --help                show this help`;

// The AWS SDK's Node-version notice (Node < 22) is noise for a local run; Lambda runs Node 24.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** A second stop signal forces only when it comes this long after the first (see main). */
const FORCE_AFTER_MS = 1000;

function fail(message: string): never {
  process.stderr.write(`npm start: ${message} (see --help)\n`);
  process.stdout.write(`${JSON.stringify({ ...emptySummary(), exit: 'usage' })}\n`);
  process.exit(2);
}

function integer(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) fail(`--${name} must be a whole number ≥ ${min}`);
  return parsed;
}

/** Turns argv into run options; exits 2 with a message on a bad flag. */
export function parseStartArgs(argv: string[]): RunOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        demo: { type: 'string' },
        'exit-when-done': { type: 'boolean' },
        once: { type: 'boolean' },
        'poll-interval': { type: 'string' },
        port: { type: 'string' },
        'service-url': { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        environment: { type: 'string' },
        'data-dir': { type: 'string' },
        timeout: { type: 'string' },
        'completion-delay-ms': { type: 'string' },
        seed: { type: 'string' },
        'retention-days': { type: 'string' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if (values['help']) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const serviceUrl = values['service-url'] as string | undefined;
  if (serviceUrl !== undefined) {
    try {
      new URL(serviceUrl);
    } catch {
      fail('--service-url must be an absolute URL');
    }
  }
  const environment = (values['environment'] as string | undefined) ?? 'staging';
  if (environment !== 'staging' && environment !== 'production')
    fail('--environment must be staging or production');
  const explicitDemo = values['demo'] !== undefined;
  const demo = integer('demo', values['demo'] as string | undefined, serviceUrl ? 0 : 6);
  if (values['exit-when-done'] && values['once']) fail('use either --exit-when-done or --once');
  return {
    dataDir: (values['data-dir'] as string | undefined) ?? '.local',
    demo,
    // The default stream trickles in so results visibly arrive one by one; an explicit count is quick.
    demoSpacingMs: explicitDemo ? 100 : 4000,
    exitWhenDone: values['exit-when-done'] === true,
    once: values['once'] === true,
    pollIntervalSeconds: integer('poll-interval', values['poll-interval'] as string | undefined, 60, 1),
    port: integer('port', values['port'] as string | undefined, 3000),
    serviceUrl,
    clientId: values['client-id'] as string | undefined,
    clientSecret: values['client-secret'] as string | undefined,
    environment,
    retentionDays: integer('retention-days', values['retention-days'] as string | undefined, 30, 1),
    timeoutSeconds: integer('timeout', values['timeout'] as string | undefined, 300, 1),
    completionDelayMs: integer(
      'completion-delay-ms',
      values['completion-delay-ms'] as string | undefined,
      3000,
    ),
    seed: values['seed'] === undefined ? undefined : integer('seed', values['seed'] as string, 0),
    logLevel: values['verbose'] ? 'INFO' : 'WARN',
    visibilityTimeoutSeconds: 10,
    maxReceiveCount: 3,
  };
}

async function main(): Promise<void> {
  const options = parseStartArgs(process.argv.slice(2));
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
  });
  try {
    const summary = await runLocal(options, {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
      interrupted,
    });
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
