import { describe, expect, it } from 'vitest';
import { fetchOptionsFromValues } from '../../bench/fetch-result';
import { FETCH_FLAGS, parseBenchArgs, WEBHOOK_FLAGS } from '../../bench/support/args';
import { RUN_FLAGS, RUN_USAGE, runOptionsFromValues } from '../../bench/support/run-args';
import { webhookOptionsFromValues } from '../../bench/webhook';

const runArgs = (...argv: string[]) => parseBenchArgs(argv, RUN_FLAGS, runOptionsFromValues);

describe('npm run bench command line', () => {
  it('runs both benches with the defaults when no flag is given', () => {
    // Act
    const args = runArgs();

    // Assess
    expect(args.kind).toBe('run');
    if (args.kind !== 'run') return;
    expect(args.options.only).toBeUndefined();
    expect(args.options.fetch).toMatchObject({ probe: 3, latency: 25, throughput: 40, trace: false });
    expect(args.options.fetch.profiles.map((p) => p.name)).toEqual(['small', 'medium', 'large']);
    expect(args.options.webhook).toEqual({ seconds: 5, concurrency: 16 });
    expect(args.options.backlog).toEqual({ backlog: 10_000, rate: 25, containers: 4 });
  });

  it('takes the latency bench, its results per path and its poll interval', () => {
    // Act
    const args = runArgs('--only', 'latency', '--latency-results', '30', '--poll-interval', '10');
    const defaults = runArgs();

    // Assess
    expect(args).toMatchObject({ kind: 'run', options: { only: 'latency' } });
    if (args.kind !== 'run' || defaults.kind !== 'run') return;
    expect(args.options.latency).toEqual({ results: 30, pollIntervalSeconds: 10 });
    expect(defaults.options.latency).toEqual({ results: 60, pollIntervalSeconds: 5 });
    expect(runArgs('--poll-interval', '0')).toMatchObject({ kind: 'usage' });
  });

  it('asks for the help on --help and -h, whatever else is given', () => {
    // Act
    const long = runArgs('--help');
    const short = runArgs('-h', '--only', 'webhook');

    // Assess
    expect(long).toEqual({ kind: 'help' });
    expect(short).toEqual({ kind: 'help' });
    expect(RUN_USAGE).toContain('--only NAME');
    expect(RUN_USAGE).toContain('--profiles LIST');
    expect(RUN_USAGE).toContain('--concurrency N');
  });

  it.each([
    [['--bogus'], 'unknown flag --bogus'],
    [['--prob', '2'], 'unknown flag --prob (did you mean --probe?)'],
    [
      ['--only', 'fetchresult'],
      '--only must be fetch-result, webhook, backlog, latency or analytics (did you mean fetch-result?)',
    ],
    [['--only'], '--only needs a value'],
    [['--probe', '0'], '--probe must be a whole number from 1 to 100000'],
    [['--latency', 'ten'], '--latency must be a whole number from 1 to 100000'],
    [['--profiles', 'small,huge'], '--profiles takes some of small,medium,large (unknown: huge)'],
    [['--seconds', '1e3'], '--seconds must be a whole number from 1 to 3600'],
    [['--trace=yes'], '--trace takes no value'],
    [['--repeats', '0'], '--repeats must be a whole number from 1 to 100'],
    [['--rate', '0'], '--rate must be a whole number from 1 to 10000'],
    [['--containers', '33'], '--containers must be a whole number from 1 to 32'],
    [['extra'], 'unexpected argument "extra"'],
  ])('refuses %j: %s', (argv, message) => {
    // Act
    const args = runArgs(...argv);

    // Assess
    expect(args).toEqual({ kind: 'usage', message });
  });

  it('passes --only and every bench flag on', () => {
    // Act
    const args = runArgs(
      '--only',
      'fetch-result',
      '--profiles',
      'large',
      '--probe',
      '5',
      '--trace',
      '--repeats',
      '4',
    );

    // Assess
    expect(args.kind).toBe('run');
    if (args.kind !== 'run') return;
    expect(args.options.only).toBe('fetch-result');
    expect(args.options.fetch.profiles.map((p) => p.name)).toEqual(['large']);
    expect(args.options.fetch).toMatchObject({ probe: 5, trace: true, repeats: 4 });
  });

  it('takes the backlog bench and its flags', () => {
    // Act
    const args = runArgs('--only', 'backlog', '--backlog', '500', '--rate', '40', '--containers', '2');

    // Assess
    expect(args).toEqual({
      kind: 'run',
      options: expect.objectContaining({
        only: 'backlog',
        backlog: { backlog: 500, rate: 40, containers: 2 },
      }),
    });
  });
});

describe('bench scripts run on their own', () => {
  it('take only their own flags', () => {
    // Act
    const fetch = parseBenchArgs(['--seconds', '3'], FETCH_FLAGS, fetchOptionsFromValues);
    const webhook = parseBenchArgs(['--seconds', '3'], WEBHOOK_FLAGS, webhookOptionsFromValues);

    // Assess
    expect(fetch).toEqual({ kind: 'usage', message: 'unknown flag --seconds' });
    expect(webhook).toEqual({ kind: 'run', options: { seconds: 3, concurrency: 16 } });
  });
});
