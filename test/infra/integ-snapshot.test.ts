/**
 * The integration test a platform team deploys (`npm run integ`, test/integ/) synthesised offline: its
 * templates are pinned (fixtures/integ-idv-pipeline.json, asset hashes, salts and metadata normalised; update
 * with `npx vitest run test/infra/integ-snapshot.test.ts -u` after a deliberate change) and the parts the
 * run depends on are checked by name.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling/lambda-bundling';
import { ENV } from '../../shared/config';
import { buildIntegTest, type IdvPipelineIntegTest } from '../integ/idv-pipeline-integ';

/** The feature flags integ-runner synthesises with, so the pinned templates are the ones it deploys. */
function integRunnerContext(): Record<string, unknown> {
  const file = path.join(
    PROJECT_ROOT,
    'node_modules/@aws-cdk/integ-runner/lib/recommended-feature-flags.json',
  );
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

const ASSET_HASH = /[0-9a-f]{64}/g;

function normalise(template: Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(template), (key, value: unknown) => {
    if (key === 'Metadata') return undefined;
    // integ-tests-alpha salts every assertion with the synth time, so each run re-runs the assertions.
    if (key === 'salt') return '<synth-time>';
    if (typeof value === 'string') return value.replace(ASSET_HASH, '<asset-hash>');
    return value;
  });
}

let built: IdvPipelineIntegTest;
let app: App;
let template: Template;
let assertStack: Stack;

beforeAll(() => {
  app = new App({ context: { ...integRunnerContext(), 'aws:cdk:bundling-stacks': [] } });
  built = buildIntegTest(app);
  template = Template.fromStack(built.stack);
  assertStack = app.node
    .findAll()
    .find((child): child is Stack => child instanceof Stack && child !== built.stack)!;
});

describe('the integration test (test/integ/integ.idv-pipeline.ts)', () => {
  it('keeps its templates as pinned', async () => {
    const templates = {
      [built.stack.stackName]: normalise(template.toJSON()),
      [assertStack.stackName]: normalise(Template.fromStack(assertStack).toJSON()),
    };
    await expect(`${JSON.stringify(templates, null, 1)}\n`).toMatchFileSnapshot(
      'fixtures/integ-idv-pipeline.json',
    );
  });

  it('writes the integ manifest integ-runner reads, with an assertion stack', () => {
    const assembly = app.synth();
    const manifest = JSON.parse(readFileSync(path.join(assembly.directory, 'integ.json'), 'utf8')) as {
      testCases: Record<string, { stacks: string[]; assertionStack: string }>;
    };
    const testCase = manifest.testCases['IdvPipelineIntegTest/DefaultTest'];
    expect(testCase?.stacks).toEqual([built.stack.artifactId]);
    expect(testCase?.assertionStack).toBe(assertStack.node.path);
    const steps = Template.fromStack(assertStack).findResources('Custom::DeployAssert@SdkCallDynamoDBquery');
    expect(Object.keys(steps)).toHaveLength(2);
  });

  it('runs the simulator as one instance behind a function URL the pipeline calls', () => {
    const simulator = Stack.of(built.simulator).getLogicalId(built.simulator.node.defaultChild as CfnElement);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      ReservedConcurrentExecutions: 1,
      Environment: { Variables: Match.objectLike({ IDV_SIMULATOR_CREDENTIALS_SECRET: Match.anyValue() }) },
    });
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [simulator, 'Arn'] },
    });
    const urlId = Stack.of(built.simulatorUrl).getLogicalId(
      built.simulatorUrl.node.defaultChild as CfnElement,
    );
    const callers = template.findResources('AWS::Lambda::Function', {
      Properties: {
        Environment: { Variables: { [ENV.serviceBaseUrl]: { 'Fn::GetAtt': [urlId, 'FunctionUrl'] } } },
      },
    });
    // poll and fetch-result (the driver has its own variable).
    expect(Object.keys(callers)).toHaveLength(2);
  });

  it('gives the eraser the erasure policy and nothing of it to the pipeline functions', () => {
    const policy = Stack.of(built.pipeline.erasure.policy).getLogicalId(
      built.pipeline.erasure.policy.node.defaultChild as CfnElement,
    );
    const holders = template.findResources('AWS::IAM::Role', {
      Properties: { ManagedPolicyArns: Match.arrayWith([{ Ref: policy }]) },
    });
    const eraserRole = Stack.of(built.eraser).getLogicalId(
      built.eraser.role!.node.defaultChild as CfnElement,
    );
    expect(Object.keys(holders)).toEqual([eraserRole]);
  });

  it('deletes everything with the stack but the account-wide API Gateway logging setting and role', () => {
    const kept = Object.entries(template.toJSON().Resources as Record<string, Record<string, unknown>>)
      .filter(([, resource]) => resource.DeletionPolicy !== undefined && resource.DeletionPolicy !== 'Delete')
      .map(([, resource]) => resource.Type)
      .sort();
    expect(kept).toEqual(['AWS::ApiGateway::Account', 'AWS::IAM::Role']);
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Delete' });
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 1);
  });
});
