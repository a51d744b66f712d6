/**
 * The `idv` CLI: finds the command in the registry, parses its flags strictly with `node:util`
 * `parseArgs`, runs it and prints its value as JSON on stdout. Errors: `idv: <message>` on stderr,
 * exit 2 for usage errors (a wrong command line, or a request the spec forbids: nothing was sent), 1 for
 * everything else, a service's `{"success": false}` answer included; a stack trace only with `IDV_DEBUG=1`.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { closest, describeArgsError } from '../../shared/args';
import type { IdvClient } from '../../shared/client/client';
import { MockTestNotAllowedError, RequestValidationError, ServiceError } from '../../shared/client/errors';
import { escapeControlsByLine, safeJson } from '../../shared/terminal-text';
import { COMMANDS, MOVED_COMMANDS } from './commands';
import { CONNECTION_HELP, CONNECTION_OPTIONS, clientFromFlags } from './connection';
import { DEPLOYMENT_HELP, DEPLOYMENT_OPTIONS, type DeploymentOutputs, findDeployment } from './deployment';
import { UsageError } from './errors';
import { typedFlagOfField, withFlagNames } from './field-flags';
import type { FlagValues } from './flag-values';
import type { CliCommand, CliIo } from './types';

const HELP_FLAGS = new Set(['--help', '-h']);
const VERSION_FLAGS = new Set(['--version', '-V']);

/** Runs the CLI for `argv` (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo, commands: readonly CliCommand[] = COMMANDS) {
  const seen: Seen = { values: {} };
  try {
    return await dispatch(argv, io, commands, seen);
  } catch (error) {
    return reportError(error, io, seen);
  }
}

/** What dispatch learnt before an error: the command and its flags, for the error's report. */
interface Seen {
  values: FlagValues;
  command?: string;
}

/** The version of the package, for `idv --version`. */
function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return String((JSON.parse(text) as { version?: unknown }).version ?? 'unknown');
}

async function dispatch(
  argv: readonly string[],
  io: CliIo,
  commands: readonly CliCommand[],
  seen: Seen,
): Promise<number> {
  if (argv.length === 1 && VERSION_FLAGS.has(argv[0]!)) {
    io.stdout(`idv ${packageVersion()}\n`);
    return 0;
  }
  const words = leadingWords(argv);
  const moved = MOVED_COMMANDS.find((m) => m.path.every((part, i) => words[i] === part));
  if (moved) throw new UsageError(moved.message, moved.to);
  const command = findCommand(words, commands);
  if (!command) {
    const group = words.length > 0 ? commands.filter((c) => c.path[0] === words[0]) : [];
    const asksHelp = argv.some((a) => HELP_FLAGS.has(a));
    if (group.length > 0 && asksHelp) {
      io.stdout(listHelp(group, `idv ${words[0]} <command>`));
      return 0;
    }
    if (words.length === 0 && asksHelp) {
      io.stdout(listHelp(commands, 'idv <command> [flags]'));
      return 0;
    }
    if (words.length === 0) {
      io.stderr(listHelp(commands, 'idv <command> [flags]'));
      return 2;
    }
    if (group.length > 0) {
      throw new UsageError(
        `"idv ${words.join(' ')}" is not a command; try: ${group.map((c) => c.path.join(' ')).join(', ')}`,
      );
    }
    const guess = closest(words[0]!, [...new Set(commands.map((c) => c.path[0]!))]);
    throw new UsageError(`unknown command "${words[0]}"${guess ? ` (did you mean "idv ${guess}"?)` : ''}`);
  }

  const name = command.path.join(' ');
  seen.command = name;
  const rest = argv.slice(command.path.length);
  if (rest.some((a) => HELP_FLAGS.has(a))) {
    io.stdout(commandHelp(command));
    return 0;
  }
  const connected = command.connection !== false;
  const options = {
    ...(connected ? CONNECTION_OPTIONS : {}),
    ...(command.deployment ? DEPLOYMENT_OPTIONS : {}),
    ...command.options,
  };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(describeArgsError(error, options, name), name);
  }
  seen.values = parsed.values;
  const positionals = parsed.positionals;
  if (positionals.length > 0 && !command.positionals) {
    throw new UsageError(`unexpected argument "${positionals[0]}"`, name);
  }
  let client: IdvClient | undefined;
  let deployment: Promise<DeploymentOutputs | undefined> | undefined;
  const value = await command
    .run({
      values: parsed.values,
      positionals,
      io,
      client: () => {
        client ??= clientFromFlags(parsed.values, io, name);
        return client;
      },
      deployment: () => {
        deployment ??= findDeployment({
          values: parsed.values,
          env: io.env,
          cwd: io.cwd,
          command: name,
          stackReader:
            io.stackReader ?? (async () => (await import('./cloudformation')).cloudFormationReader()),
        });
        return deployment;
      },
    })
    .catch((error: unknown) => {
      // Helpers such as readInput do not know the command; point the usage hint at this one.
      if (error instanceof UsageError && error.command === undefined)
        throw new UsageError(error.message, name);
      throw withFlagNames(error, parsed.values);
    });
  if (value !== undefined) io.stdout(`${safeJson(value, 2)}\n`);
  if (isBusinessFailure(value)) {
    // The answer is printed whole (its errors say what failed); the exit code tells a script it failed.
    io.stderr(`idv: the service answered "success": false; see the answer above\n`);
    return 1;
  }
  return 0;
}

/** A service answer that reports a failure in its body (`{"success": false, …}`, spec §4.2, §4.4). */
function isBusinessFailure(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { success?: unknown }).success === false;
}

/** Words before the first flag, e.g. `secure-link create` of `secure-link create --product X`. */
function leadingWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  return words;
}

/** The command with the longest path that `words` starts with. */
function findCommand(words: readonly string[], commands: readonly CliCommand[]): CliCommand | undefined {
  let best: CliCommand | undefined;
  for (const command of commands) {
    const matches = command.path.every((part, i) => words[i] === part);
    if (matches && (!best || command.path.length > best.path.length)) best = command;
  }
  return best;
}

function listHelp(commands: readonly CliCommand[], usage: string): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  const line = (c: CliCommand) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`;
  const service = commands.filter((c) => c.connection !== false);
  const stored = commands.filter((c) => c.connection === false);
  // Two headings, so that a command that asks the service and one that reads what the pipeline stored
  // (`service result get`, `results get`) are never mistaken for each other.
  const sections = [
    ...(service.length > 0
      ? [`Service commands (ask the verification service):\n${service.map(line).join('\n')}`]
      : []),
    ...(stored.length > 0
      ? [
          `Pipeline commands (a deployment's stored results, queues, events, analytics; or --local):\n${stored.map(line).join('\n')}`,
        ]
      : []),
  ];
  // `idv results --help` and `idv dlq --help` list commands that read AWS, not the service.
  const connectionHelp = service.length > 0 ? `\n${CONNECTION_HELP}\n` : '';
  return `Usage: ${usage}

${sections.join('\n\n')}

Run "idv <command> --help" for its flags. Output is JSON on stdout; errors go to stderr with a
non-zero exit code (2 for usage errors). "idv --version" prints the version.
${connectionHelp}`;
}

function commandHelp(command: CliCommand): string {
  const parts = [`Usage: idv ${command.usage}`, '', command.summary];
  if (command.help) parts.push('', command.help);
  if (command.connection !== false) parts.push('', CONNECTION_HELP);
  if (command.deployment) parts.push('', DEPLOYMENT_HELP);
  return `${parts.join('\n')}\n`;
}

function reportError(error: unknown, io: CliIo, seen: Seen): number {
  const message = error instanceof Error ? error.message : String(error);
  // A message may quote a service's or a file's text: shown, never obeyed (shared/terminal-text.ts).
  io.stderr(`idv: ${escapeControlsByLine(message)}\n`);
  if (error instanceof ServiceError) io.stderr(serviceWords(error, seen.values));
  // A request the spec forbids is a wrong command line too (as is `--mock-test` against production):
  // nothing was sent.
  const usage =
    error instanceof UsageError ||
    error instanceof RequestValidationError ||
    error instanceof MockTestNotAllowedError;
  if (usage) {
    const command = error instanceof UsageError ? error.command : seen.command;
    io.stderr(`Run "idv ${command ?? ''}${command ? ' ' : ''}--help" for usage.\n`);
  }
  if (io.env['IDV_DEBUG'] === '1' && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return usage ? 2 : 1;
}

/**
 * The service's own words of a refusal, for the person who made the request: its `message` and each
 * `details` entry (with the flag behind a field it names), already bounded, printable and scrubbed by the
 * client (`shared/client/error-text.ts`), and the request id for support.
 */
function serviceWords(error: ServiceError, values: FlagValues): string {
  const lines: string[] = [];
  const text = error.serviceText;
  if (text?.message !== undefined) lines.push(`  service message: ${text.message}`);
  for (const detail of text?.details ?? []) {
    const flag = detail.field === undefined ? undefined : typedFlagOfField(detail.field, values);
    const field = detail.field === undefined ? '' : `${detail.field}${flag ? ` (${flag})` : ''}: `;
    lines.push(`  - ${field}${detail.description}`);
  }
  const more = (text?.detailsTotal ?? 0) - (text?.details.length ?? 0);
  if (more > 0) lines.push(`  (${more} more detail${more === 1 ? '' : 's'} not shown)`);
  if (error.requestId !== undefined) lines.push(`  request id: ${error.requestId}`);
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
