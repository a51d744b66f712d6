/**
 * Command lines of the benches (`node:util` `parseArgs`, strict): `--help` prints the usage, an unknown
 * flag or a bad value is a usage error (exit 2) instead of a silent full run with the defaults.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { describeArgsError, wholeNumber } from '../../shared/args';

/** Parsed flag values, as `parseArgs` returns them. */
export type BenchValues = Record<string, string | boolean | undefined>;

type Flags = NonNullable<ParseArgsConfig['options']>;

/** Flags of `bench/fetch-result.ts`. */
export const FETCH_FLAGS = {
  profiles: { type: 'string' },
  probe: { type: 'string' },
  latency: { type: 'string' },
  throughput: { type: 'string' },
  trace: { type: 'boolean' },
  sizes: { type: 'string' },
  repeats: { type: 'string' },
  huge: { type: 'boolean' },
  tracing: { type: 'boolean' },
} satisfies Flags;

/** Flags of `bench/webhook.ts`. */
export const WEBHOOK_FLAGS = {
  seconds: { type: 'string' },
  concurrency: { type: 'string' },
} satisfies Flags;

/** Flags of `bench/latency.ts`. */
export const LATENCY_FLAGS = {
  'latency-results': { type: 'string' },
  'poll-interval': { type: 'string' },
} satisfies Flags;

/** Flags of `bench/backlog.ts`. */
export const BACKLOG_FLAGS = {
  backlog: { type: 'string' },
  rate: { type: 'string' },
  containers: { type: 'string' },
  unpaced: { type: 'boolean' },
} satisfies Flags;

/** A wrong command line; the message names the flag. */
export class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError';
}

/** What a bench command line asks for. */
export type BenchArgs<T> =
  | { kind: 'help' }
  | { kind: 'usage'; message: string }
  | { kind: 'run'; options: T };

/**
 * Parses `argv` strictly against `flags` (plus `-h/--help`) and turns the values into options with
 * `build`, which throws {@link BenchUsageError} for a bad value. Never prints or exits.
 */
export function parseBenchArgs<T>(
  argv: readonly string[],
  flags: Flags,
  build: (values: BenchValues) => T,
): BenchArgs<T> {
  const options = { ...flags, help: { type: 'boolean', short: 'h' } } satisfies Flags;
  let values: BenchValues;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }) as {
      values: BenchValues;
    });
  } catch (error) {
    return { kind: 'usage', message: describeArgsError(error, options) };
  }
  if (values['help'] === true) return { kind: 'help' };
  try {
    return { kind: 'run', options: build(values) };
  } catch (error) {
    if (error instanceof BenchUsageError) return { kind: 'usage', message: error.message };
    throw error;
  }
}

/** The options of a `run`; prints the usage and exits 0 for `help`, the message and exits 2 for `usage`. */
export function optionsOrExit<T>(args: BenchArgs<T>, name: string, usage: string): T {
  if (args.kind === 'run') return args.options;
  if (args.kind === 'help') {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  process.stderr.write(`${name}: ${args.message} (see --help)\n`);
  process.exit(2);
}

/** A count flag (whole number ≥ 1, at most `max`), else `fallback`. */
export function countFlag(values: BenchValues, name: string, fallback: number, max = 100_000): number {
  const parsed = wholeNumber(name, values[name] as string | undefined, 1, max);
  if ('problem' in parsed) throw new BenchUsageError(parsed.problem);
  return parsed.value ?? fallback;
}
