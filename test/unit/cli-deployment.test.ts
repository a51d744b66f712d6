import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeArchiveCommand, EventBridgeClient, StartReplayCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cloudFormationReader } from '../../bin/cli/cloudformation';
import { findDeployment, pipelineOutputs, type StackOutputsReader } from '../../bin/cli/deployment';
import { UsageError } from '../../bin/cli/errors';
import { runCli } from '../../bin/cli/main';
import type { CliIo } from '../../bin/cli/types';

/** Outputs of the app's stack (pipeline id `Default`: plain keys). */
const APP_OUTPUTS = {
  WebhookBaseUrl: 'https://a.example/v1/webhooks/',
  ResultsTableName: 'app-table',
  DataBucketName: 'app-bucket',
  ResultsQueueUrl: 'https://sqs.example/app-queue',
  DeadLetterQueueUrl: 'https://sqs.example/app-dlq',
  CredentialsSecretName: 'idv-pipeline/staging/client-credentials',
};

/** Outputs of a platform stack with two pipelines, Blue and Green (construct path + hash in the keys). */
const PLATFORM_OUTPUTS = {
  BlueWebhookBaseUrl5E1A2B3C: 'https://blue.example/v1/webhooks/',
  BlueResultsTableNameA1B2C3D4: 'blue-table',
  BlueEventArchiveName0F0F0F0F: 'blue-archive',
  GreenWebhookBaseUrl11223344: 'https://green.example/v1/webhooks/',
  GreenResultsTableName55667788: 'green-table',
  SomethingElse: 'not a pipeline output',
};

function reader(stacks: Record<string, Record<string, string>>, calls: string[] = []): StackOutputsReader {
  return {
    outputsOf: async (stack) => {
      calls.push(stack);
      const outputs = stacks[stack];
      if (!outputs) throw new Error(`stack ${stack} does not exist`);
      return outputs;
    },
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-deployment-'));
  await writeFile(
    join(dir, 'outputs.json'),
    JSON.stringify({ 'IdvPipeline-staging': APP_OUTPUTS, Platform: PLATFORM_OUTPUTS }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const find = (values: Record<string, string>, env: Record<string, string> = {}, calls: string[] = []) =>
  findDeployment({
    values,
    env,
    cwd: dir,
    command: 'results list',
    stackReader: async () =>
      reader({ 'IdvPipeline-staging': APP_OUTPUTS, Platform: PLATFORM_OUTPUTS }, calls),
  });

describe('finding a deployment by its stack', () => {
  it('reads the stack outputs for --stack and for IDV_STACK', async () => {
    // Prepare
    const calls: string[] = [];

    // Act
    const byFlag = await find({ stack: 'IdvPipeline-staging' }, {}, calls);
    const byVariable = await find({}, { IDV_STACK: 'IdvPipeline-staging' }, calls);

    // Assess
    expect(byFlag).toMatchObject({ ResultsTableName: 'app-table', DataBucketName: 'app-bucket' });
    expect(byVariable).toEqual(byFlag);
    expect(calls).toEqual(['IdvPipeline-staging', 'IdvPipeline-staging']);
  });

  it('reads a cdk deploy --outputs-file without any AWS call, --stack choosing among its stacks', async () => {
    // Prepare
    const calls: string[] = [];

    // Act
    const chosen = await find({ 'outputs-file': 'outputs.json', stack: 'IdvPipeline-staging' }, {}, calls);
    const ambiguous = find({ 'outputs-file': 'outputs.json' }, {}, calls);

    // Assess
    expect(chosen?.CredentialsSecretName).toBe('idv-pipeline/staging/client-credentials');
    await expect(ambiguous).rejects.toThrow(/holds the outputs of 2 stacks .*pass --stack NAME/);
    expect(calls).toEqual([]);
  });

  it('picks one of several pipelines in a stack with --pipeline, and asks for it otherwise', async () => {
    // Act
    const green = await find({ stack: 'Platform', pipeline: 'Green' });
    const unnamed = find({ stack: 'Platform' });

    // Assess
    expect(green).toEqual({
      WebhookBaseUrl: 'https://green.example/v1/webhooks/',
      ResultsTableName: 'green-table',
    });
    await expect(unnamed).rejects.toThrow(UsageError);
    await expect(unnamed).rejects.toThrow('holds 2 pipelines (Blue, Green): pass --pipeline ID');
  });

  it('names nothing when neither a stack nor an outputs file is given', async () => {
    // Act
    const none = await find({});

    // Assess
    expect(none).toBeUndefined();
  });

  it('refuses a stack without pipeline outputs', () => {
    // Act
    const pick = () => pipelineOutputs({ Other: 'x' }, undefined, 'stack S', 'results list');

    // Assess
    expect(pick).toThrow('stack S has no IdvPipeline outputs');
  });
});

describe('the commands take their names from the deployment', () => {
  function fakeIo(env: Record<string, string> = {}) {
    const err: string[] = [];
    const io: CliIo = {
      stdout: () => {},
      stderr: (t) => err.push(t),
      env,
      cwd: dir,
      stackReader: async () => reader({}),
    };
    return { io, stderr: () => err.join('') };
  }

  it('says how to name a deployment when a results command has none', async () => {
    // Prepare
    const { io, stderr } = fakeIo();

    // Act
    const code = await runCli(['results', 'list'], io);

    // Assess
    expect(code).toBe(2);
    expect(stderr()).toContain('no results table: pass --stack NAME, --outputs-file FILE or --table');
  });

  it('lists --stack, --outputs-file and --pipeline in the help of every deployment command', async () => {
    for (const command of [
      ['results', 'get'],
      ['dlq', 'redrive'],
      ['events', 'replay'],
      ['setup', 'credentials'],
      ['analytics', 'query'],
    ]) {
      // Prepare
      const out: string[] = [];
      const io: CliIo = { stdout: (t) => out.push(t), stderr: () => {}, env: {}, cwd: dir };

      // Act
      await runCli([...command, '--help'], io);

      // Assess
      expect(out.join(''), command.join(' ')).toMatch(
        /--stack NAME[\s\S]*--outputs-file FILE[\s\S]*--pipeline ID/,
      );
    }
  });
});

describe('reading a stack with CloudFormation (aws-sdk-client-mock)', () => {
  const cfn = mockClient(CloudFormationClient);
  const events = mockClient(EventBridgeClient);
  beforeEach(() => {
    cfn.reset();
    events.reset();
    vi.stubEnv('AWS_REGION', 'eu-west-1');
  });
  afterEach(() => vi.unstubAllEnvs());

  it('maps DescribeStacks outputs by key and names an unknown stack', async () => {
    // Prepare
    cfn.on(DescribeStacksCommand, { StackName: 'IdvPipeline-staging' }).resolves({
      Stacks: [
        {
          StackName: 'IdvPipeline-staging',
          CreationTime: new Date(),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: Object.entries(APP_OUTPUTS).map(([OutputKey, OutputValue]) => ({
            OutputKey,
            OutputValue,
          })),
        },
      ],
    });
    cfn
      .on(DescribeStacksCommand, { StackName: 'Nope' })
      .rejects(Object.assign(new Error('Stack with id Nope does not exist'), { name: 'ValidationError' }));

    // Act
    const outputs = await cloudFormationReader(new CloudFormationClient({})).outputsOf('IdvPipeline-staging');
    const missing = cloudFormationReader(new CloudFormationClient({})).outputsOf('Nope');

    // Assess
    expect(outputs).toEqual(APP_OUTPUTS);
    await expect(missing).rejects.toThrow('stack Nope does not exist in this account and region');
  });

  it('runs `events replay --stack` on the archive the stack outputs, through the real reader', async () => {
    // Prepare
    cfn.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'IdvPipeline-staging',
          CreationTime: new Date(),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: [
            { OutputKey: 'WebhookBaseUrl', OutputValue: 'https://a.example/v1/webhooks/' },
            { OutputKey: 'ResultsTableName', OutputValue: 'app-table' },
            { OutputKey: 'EventArchiveName', OutputValue: 'stack-archive' },
          ],
        },
      ],
    });
    events.on(DescribeArchiveCommand).resolves({
      ArchiveName: 'stack-archive',
      EventSourceArn: 'arn:aws:events:eu-west-1:123456789012:event-bus/bus',
      // Unlimited retention (0): the range is older than today, whatever day the test runs.
      RetentionDays: 0,
      CreationTime: new Date('2026-01-01T00:00:00Z'),
    });
    events.on(StartReplayCommand).resolves({ State: 'COMPLETED', ReplayArn: 'arn:replay' });
    const err: string[] = [];
    const io: CliIo = { stdout: () => {}, stderr: (t) => err.push(t), env: {}, cwd: dir };

    // Act
    const code = await runCli(
      [
        'events',
        'replay',
        '--stack',
        'IdvPipeline-staging',
        '--since',
        '2026-08-10',
        '--until',
        '2026-08-11',
      ],
      io,
    );

    // Assess
    expect(code, err.join('')).toBe(0);
    expect(cfn.commandCalls(DescribeStacksCommand)[0]!.args[0].input).toEqual({
      StackName: 'IdvPipeline-staging',
    });
    expect(events.commandCalls(DescribeArchiveCommand)[0]!.args[0].input).toEqual({
      ArchiveName: 'stack-archive',
    });
  });
});
