import { describe, expect, it } from 'vitest';
import { parseStartArgs, START_HELP } from '../../local/start-args';

const CREDENTIALS = { IDV_CLIENT_ID: 'env-client', IDV_CLIENT_SECRET: 'env-secret' };

/** Flags of a run against a service of its own (not the simulator), with its credentials. */
const OTHER_SERVICE = ['--service-url', 'http://127.0.0.1:9', '--client-id', 'a', '--client-secret', 'b'];

describe('npm start command line', () => {
  it('runs the simulator with the defaults', () => {
    // Act
    const args = parseStartArgs([]);

    // Assess
    expect(args).toMatchObject({
      kind: 'run',
      options: { dataDir: '.local', demo: 6, port: 3000, pollIntervalSeconds: 60, timeoutSeconds: 300 },
    });
  });

  it('takes the concurrency and the service rate, one invocation and no pace by default', () => {
    // Act
    const plain = parseStartArgs([]);
    const paced = parseStartArgs(['--concurrency', '3', '--service-rate', '20']);

    // Assess
    expect(plain).toMatchObject({ kind: 'run', options: { concurrency: 1 } });
    expect(plain.kind === 'run' && 'serviceRate' in plain.options).toBe(false);
    expect(paced).toMatchObject({ kind: 'run', options: { concurrency: 3, serviceRate: 20 } });
  });

  it.each([
    [[], true],
    [['--demo', '3'], true],
    [['--no-demo-failure'], false],
    [['--demo', '0'], false],
    [['--demo', '1'], false],
    [['--exit-when-done'], false],
    [['--once'], false],
    [
      ['--service-url', 'http://127.0.0.1:9', '--client-id', 'c', '--client-secret', 's', '--demo', '6'],
      false,
    ],
  ])('has the deliberate demo failure with %j: %s', (argv, demoFailure) => {
    // Act
    const args = parseStartArgs(argv);

    // Assess
    expect(args).toMatchObject({ kind: 'run', options: { demoFailure } });
  });

  it.each([
    [['--port', '99999'], '--port must be a whole number from 0 to 65535'],
    [['--port', '-1'], '--port needs a value (for one starting with "-", write --port=VALUE)'],
    [['--port=-1'], '--port must be a whole number from 0 to 65535'],
    [['--port', ''], '--port must be a whole number from 0 to 65535'],
    [['--port', '3e3'], '--port must be a whole number from 0 to 65535'],
    [['--timeout', '9999999999'], '--timeout must be a whole number from 1 to 2147483'],
    [['--poll-interval', '0'], '--poll-interval must be a whole number from 1 to 2147483'],
    [['--completion-delay-ms', '1.5'], '--completion-delay-ms must be a whole number from 0 to 2147483647'],
    [['--seed=-3'], '--seed must be a whole number from 0 to 4294967295'],
    [['--demo', 'many'], '--demo must be a whole number from 0 to 10000'],
    [['--prot', '0'], 'unknown flag --prot (did you mean --port?)'],
    [['--port'], '--port needs a value'],
    [['--once=yes'], '--once takes no value'],
    [['--once', '--exit-when-done'], 'use either --exit-when-done or --once'],
    [['--concurrency', '11'], '--concurrency must be a whole number from 1 to 10'],
    [['--simulator-port', '65536'], '--simulator-port must be a whole number from 0 to 65535'],
    [
      ['--simulator-port', '0', ...OTHER_SERVICE],
      '--simulator-port is for the simulator; it cannot apply to --service-url',
    ],
    [['--service-rate', '0'], '--service-rate must be a whole number from 1 to 10000'],
    [
      ['--links-await-browser', ...OTHER_SERVICE],
      '--links-await-browser is for the simulator; it cannot apply to --service-url',
    ],
    [
      ['--links-await-browser', '--exit-when-done'],
      '--links-await-browser waits for a person: use it without --exit-when-done or --once',
    ],
  ])('refuses %j: %s', (argv, message) => {
    // Act
    const args = parseStartArgs(argv);

    // Assess
    expect(args).toEqual({ kind: 'usage', message });
  });

  it('takes the simulator port (0 for a free one), default none: 4010 or a free one', () => {
    // Act
    const plain = parseStartArgs([]);
    const given = parseStartArgs(['--simulator-port', '4711']);
    const any = parseStartArgs(['--simulator-port', '0', '--port', '0']);

    // Assess
    expect(plain.kind === 'run' && 'simulatorPort' in plain.options).toBe(false);
    expect(given).toMatchObject({ kind: 'run', options: { simulatorPort: 4711 } });
    expect(any).toMatchObject({ kind: 'run', options: { simulatorPort: 0, port: 0 } });
    expect(START_HELP).toMatch(/--simulator-port N +simulator port/);
    expect(START_HELP).toMatch(/--port N +webhook endpoint port.*0 picks a free one/);
  });

  it('runs production against the simulator only without the demo (it needs mock-test)', () => {
    // Act
    const refused = parseStartArgs(['--environment', 'production']);
    const explicit = parseStartArgs(['--environment', 'production', '--demo', '2']);
    const plain = parseStartArgs(['--environment', 'production', '--demo', '0']);

    // Assess
    const message =
      '--environment production cannot run the demo (its transactions use mock-test, which only staging honours): pass --demo 0, or use --environment staging';
    expect(refused).toEqual({ kind: 'usage', message });
    expect(explicit).toEqual({ kind: 'usage', message });
    expect(plain).toMatchObject({ kind: 'run', options: { environment: 'production', demo: 0 } });
  });

  it('lets secure links wait for the browser with --links-await-browser, and the help says so', () => {
    // Act
    const waiting = parseStartArgs(['--links-await-browser']);
    const plain = parseStartArgs([]);

    // Assess
    expect(waiting).toMatchObject({ kind: 'run', options: { linksAwaitBrowser: true } });
    expect(plain).toMatchObject({ kind: 'run', options: { linksAwaitBrowser: false } });
    expect(START_HELP).toContain('--links-await-browser');
  });

  it('asks for the help, which names the credential variables', () => {
    // Act
    const args = parseStartArgs(['--demo', '2', '-h']);

    // Assess
    expect(args).toEqual({ kind: 'help' });
    expect(START_HELP).toContain('IDV_CLIENT_ID');
    expect(START_HELP).toContain('IDV_CLIENT_SECRET');
  });
});

describe('npm start --service-url credentials', () => {
  it.each([
    [[], 'missing --client-id (or IDV_CLIENT_ID) and --client-secret (or IDV_CLIENT_SECRET)'],
    [['--client-id', 'c'], 'missing --client-secret (or IDV_CLIENT_SECRET)'],
    [['--client-secret', 's'], 'missing --client-id (or IDV_CLIENT_ID)'],
  ])('is a usage error without them (%j), naming what is missing', (flags, missing) => {
    // Act
    const args = parseStartArgs(['--service-url', 'http://127.0.0.1:9', '--once', ...flags]);

    // Assess
    expect(args).toEqual({
      kind: 'usage',
      message: `--service-url needs the credentials of that service: ${missing}`,
    });
  });

  it('reads IDV_CLIENT_ID and IDV_CLIENT_SECRET, a flag winning over its variable', () => {
    // Act
    const fromEnv = parseStartArgs(['--service-url', 'http://127.0.0.1:9'], CREDENTIALS);
    const mixed = parseStartArgs(
      ['--service-url', 'http://127.0.0.1:9', '--client-id', 'flag-client'],
      CREDENTIALS,
    );

    // Assess
    expect(fromEnv).toMatchObject({
      kind: 'run',
      options: { clientId: 'env-client', clientSecret: 'env-secret', demo: 0 },
    });
    expect(mixed).toMatchObject({
      kind: 'run',
      options: { clientId: 'flag-client', clientSecret: 'env-secret' },
    });
  });

  it('keeps the simulator when only the idv variables are set (IDV_BASE_URL included)', () => {
    // Act
    const args = parseStartArgs([], { ...CREDENTIALS, IDV_BASE_URL: 'https://staging.example' });

    // Assess
    expect(args.kind).toBe('run');
    if (args.kind !== 'run') return;
    expect(args.options.serviceUrl).toBeUndefined();
    expect(args.options.clientId).toBeUndefined();
    expect(args.options.clientSecret).toBeUndefined();
    expect(args.options.demo).toBe(6);
  });

  it('refuses credential flags without --service-url, rather than quietly using the simulator', () => {
    // Act
    const args = parseStartArgs(['--client-id', 'c', '--client-secret', 's']);

    // Assess
    expect(args).toEqual({
      kind: 'usage',
      message: '--client-id and --client-secret only apply with --service-url (the simulator has its own)',
    });
  });
});
