/**
 * The command line of `npm start`, parsed without side effects so every rule is unit-tested:
 * `bin/start.ts` prints the help or the usage error and exits.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { describeArgsError, MAX_PORT, MAX_TIMER_MS, wholeNumber } from '../shared/args';
import type { RunOptions } from './run-contract';

/** Environment variables `npm start` reads: the credentials for `--service-url`, kept out of `ps`. */
export const CREDENTIAL_VARIABLES = { clientId: 'IDV_CLIENT_ID', clientSecret: 'IDV_CLIENT_SECRET' } as const;

/** `npm start -- --help`. */
export const START_HELP = `Usage: npm start -- [options]

Runs the results pipeline locally: simulator, DynamoDB/S3/SQS emulators, local Secrets Manager and
EventBridge, the webhook endpoint, the poll schedule and the SQS event source around the real handlers.

Options:
  --demo N                  demo transactions to create (default 6 against the simulator, 0 otherwise)
  --no-demo-failure         no deliberate failure among the demo transactions (a plain run against
                            the simulator has one: its result reaches the DLQ, a redrive stores it;
                            never with --exit-when-done or --once)
  --exit-when-done          exit 0 once every demo transaction is stored and announced
  --once                    one poll, drain the queue (stored, unavailable or dead-lettered), exit
  --poll-interval SECONDS   poll schedule (default 60)
  --port N                  webhook endpoint port, 0–${MAX_PORT} (default 3000; 0 picks a free one)
  --simulator-port N        simulator port, 0–${MAX_PORT} (default 4010, or a free one when 4010 is
                            taken; 0 picks a free one; a port given is that port or an error)
  --service-url URL         use this service instead of the simulator (needs the credentials below)
  --client-id ID            client id for --service-url (or IDV_CLIENT_ID)
  --client-secret SECRET    client secret for --service-url (or IDV_CLIENT_SECRET; prefer the
                            variable: flags show in ps)
  --environment ENV         staging or production (default staging; mock-test needs staging, so
                            production needs --demo 0: the demo transactions use mock-test)
  --data-dir DIR            persistent state (default .local)
  --timeout SECONDS         limit of --exit-when-done and --once only (default 300); a plain
                            run goes on until Ctrl-C
  --completion-delay-ms N   simulator delay of transactions without mock-test (default 3000)
  --links-await-browser     secure links without mock-test wait for you at their link (the
                            simulator's hosted page: pick the outcome or upload sample documents)
                            instead of completing by themselves after the delay
  --seed N                  simulator seed (repeatable runs)
  --retention-days N        retention of stored results (default 30)
  --concurrency N           fetch-result invocations at once, 1–10 (default 1; each runs the
                            records of its batch two at a time)
  --service-rate N          requests per second the service allows: every invocation of the run
                            shares this pace (default none: only a 429's Retry-After slows it)
  --verbose                 handler logs at INFO (default WARN)
  --rule FILE.json          a local EventBridge rule (repeatable): event lines name the rules they
                            match, matching events go to <data-dir>/rules/<rule name>.jsonl
  -h, --help                show this help

IDV_CLIENT_ID and IDV_CLIENT_SECRET are read only together with --service-url (a flag wins over its
variable); without --service-url the run always uses the simulator, whatever IDV_BASE_URL says.`;

const OPTIONS = {
  demo: { type: 'string' },
  'no-demo-failure': { type: 'boolean' },
  'exit-when-done': { type: 'boolean' },
  once: { type: 'boolean' },
  'poll-interval': { type: 'string' },
  port: { type: 'string' },
  'simulator-port': { type: 'string' },
  'service-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  environment: { type: 'string' },
  'data-dir': { type: 'string' },
  timeout: { type: 'string' },
  'completion-delay-ms': { type: 'string' },
  'links-await-browser': { type: 'boolean' },
  seed: { type: 'string' },
  'retention-days': { type: 'string' },
  verbose: { type: 'boolean' },
  concurrency: { type: 'string' },
  'service-rate': { type: 'string' },
  rule: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} satisfies NonNullable<ParseArgsConfig['options']>;

/** What the command line asks for: the help, a run, or nothing (a usage error naming the problem). */
export type StartArgs =
  | { kind: 'help' }
  | { kind: 'run'; options: RunOptions }
  | { kind: 'usage'; message: string };

class StartUsageError extends Error {}

/** Parses `argv` (after `--`) with `env` for the credential variables. Never exits or prints. */
export function parseStartArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): StartArgs {
  try {
    return parse(argv, env);
  } catch (error) {
    if (error instanceof StartUsageError) return { kind: 'usage', message: error.message };
    throw error;
  }
}

function parse(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): StartArgs {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new StartUsageError(describeArgsError(error, OPTIONS));
  }
  if (values['help']) return { kind: 'help' };
  const text = (name: string) => values[name] as string | undefined;
  const number = (name: string, fallback: number, min: number, max: number): number => {
    const parsed = wholeNumber(name, text(name), min, max);
    if ('problem' in parsed) throw new StartUsageError(parsed.problem);
    return parsed.value ?? fallback;
  };

  const serviceUrl = text('service-url');
  if (serviceUrl !== undefined) {
    try {
      new URL(serviceUrl);
    } catch {
      throw new StartUsageError('--service-url must be an absolute URL');
    }
  }
  // Credentials: a flag, else its variable, and only for --service-url. The simulator has its own, so
  // credentials without --service-url are a mistake (the user meant another service) unless they come
  // from variables set for other tools.
  const clientId = text('client-id') || undefined;
  const clientSecret = text('client-secret') || undefined;
  if (serviceUrl === undefined && (clientId !== undefined || clientSecret !== undefined)) {
    throw new StartUsageError(
      '--client-id and --client-secret only apply with --service-url (the simulator has its own)',
    );
  }
  const credentials =
    serviceUrl === undefined
      ? {}
      : {
          clientId: clientId ?? (env[CREDENTIAL_VARIABLES.clientId] || undefined),
          clientSecret: clientSecret ?? (env[CREDENTIAL_VARIABLES.clientSecret] || undefined),
        };
  if (serviceUrl !== undefined) {
    const missing = [
      credentials.clientId ? undefined : `--client-id (or ${CREDENTIAL_VARIABLES.clientId})`,
      credentials.clientSecret ? undefined : `--client-secret (or ${CREDENTIAL_VARIABLES.clientSecret})`,
    ].filter((flag) => flag !== undefined);
    if (missing.length > 0) {
      throw new StartUsageError(
        `--service-url needs the credentials of that service: missing ${missing.join(' and ')}`,
      );
    }
  }

  const environment = text('environment') ?? 'staging';
  if (environment !== 'staging' && environment !== 'production')
    throw new StartUsageError('--environment must be staging or production');
  if (values['exit-when-done'] && values['once'])
    throw new StartUsageError('use either --exit-when-done or --once');
  const linksAwaitBrowser = values['links-await-browser'] === true;
  if (linksAwaitBrowser && serviceUrl !== undefined) {
    throw new StartUsageError('--links-await-browser is for the simulator; it cannot apply to --service-url');
  }
  if (linksAwaitBrowser && (values['exit-when-done'] === true || values['once'] === true)) {
    // Those runs end by themselves; a link waiting for a person would hold them until the timeout.
    throw new StartUsageError(
      '--links-await-browser waits for a person: use it without --exit-when-done or --once',
    );
  }
  const explicitDemo = values['demo'] !== undefined;
  const maxSeconds = Math.floor(MAX_TIMER_MS / 1000);
  const seed = wholeNumber('seed', text('seed'), 0, 2 ** 32 - 1);
  if ('problem' in seed) throw new StartUsageError(seed.problem);
  const demo = number('demo', serviceUrl ? 0 : 6, 0, 10_000);
  if (environment === 'production' && demo > 0) {
    // The demo transactions use mock-test, which the client refuses to send to production: refuse the
    // run now rather than start one that creates nothing.
    throw new StartUsageError(
      `--environment production cannot run the demo (its transactions use mock-test, which only staging honours): pass --demo 0, or use --environment staging`,
    );
  }
  const simulatorPort = text('simulator-port');
  if (simulatorPort !== undefined && serviceUrl !== undefined) {
    throw new StartUsageError('--simulator-port is for the simulator; it cannot apply to --service-url');
  }
  // The deliberate failure is for a newcomer watching a plain run: a run meant to end by itself
  // (--exit-when-done, --once) must not wait for, or end on, a failure it was asked to produce.
  const demoFailure =
    serviceUrl === undefined &&
    demo >= 2 &&
    values['no-demo-failure'] !== true &&
    values['exit-when-done'] !== true &&
    values['once'] !== true;
  return {
    kind: 'run',
    options: {
      dataDir: text('data-dir') ?? '.local',
      demo,
      demoFailure,
      // The default stream trickles in so results visibly arrive one by one; an explicit count is quick.
      demoSpacingMs: explicitDemo ? 100 : 4000,
      exitWhenDone: values['exit-when-done'] === true,
      once: values['once'] === true,
      pollIntervalSeconds: number('poll-interval', 60, 1, maxSeconds),
      port: number('port', 3000, 0, MAX_PORT),
      ...(simulatorPort !== undefined && { simulatorPort: number('simulator-port', 0, 0, MAX_PORT) }),
      serviceUrl,
      ...credentials,
      environment,
      retentionDays: number('retention-days', 30, 1, 36_500),
      timeoutSeconds: number('timeout', 300, 1, maxSeconds),
      completionDelayMs: number('completion-delay-ms', 3000, 0, MAX_TIMER_MS),
      linksAwaitBrowser,
      seed: seed.value,
      logLevel: values['verbose'] ? 'INFO' : 'WARN',
      ruleFiles: (values['rule'] as string[] | undefined) ?? [],
      visibilityTimeoutSeconds: 10,
      maxReceiveCount: 3,
      concurrency: number('concurrency', 1, 1, 10),
      ...(text('service-rate') !== undefined && { serviceRate: number('service-rate', 1, 1, 10_000) }),
    },
  };
}
