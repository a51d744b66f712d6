import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { PROJECT_ROOT } from '../../infra/bundling/lambda-bundling';
import { type EnvironmentConfig, loadEnvironments } from '../../infra/config';
import type { PipelineFunction } from '../../infra/constructs/pipeline-function';
import { PipelineStack, stackName } from '../../infra/pipeline-stack';

/** The `context` block of cdk.json, so tests build stacks with exactly the settings `cdk synth` uses. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** A synthesised pipeline stack with its template and configuration. */
export interface SynthesisedStack {
  readonly stack: PipelineStack;
  readonly template: Template;
  readonly config: EnvironmentConfig;
}

/**
 * Builds one environment's stack from cdk.json (optionally with settings replaced) without bundling
 * the functions: bundling is esbuild work the template assertions do not need.
 */
export function synthesise(environment: string, overrides: Record<string, unknown> = {}): SynthesisedStack {
  const context = cdkJsonContext();
  const environments = context['environments'] as Record<string, Record<string, unknown>>;
  const [config] = loadEnvironments(
    { [environment]: { ...environments[environment], ...overrides } },
    environment,
  );
  // cdk.json's production addresses are placeholders: the template check of `npm run synth`.
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [], allowPlaceholders: 'true' } });
  const stack = new PipelineStack(app, stackName(environment), { config: config! });
  return { stack, template: Template.fromStack(stack), config: config! };
}

/** Every IAM statement attached to a role, by the role's logical id. */
export function statementsOfRole(template: Template, roleLogicalId: string): IamStatement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.values(policies)
    .filter((policy) =>
      (policy.Properties.Roles as unknown[]).some(
        (role) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId }),
      ),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as IamStatement[]);
}

/** The parts of an IAM statement the tests look at. */
export interface IamStatement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** Actions of a statement as a list. */
export function actionsOf(statement: IamStatement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/** Resolved logical id of a construct's default CloudFormation resource in `synth`. */
export function logicalIdIn(
  synth: SynthesisedStack,
  construct: { node: { defaultChild?: unknown } },
): string {
  return synth.stack.resolve((construct.node.defaultChild as CfnRole).logicalId) as string;
}

/** Statements of a pipeline function's role in `synth`. */
export function functionStatements(synth: SynthesisedStack, fn: PipelineFunction): IamStatement[] {
  return statementsOfRole(
    synth.template,
    logicalIdIn(synth, fn.function.role as unknown as { node: { defaultChild?: unknown } }),
  );
}

/** A pipeline function's environment variables, resolved. */
export function functionEnvironment(fn: PipelineFunction): Record<string, unknown> {
  const cfn = fn.function.node.defaultChild as CfnFunction;
  const resolved = Stack.of(cfn).resolve(cfn.environment) as { variables: Record<string, unknown> };
  return resolved.variables;
}

/** The helpers the stack tests use, on the stack `current()` returns (synthesised in a `beforeAll`). */
export function stackHelpers(current: () => SynthesisedStack) {
  return {
    logicalId: (construct: { node: { defaultChild?: unknown } }): string => logicalIdIn(current(), construct),
    statementsOf: (fn: PipelineFunction): IamStatement[] => functionStatements(current(), fn),
    allActions: (statements: IamStatement[]): string[] => statements.flatMap(actionsOf),
    environmentOf: functionEnvironment,
  };
}
