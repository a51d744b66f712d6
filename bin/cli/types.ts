/**
 * Shapes shared by the `idv` CLI and its command modules. A command is data plus one `run` function, so
 * a new command (e.g. `idv results …`, `idv dlq redrive`) is one module and one line in `commands.ts`.
 */
import type { ParseArgsConfig } from 'node:util';
import type { IdvClient } from '../../shared/client/client';
import type { DeploymentOutputs, StackOutputsReader } from './deployment';
import type { FlagValues } from './flag-values';
import type { Ask } from './prompt';

/** Where the CLI reads and writes; the real process in `bin/idv.ts`, fakes in unit tests. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory that relative paths (`--image`, `--csv`, `--out`) are resolved against. */
  readonly cwd: string;
  /** Transport of the service client (tests pass a recording fetch). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Asks the operator for one value (`bin/cli/prompt.ts`); absent where there is no input. */
  readonly ask?: Ask;
  /** Reads a stack's outputs for `--stack` (tests pass a fake). @default CloudFormation DescribeStacks */
  readonly stackReader?: () => Promise<StackOutputsReader>;
}

/** What a command's `run` gets. */
export interface CommandContext {
  readonly values: FlagValues;
  readonly positionals: readonly string[];
  readonly io: CliIo;
  /** The service client built from `--base-url`/`IDV_BASE_URL` etc.; built on first use. */
  readonly client: () => IdvClient;
  /**
   * The outputs of the deployment `--stack`/`--outputs-file` (or their variables) name, read on first
   * use; `undefined` when none is named. Only for commands with `deployment: true`.
   */
  readonly deployment: () => Promise<DeploymentOutputs | undefined>;
}

/** One `idv` command. */
export interface CliCommand {
  /** Words after `idv`, e.g. `['secure-link', 'create']`. */
  readonly path: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** Full help text after the `Usage:` line (flags and their meaning). */
  readonly help: string;
  /** Usage line without the leading `idv`, e.g. `secure-link create --product P [...]`. */
  readonly usage: string;
  /** Flags of this command (the connection flags are added unless `connection` is false). */
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Whether the command takes positional arguments (e.g. RESULT_ID). @default false */
  readonly positionals?: boolean;
  /** Whether the command talks to the service and takes the connection flags. @default true */
  readonly connection?: boolean;
  /** Whether the command works on a deployment and takes `--stack`, `--outputs-file`, `--pipeline`. @default false */
  readonly deployment?: boolean;
  /** Does the work; a returned value is printed as JSON on stdout. */
  run(context: CommandContext): Promise<unknown>;
}
