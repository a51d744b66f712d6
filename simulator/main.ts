/**
 * Command line entry of the simulator: `npm run simulator -- --port 4010 --client-id ID --client-secret S`.
 * Prints `Simulator listening on http://127.0.0.1:N (staging)` when ready; stops on SIGINT/SIGTERM.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import {
  ENVIRONMENTS,
  MOCK_TEST_VALUES,
  type MockTestValue,
  type ServiceEnvironment,
} from '../shared/api/enums';
import { describeArgsError, MAX_PORT } from '../shared/args';
import type { FaultOptions } from './faults';
import { type SimulatorOptions, startSimulator } from './server';

const HELP = `Usage: npm run simulator -- --client-id ID --client-secret SECRET [options]

Options:
  --port N                    port to listen on (default 0: a free port)
  --host HOST                 address to bind (default 127.0.0.1)
  --client-id ID              OAuth client id accepted by /api/v2/oauth/token (required)
  --client-secret SECRET      OAuth client secret (required)
  --environment ENV           staging (honours mock-test) or production (default staging)
  --seed N                    seed of outcomes, fake data, images and faults (default random, printed);
                              ids are always random
  --state-dir DIR             keep the state in DIR across restarts (pending transactions, links,
                              results, tokens; files 0600); default: in memory only
  --completion-delay-ms N     delay before a transaction without mock-test completes (default 5000)
  --token-ttl N               access token lifetime in seconds (default 3600)
  --retention-days N          data retention in days (default 30)
  --result-webhook-url URL    POST result notifications here
  --upload-webhook-url URL    POST secure-link upload notifications here
  --fault-5xx RATE            share of requests answered 500/502/503
  --fault-429 RATE            share of requests answered 429 with Retry-After
  --retry-after N             Retry-After seconds of injected 429s (default 1)
  --rate-limit N              requests per second the account may make; above it 429 with the
                              Retry-After (whole seconds) until the next is allowed (default none)
  --fault-slow RATE           share of requests delayed by --slow-ms
  --slow-ms N                 delay of slow requests (default 2000)
  --fault-drop RATE           share of requests whose connection is dropped
  --fault-truncate RATE       share of responses cut off half-way
  --ignore-scopes             accept any live token on every endpoint (default: a token needs the
                              scope of the endpoint, else 403 PermissionDenied)
  --no-driving-license-check  the account's driving license workflow is off: an additional
                              DRIVING_LICENSE document of an RTW product yields no drivingLicense section
  --outcome VALUE             outcome of every transaction completed without mock-test (a mock-test
                              value; default a seeded mix)
  --links-await-browser       secure links wait for their end user in the browser (open the link:
                              pick an outcome or upload sample documents) instead of completing
                              after --completion-delay-ms
  --debug                     print debug lines on stderr (request fields that were ignored)
  -h, --help                  show this help

Controls for tests and the local run are served under /__sim (see simulator/README.md).`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  environment: { type: 'string' },
  seed: { type: 'string' },
  'state-dir': { type: 'string' },
  'completion-delay-ms': { type: 'string' },
  'token-ttl': { type: 'string' },
  'retention-days': { type: 'string' },
  'result-webhook-url': { type: 'string' },
  'upload-webhook-url': { type: 'string' },
  'fault-5xx': { type: 'string' },
  'fault-429': { type: 'string' },
  'retry-after': { type: 'string' },
  'rate-limit': { type: 'string' },
  'fault-slow': { type: 'string' },
  'slow-ms': { type: 'string' },
  'fault-drop': { type: 'string' },
  'fault-truncate': { type: 'string' },
  'ignore-scopes': { type: 'boolean' },
  'no-driving-license-check': { type: 'boolean' },
  outcome: { type: 'string' },
  'links-await-browser': { type: 'boolean' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies NonNullable<ParseArgsConfig['options']>;

function fail(message: string): never {
  console.error(`simulator: ${message}`);
  process.exit(2);
}

function num(name: string, value: string | undefined, opts: { rate?: boolean } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || (opts.rate && n > 1)) {
    fail(`--${name} must be ${opts.rate ? 'a share between 0 and 1' : 'a non-negative number'}`);
  }
  return n;
}

/** A port from 0 to 65535 (`listen` would throw a RangeError above it). */
function port(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^[0-9]+$/.test(value) || Number(value) > MAX_PORT)
    fail(`--port must be a whole number from 0 to ${MAX_PORT}`);
  return Number(value);
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: OPTIONS,
      strict: true,
    }));
  } catch (err) {
    fail(`${describeArgsError(err, OPTIONS)} (see --help)`);
  }
  if (values.help) {
    console.log(HELP);
    return;
  }
  const str = (k: string): string | undefined => values[k] as string | undefined;
  const clientId = str('client-id');
  const clientSecret = str('client-secret');
  if (!clientId || !clientSecret) fail('--client-id and --client-secret are required (see --help)');
  const environment = (str('environment') ?? 'staging') as ServiceEnvironment;
  if (!ENVIRONMENTS.includes(environment)) fail(`--environment must be one of ${ENVIRONMENTS.join(', ')}`);

  const faults: FaultOptions = {};
  const setFault = (key: keyof FaultOptions, flag: string, rate = true) => {
    const v = num(flag, str(flag), { rate });
    if (v !== undefined) (faults as Record<string, number>)[key] = v;
  };
  setFault('serverErrorRate', 'fault-5xx');
  setFault('rateLimitRate', 'fault-429');
  setFault('retryAfterSeconds', 'retry-after', false);
  setFault('rateLimitPerSecond', 'rate-limit', false);
  if (faults.rateLimitPerSecond === 0) fail('--rate-limit must be a positive number');
  setFault('slowRate', 'fault-slow');
  setFault('slowMs', 'slow-ms', false);
  setFault('dropRate', 'fault-drop');
  setFault('truncateRate', 'fault-truncate');

  const retentionDays = num('retention-days', str('retention-days'));
  const options: SimulatorOptions = {
    clientId,
    clientSecret,
    environment,
    host: str('host') ?? '127.0.0.1',
    port: port(str('port')),
    faults,
    warmImagePool: true,
    enforceScopes: values['ignore-scopes'] !== true,
    drivingLicenseCheck: values['no-driving-license-check'] !== true,
    linksAwaitBrowser: values['links-await-browser'] === true,
  };
  const outcome = str('outcome');
  if (outcome !== undefined) {
    if (!(MOCK_TEST_VALUES as readonly string[]).includes(outcome)) {
      fail(`--outcome must be one of ${MOCK_TEST_VALUES.join(', ')}`);
    }
    options.outcome = outcome as MockTestValue;
  }
  if (values.debug) options.onDebug = (message) => console.error(`simulator: debug: ${message}`);
  const stateDir = str('state-dir');
  if (stateDir !== undefined) {
    if (stateDir === '') fail('--state-dir needs a directory');
    options.stateDir = stateDir;
  }
  const seed = num('seed', str('seed'));
  if (seed !== undefined) options.seed = seed;
  const delay = num('completion-delay-ms', str('completion-delay-ms'));
  if (delay !== undefined) options.completionDelayMs = delay;
  const ttl = num('token-ttl', str('token-ttl'));
  if (ttl !== undefined) options.tokenTtlSeconds = ttl;
  if (retentionDays !== undefined) options.retentionMs = retentionDays * 86_400_000;
  const resultWebhookUrl = str('result-webhook-url');
  if (resultWebhookUrl) options.resultWebhookUrl = resultWebhookUrl;
  const uploadWebhookUrl = str('upload-webhook-url');
  if (uploadWebhookUrl) options.uploadWebhookUrl = uploadWebhookUrl;

  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    sim = await startSimulator(options);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      fail(
        `port ${options.port} on ${options.host} is already in use: pass another --port, or --port 0 for a free one`,
      );
    }
    if (code === 'EACCES') fail(`no permission to listen on port ${options.port}`);
    fail(`could not start: ${err instanceof Error ? err.message : String(err)}`);
  }
  console.log(`Simulator listening on ${sim.url} (${sim.environment})`);
  // Every user of the machine reaches a loopback port: these credentials guard nothing from them.
  console.log('simulator: for one user: anyone on this machine can use it with the credentials given');
  console.log(`simulator: seed ${sim.seed} (pass --seed ${sim.seed} to repeat this run's content)`);
  for (const note of sim.restored?.notes ?? []) console.error(`simulator: ${note}`);
  if (sim.restored && sim.restored.transactions > 0) {
    console.log(
      `simulator: kept ${sim.restored.transactions} transaction(s) of ${options.stateDir}: ${sim.restored.open} open, ${sim.restored.results} result(s)`,
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`simulator: ${signal}, stopping`);
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

await main();
