import {
  DescribeArchiveCommand,
  DescribeReplayCommand,
  EventBridgeClient,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  parseReplayTime,
  ReplayError,
  rangeWithinArchive,
  replayArchive,
  replayNameAt,
  selectRecordedEvents,
} from '../../bin/cli/events-replay';
import { archiveNameOfBus } from '../../shared/events/names';

const ebMock = mockClient(EventBridgeClient);
const now = new Date('2026-08-20T12:00:00Z');
const busArn = 'arn:aws:events:eu-west-1:123456789012:event-bus/idv-pipeline-staging';
const archive = {
  ArchiveName: 'idv-pipeline-staging-archive',
  EventSourceArn: busArn,
  RetentionDays: 30,
  CreationTime: new Date('2026-08-01T00:00:00Z'),
  State: 'ENABLED' as const,
};
const day = (text: string) => parseReplayTime(text, '--since');

describe('replay range', () => {
  it('reads days as midnight UTC and times with a zone, and refuses a time without a zone', () => {
    expect(parseReplayTime('2026-08-10', '--since').toISOString()).toBe('2026-08-10T00:00:00.000Z');
    expect(parseReplayTime('2026-08-10T12:30:00+02:00', '--until').toISOString()).toBe(
      '2026-08-10T10:30:00.000Z',
    );
    expect(() => parseReplayTime('2026-08-10T12:30:00', '--until')).toThrow(/--until must be a day/);
    expect(() => parseReplayTime('yesterday', '--since')).toThrow(ReplayError);
  });

  it('keeps a range inside the archive and ends a range reaching into the future now', () => {
    const range = rangeWithinArchive({ since: day('2026-08-19'), until: day('2026-08-22') }, archive, now);
    expect(range).toEqual({ since: day('2026-08-19'), until: now });
  });

  it('refuses a start before the archive was created, naming the archive, its retention and creation', () => {
    expect(() =>
      rangeWithinArchive({ since: day('2026-07-31'), until: day('2026-08-02') }, archive, now),
    ).toThrow(
      /--since 2026-07-31T00:00:00.000Z is outside the retention of archive idv-pipeline-staging-archive: it keeps events for 30 days and was created at 2026-08-01/,
    );
  });

  it('refuses a start older than the retention days', () => {
    const old = { ...archive, CreationTime: new Date('2026-01-01T00:00:00Z'), RetentionDays: 7 };
    expect(() =>
      rangeWithinArchive({ since: day('2026-08-12'), until: day('2026-08-14') }, old, now),
    ).toThrow(/keeps events for 7 days .*holds events from 2026-08-13T12:00:00.000Z on/);
  });

  it('refuses an empty or reversed range and a start in the future', () => {
    expect(() =>
      rangeWithinArchive({ since: day('2026-08-12'), until: day('2026-08-12') }, archive, now),
    ).toThrow(/must be before --until/);
    expect(() =>
      rangeWithinArchive({ since: day('2026-08-21'), until: day('2026-08-22') }, archive, now),
    ).toThrow(/in the future/);
  });

  it('names the archive after the bus and replays uniquely per second', () => {
    expect(archiveNameOfBus('idv-pipeline-staging')).toBe('idv-pipeline-staging-archive');
    expect(archiveNameOfBus(busArn)).toBe('idv-pipeline-staging-archive');
    expect(replayNameAt(now)).toMatch(/^[.\-_A-Za-z0-9]{1,64}$/);
  });
});

describe('replayArchive (StartReplay, then DescribeReplay until it ends)', () => {
  beforeEach(() => ebMock.reset());

  it('replays onto the archive’s own bus and reports every state until COMPLETED', async () => {
    // Prepare
    ebMock.on(DescribeArchiveCommand).resolves(archive);
    ebMock.on(StartReplayCommand).resolves({ State: 'STARTING', ReplayArn: 'arn:replay' });
    ebMock
      .on(DescribeReplayCommand)
      .resolvesOnce({ State: 'RUNNING', EventLastReplayedTime: new Date('2026-08-10T06:00:00Z') })
      .resolvesOnce({ State: 'COMPLETED', ReplayArn: 'arn:replay' });
    const seen: string[] = [];
    const sleeps: number[] = [];

    // Act
    const summary = await replayArchive({
      client: new EventBridgeClient({}),
      archiveName: archive.ArchiveName,
      range: { since: day('2026-08-10'), until: day('2026-08-11') },
      replayName: 'idv-replay-1',
      onProgress: (replay) => seen.push(replay.State ?? '?'),
      pollIntervalMs: 1234,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      now: () => now,
    });

    // Assess
    expect(ebMock.commandCalls(StartReplayCommand)[0]!.args[0].input).toEqual({
      ReplayName: 'idv-replay-1',
      Description: expect.any(String),
      EventSourceArn: busArn,
      EventStartTime: day('2026-08-10'),
      EventEndTime: day('2026-08-11'),
      Destination: { Arn: busArn },
    });
    expect(seen).toEqual(['STARTING', 'RUNNING', 'COMPLETED']);
    expect(sleeps).toEqual([1234, 1234]);
    expect(summary).toMatchObject({
      state: 'COMPLETED',
      replayArn: 'arn:replay',
      archiveName: archive.ArchiveName,
    });
  });

  it('fails with the reason when the replay ends FAILED', async () => {
    ebMock.on(DescribeArchiveCommand).resolves(archive);
    ebMock.on(StartReplayCommand).resolves({ State: 'STARTING' });
    ebMock.on(DescribeReplayCommand).resolves({ State: 'FAILED', StateReason: 'Destination bus deleted' });

    await expect(
      replayArchive({
        client: new EventBridgeClient({}),
        archiveName: archive.ArchiveName,
        range: { since: day('2026-08-10'), until: day('2026-08-11') },
        replayName: 'r',
        sleep: async () => {},
        now: () => now,
      }),
    ).rejects.toThrow(/replay r ended FAILED: Destination bus deleted/);
  });

  it('never starts a replay for a range outside the retention', async () => {
    ebMock.on(DescribeArchiveCommand).resolves(archive);

    await expect(
      replayArchive({
        client: new EventBridgeClient({}),
        archiveName: archive.ArchiveName,
        range: { since: day('2026-06-01'), until: day('2026-06-02') },
        replayName: 'r',
        now: () => now,
      }),
    ).rejects.toThrow(ReplayError);
    expect(ebMock.commandCalls(StartReplayCommand)).toHaveLength(0);
  });

  it('names a missing archive', async () => {
    ebMock
      .on(DescribeArchiveCommand)
      .rejects(Object.assign(new Error('Archive does not exist'), { name: 'ResourceNotFoundException' }));

    await expect(
      replayArchive({
        client: new EventBridgeClient({}),
        archiveName: 'nope-archive',
        range: { since: day('2026-08-10'), until: day('2026-08-11') },
        replayName: 'r',
        now: () => now,
      }),
    ).rejects.toThrow(/archive nope-archive does not exist/);
  });
});

describe('selectRecordedEvents (local events.jsonl)', () => {
  it('keeps the events of the half-open range in order and counts lines that are not events', () => {
    const line = (time: string, id: string) =>
      JSON.stringify({
        time,
        source: 'idv.pipeline',
        'detail-type': 'VerificationResultStored',
        detail: { resultId: id },
      });
    const text = [
      line('2026-08-09T23:59:59.999Z', 'before'),
      line('2026-08-10T00:00:00.000Z', 'first'),
      '{"partial": ',
      line('2026-08-10T23:59:59.000Z', 'last'),
      line('2026-08-11T00:00:00.000Z', 'after'),
      '',
    ].join('\n');

    const { events, skipped } = selectRecordedEvents(text, {
      since: day('2026-08-10'),
      until: day('2026-08-11'),
    });

    expect(events.map((event) => event.detail['resultId'])).toEqual(['first', 'last']);
    expect(skipped).toBe(1);
  });
});
