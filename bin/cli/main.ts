/**
 * The `idv` CLI: finds the command in the registry, parses its flags strictly with `node:util`
 * `parseArgs`, runs it and prints its value as JSON on stdout. Errors: `idv: <message>` on stderr,
 * exit 2 for usage errors, 1 for everything else; a stack trace only with `IDV_DEBUG=1`.
 */
import { parseArgs } from 'node:util';
import { describeArgsError } from '../../shared/args';
import type { IdvClient } from '../../shared/client/client';
import { COMMANDS } from './commands';
import { CONNECTION_HELP, CONNECTION_OPTIONS, clientFromFlags } from './connection';
import { DEPLOYMENT_HELP, DEPLOYMENT_OPTIONS, type DeploymentOutputs, findDeployment } from './deployment';
import { UsageError } from './errors';
import { withFlagNames } from './field-flags';
import type { CliCommand, CliIo } from './types';

const HELP_FLAGS = new Set(['--help', '-h']);

/** Runs the CLI for `argv` (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo, commands: readonly CliCommand[] = COMMANDS) {
  try {
    return await dispatch(argv, io, commands);
  } catch (error) {
    return reportError(error, io);
  }
}

async function dispatch(
  argv: readonly string[],
  io: CliIo,
  commands: readonly CliCommand[],
): Promise<number> {
  const words = leadingWords(argv);
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
    throw new UsageError(`unknown command "${words[0]}"`);
  }

  const name = command.path.join(' ');
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
      throw withFlagNames(error);
    });
  if (value !== undefined) io.stdout(`${JSON.stringify(value, null, 2)}\n`);
  return 0;
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
  const lines = commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  // `idv results --help` and `idv dlq --help` list commands that read AWS, not the service.
  const connectionHelp = commands.some((c) => c.connection !== false) ? `\n${CONNECTION_HELP}\n` : '';
  return `Usage: ${usage}

Commands:
${lines.join('\n')}

Run "idv <command> --help" for its flags. Output is JSON on stdout; errors go to stderr with a
non-zero exit code (2 for usage errors).
${connectionHelp}`;
}

function commandHelp(command: CliCommand): string {
  const parts = [`Usage: idv ${command.usage}`, '', command.summary];
  if (command.help) parts.push('', command.help);
  if (command.connection !== false) parts.push('', CONNECTION_HELP);
  if (command.deployment) parts.push('', DEPLOYMENT_HELP);
  return `${parts.join('\n')}\n`;
}

function reportError(error: unknown, io: CliIo): number {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`idv: ${message}\n`);
  if (error instanceof UsageError) {
    io.stderr(`Run "idv ${error.command ?? ''}${error.command ? ' ' : ''}--help" for usage.\n`);
  }
  if (io.env['IDV_DEBUG'] === '1' && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return error instanceof UsageError ? 2 : 1;
}
