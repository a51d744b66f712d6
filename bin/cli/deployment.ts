/**
 * Which deployment an AWS command works on, found by its stack rather than by re-deriving names: the
 * outputs `IdvPipeline` writes (shared/deployment-outputs.ts) name the table, bucket, queues, archive,
 * workgroup and secrets. `--stack NAME` (IDV_STACK) reads them with CloudFormation `DescribeStacks`;
 * `--outputs-file FILE` (IDV_OUTPUTS_FILE) reads the file `cdk deploy --outputs-file FILE` wrote, with no
 * AWS call. A stack holding several pipelines is narrowed with `--pipeline ID` (IDV_PIPELINE).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { OUTPUT_KEYS, type OutputKey } from '../../shared/deployment-outputs';
import { isJsonObject } from '../../shared/json-object';
import { UsageError } from './errors';
import type { FlagValues } from './flag-values';

/** What one deployment's outputs say (a key is absent when the pipeline has no such resource). */
export type DeploymentOutputs = Partial<Record<OutputKey, string>>;

/** Reads a stack's outputs (`OutputKey` → `OutputValue`); CloudFormation in the CLI, a fake in tests. */
export interface StackOutputsReader {
  outputsOf(stackName: string): Promise<Record<string, string>>;
}

export const STACK_VARIABLE = 'IDV_STACK';
export const OUTPUTS_FILE_VARIABLE = 'IDV_OUTPUTS_FILE';
export const PIPELINE_VARIABLE = 'IDV_PIPELINE';

/** Flags of every command that works on a deployment. */
export const DEPLOYMENT_OPTIONS = {
  stack: { type: 'string' },
  'outputs-file': { type: 'string' },
  pipeline: { type: 'string' },
} as const;

/** Help lines of {@link DEPLOYMENT_OPTIONS}. */
export const DEPLOYMENT_HELP = `Deployment (flag or environment variable; a flag naming a resource wins over both):
  --stack NAME         ${STACK_VARIABLE}          the stack of the pipeline: its outputs name the table, bucket,
                                           queues, archive, workgroup and secrets (CloudFormation DescribeStacks)
  --outputs-file FILE  ${OUTPUTS_FILE_VARIABLE}   the file of \`cdk deploy --outputs-file FILE\` instead (no AWS call);
                                           with several stacks in it, --stack picks one
  --pipeline ID        ${PIPELINE_VARIABLE}       which IdvPipeline of a stack that holds several (its construct id)`;

/** Where the deployment comes from, as the flags and variables say. */
interface DeploymentSource {
  readonly stack?: string;
  readonly outputsFile?: string;
  readonly pipeline?: string;
}

function sourceOf(values: FlagValues, env: Readonly<Record<string, string | undefined>>): DeploymentSource {
  const pick = (flag: string, variable: string) => {
    const value = values[flag];
    return typeof value === 'string' && value !== '' ? value : env[variable] || undefined;
  };
  return {
    stack: pick('stack', STACK_VARIABLE),
    outputsFile: pick('outputs-file', OUTPUTS_FILE_VARIABLE),
    pipeline: pick('pipeline', PIPELINE_VARIABLE),
  };
}

/** Dependencies of {@link findDeployment}. */
export interface FindDeploymentOptions {
  readonly values: FlagValues;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly command: string;
  /** Builds the CloudFormation reader, only when a stack must be read from AWS. */
  readonly stackReader: () => Promise<StackOutputsReader>;
}

/**
 * The outputs of the deployment the flags and variables name, or `undefined` when they name none (the
 * command then needs its resource flags). Usage errors say which flag to fix.
 */
export async function findDeployment(options: FindDeploymentOptions): Promise<DeploymentOutputs | undefined> {
  const { command } = options;
  const source = sourceOf(options.values, options.env);
  if (source.outputsFile !== undefined) {
    const stacks = await readOutputsFile(resolve(options.cwd, source.outputsFile), command);
    const names = Object.keys(stacks);
    const stack = source.stack ?? (names.length === 1 ? names[0] : undefined);
    if (stack === undefined) {
      throw new UsageError(
        `${source.outputsFile} holds the outputs of ${names.length} stacks (${names.join(', ') || 'none'}): pass --stack NAME`,
        command,
      );
    }
    const outputs = stacks[stack];
    if (outputs === undefined) {
      throw new UsageError(
        `${source.outputsFile} has no stack ${stack} (it has ${names.join(', ')})`,
        command,
      );
    }
    return pipelineOutputs(outputs, source.pipeline, `stack ${stack}`, command);
  }
  if (source.stack === undefined) return undefined;
  const reader = await options.stackReader();
  const outputs = await reader.outputsOf(source.stack);
  return pipelineOutputs(outputs, source.pipeline, `stack ${source.stack}`, command);
}

async function readOutputsFile(
  file: string,
  command: string,
): Promise<Record<string, Record<string, string>>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new UsageError(`cannot read the outputs file ${file} (${code})`, command);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(
      `the outputs file ${file} is not JSON (expected cdk deploy --outputs-file)`,
      command,
    );
  }
  if (!isJsonObject(parsed) || !Object.values(parsed).every(isJsonObject)) {
    throw new UsageError(
      `the outputs file ${file} must map stack names to their outputs (cdk deploy --outputs-file)`,
      command,
    );
  }
  return Object.fromEntries(
    Object.entries(parsed).map(([stack, outputs]) => [
      stack,
      Object.fromEntries(
        Object.entries(outputs as Record<string, unknown>).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      ),
    ]),
  );
}

/**
 * Output keys of a pipeline are `<Key>` for the app's pipeline (construct id `Default`) and
 * `<ConstructPath><Key><8 hex>` for one a platform app composes: grouped here by that prefix.
 */
const OUTPUT_KEY = new RegExp(`^([A-Za-z0-9]*?)(${OUTPUT_KEYS.join('|')})([0-9A-F]{8})?$`);

/** The outputs of one pipeline among a stack's outputs. */
export function pipelineOutputs(
  outputs: Readonly<Record<string, string>>,
  pipeline: string | undefined,
  where: string,
  command: string,
): DeploymentOutputs {
  const byPipeline = new Map<string, DeploymentOutputs>();
  for (const [key, value] of Object.entries(outputs)) {
    const match = OUTPUT_KEY.exec(key);
    if (!match) continue;
    const prefix = match[1]!;
    const found = byPipeline.get(prefix) ?? {};
    found[match[2] as OutputKey] = value;
    byPipeline.set(prefix, found);
  }
  // A pipeline always outputs its webhook URL and its table; other matches are someone else's outputs.
  for (const [prefix, found] of byPipeline) {
    if (found.WebhookBaseUrl === undefined || found.ResultsTableName === undefined) byPipeline.delete(prefix);
  }
  const ids = [...byPipeline.keys()];
  const label = (id: string) => (id === '' ? '(the app pipeline, no prefix)' : id);
  if (ids.length === 0) throw new UsageError(`${where} has no IdvPipeline outputs`, command);
  if (pipeline !== undefined) {
    const found = byPipeline.get(pipeline.replace(/[^A-Za-z0-9]/g, ''));
    if (!found) {
      throw new UsageError(
        `${where} has no pipeline ${pipeline}; it has ${ids.map(label).join(', ')}`,
        command,
      );
    }
    return found;
  }
  if (ids.length > 1) {
    throw new UsageError(
      `${where} holds ${ids.length} pipelines (${ids.map(label).join(', ')}): pass --pipeline ID`,
      command,
    );
  }
  return byPipeline.get(ids[0]!)!;
}

/**
 * The resource a command needs: its flag, else its variable, else the deployment's output; a usage
 * error naming all three ways when none gives it.
 */
export function fromDeployment(
  deployment: DeploymentOutputs | undefined,
  key: OutputKey,
  given: string | undefined,
  how: string,
  command: string,
): string {
  const value = given ?? deployment?.[key];
  if (value === undefined || value === '') {
    throw new UsageError(
      deployment === undefined
        ? `${how}, or name the deployment with --stack NAME (or ${STACK_VARIABLE}) or --outputs-file FILE`
        : `the deployment has no ${key} output: ${how}`,
      command,
    );
  }
  return value;
}
