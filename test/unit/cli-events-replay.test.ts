import { DescribeArchiveCommand, EventBridgeClient, StartReplayCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../bin/cli/main';
import type { CliIo } from '../../bin/cli/types';

const ebMock = mockClient(EventBridgeClient);
const busArn = 'arn:aws:events:eu-west-1:123456789012:event-bus/idv-pipeline-staging';

/** The stack outputs IdvPipeline writes, as CloudFormation would return them for the app's stack. */
const STACK_OUTPUTS: Record<string, Record<string, string>> = {
  'IdvPipeline-staging': {
    WebhookBaseUrl: 'https://api.example/v1/webhooks/',
    ResultsTableName: 'IdvPipeline-staging-ResultsTable-1',
    EventArchiveName: 'idv-pipeline-staging-archive',
  },
};

function fakeIo(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env,
    cwd: '/nonexistent',
    stackReader: async () => ({
      outputsOf: async (stack) => {
        const outputs = STACK_OUTPUTS[stack];
        if (!outputs) throw new Error(`stack ${stack} does not exist`);
        return outputs;
      },
    }),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

describe('idv events replay on AWS (aws-sdk-client-mock)', () => {
  beforeEach(() => {
    ebMock.reset();
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-08-20T12:00:00Z') });
    ebMock.on(DescribeArchiveCommand).resolves({
      ArchiveName: 'idv-pipeline-staging-archive',
      EventSourceArn: busArn,
      RetentionDays: 30,
      CreationTime: new Date('2026-08-01T00:00:00Z'),
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
  });

  it("finds the archive in the stack's outputs (IDV_STACK), replays onto its bus and reports the state on stderr", async () => {
    // Prepare
    ebMock.on(StartReplayCommand).resolves({ State: 'COMPLETED', ReplayArn: 'arn:replay' });
    const { io, stdout, stderr } = fakeIo({ IDV_STACK: 'IdvPipeline-staging' });

    // Act
    const code = await runCli(['events', 'replay', '--since', '2026-08-10', '--until', '2026-08-11'], io);

    // Assess
    expect(code, stderr()).toBe(0);
    expect(ebMock.commandCalls(DescribeArchiveCommand)[0]!.args[0].input).toEqual({
      ArchiveName: 'idv-pipeline-staging-archive',
    });
    expect(ebMock.commandCalls(StartReplayCommand)[0]!.args[0].input).toMatchObject({
      EventSourceArn: busArn,
      Destination: { Arn: busArn },
    });
    expect(stderr()).toContain('replay COMPLETED');
    expect(JSON.parse(stdout())).toMatchObject({
      state: 'COMPLETED',
      archiveName: 'idv-pipeline-staging-archive',
    });
  });

  it('exits 1 with the retention reason and starts nothing for a range the archive no longer holds', async () => {
    // Prepare
    const { io, stderr } = fakeIo();

    // Act
    const code = await runCli(
      [
        'events',
        'replay',
        '--archive',
        'idv-pipeline-staging-archive',
        '--since',
        '2026-07-01',
        '--until',
        '2026-07-02',
      ],
      io,
    );

    // Assess
    expect(code).toBe(1);
    expect(stderr()).toMatch(
      /outside the retention of archive idv-pipeline-staging-archive: it keeps events for 30 days/,
    );
    expect(ebMock.commandCalls(StartReplayCommand)).toHaveLength(0);
  });

  it('is a usage error (exit 2) for a date it cannot read', async () => {
    const { io, stderr } = fakeIo({ IDV_EVENT_ARCHIVE: 'a' });

    const code = await runCli(['events', 'replay', '--since', 'last week', '--until', '2026-07-02'], io);

    expect(code).toBe(2);
    expect(stderr()).toMatch(/--since must be a day/);
  });
});

describe('idv events replay without a deployment', () => {
  it('no longer derives the archive from a bus name: a usage error names --stack', async () => {
    // Prepare
    const { io, stderr } = fakeIo({ IDV_EVENT_BUS: 'idv-pipeline-staging' });

    // Act
    const code = await runCli(['events', 'replay', '--since', '2026-08-10', '--until', '2026-08-11'], io);

    // Assess
    expect(code).toBe(2);
    expect(stderr()).toContain('no archive: pass --stack NAME');
  });
});
