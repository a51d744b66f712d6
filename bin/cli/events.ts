/**
 * `idv events …`: try an EventBridge rule pattern against an event (locally, no AWS call), and replay
 * archived events onto the bus after a consumer outage (on AWS, or `--local` through a running `npm start`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { readLiveStack } from '../../local/stack-file';
import { compileEventPattern, EventPatternError } from '../../shared/events/pattern';
import {
  checkRange,
  parseReplayTime,
  type RecordedEvent,
  type ReplayRange,
  replayArchive,
  replayNameAt,
  selectRecordedEvents,
} from '../../shared/events/replay';
import { patternOfRuleDocument } from '../../shared/events/rule-document';
import { UsageError } from './errors';
import { readInput, required, str } from './flags';
import { progress } from './results';
import type { CliCommand, CommandContext } from './types';

/** Environment variable naming the archive for `idv events replay` (the stack outputs `EventArchiveName`). */
export const EVENT_ARCHIVE_VARIABLE = 'IDV_EVENT_ARCHIVE';

/** An event or pattern file that is not what the command needs (exit 1, not a usage error). */
export class InvalidInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidInputError';
  }
}

async function readJson(ctx: CommandContext, flagName: string): Promise<unknown> {
  const path = required(ctx, flagName, 'events test-pattern');
  const text = (await readInput(ctx, path, flagName)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(
      `the file of --${flagName} ${path} is not valid JSON (${(error as Error).message})`,
    );
  }
}

/** An event must be an object with the fields every EventBridge event has that patterns usually name. */
export function checkEvent(event: unknown): asserts event is Record<string, unknown> {
  if (!event || typeof event !== 'object' || Array.isArray(event)) {
    throw new InvalidInputError('the event must be a JSON object (one event as EventBridge delivers it)');
  }
  const record = event as Record<string, unknown>;
  for (const field of ['source', 'detail-type']) {
    if (typeof record[field] !== 'string') {
      throw new InvalidInputError(
        `the event has no "${field}" string (one event as EventBridge delivers it)`,
      );
    }
  }
  if ('detail' in record && (typeof record['detail'] !== 'object' || record['detail'] === null)) {
    throw new InvalidInputError('the event\'s "detail" must be a JSON object');
  }
}

export const eventsTestPatternCommand: CliCommand = {
  path: ['events', 'test-pattern'],
  summary:
    'does an EventBridge pattern match an event? {"result": true|false}, locally, as TestEventPattern answers',
  usage: 'events test-pattern --pattern FILE --event FILE',
  help: `  --pattern FILE       an event pattern, or a rule with "EventPattern" (object or JSON string)
  --event FILE         one event as EventBridge delivers it (a line of .local/events.jsonl is one)
Prints {"result": true} or {"result": false}. An invalid pattern or event exits 1 with the reason,
e.g. Event pattern is not valid. Reason: "result" must be an object or an array at detail.result`,
  options: { pattern: { type: 'string' }, event: { type: 'string' } },
  connection: false,
  run: async (ctx) => {
    const pattern = patternOfRuleDocument(await readJson(ctx, 'pattern'));
    const event = await readJson(ctx, 'event');
    let compiled: ReturnType<typeof compileEventPattern>;
    try {
      compiled = compileEventPattern(pattern);
    } catch (error) {
      if (error instanceof EventPatternError) throw new InvalidInputError(error.message);
      throw error;
    }
    checkEvent(event);
    return { result: compiled.matches(event) };
  },
};

function replayRange(ctx: CommandContext): ReplayRange {
  const parse = (name: string) => {
    try {
      return parseReplayTime(required(ctx, name, 'events replay'), `--${name}`);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError((error as Error).message, 'events replay');
    }
  };
  const range = { since: parse('since'), until: parse('until') };
  try {
    checkRange(range);
  } catch (error) {
    throw new UsageError((error as Error).message, 'events replay');
  }
  return range;
}

export const eventsReplayCommand: CliCommand = {
  path: ['events', 'replay'],
  summary: 'publish archived events of a time range again onto the bus (after a consumer was down)',
  usage: 'events replay --since DATE --until DATE [--archive NAME | --stack NAME] [--local [--data-dir DIR]]',
  help: `  --since DATE         start, inclusive: 2026-08-10 (midnight UTC) or 2026-08-10T12:00:00Z
  --until DATE         end, exclusive (--since 2026-08-10 --until 2026-08-11 replays the 10th)
  --archive NAME       ${EVENT_ARCHIVE_VARIABLE}  the archive (default: the deployment's output EventArchiveName)
  --local              re-publish the events of <data-dir>/events.jsonl in the range through the bus of a
                       running \`npm start\` (and so through its --rule rules)
  --data-dir DIR       data directory of the local stack (default .local)
On AWS: StartReplay onto the archive's bus, progress on stderr until COMPLETED; a range before the
archive's retention is refused. Replayed events are delivered again: consumers dedupe on detail.resultId.
AWS credentials and region come from the standard AWS environment/profile.`,
  options: {
    since: { type: 'string' },
    until: { type: 'string' },
    archive: { type: 'string' },
    local: { type: 'boolean' },
    'data-dir': { type: 'string' },
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const range = replayRange(ctx);
    if (ctx.values['local'] === true) return replayLocal(ctx, range);
    const archiveName =
      str(ctx, 'archive') ?? ctx.io.env[EVENT_ARCHIVE_VARIABLE] ?? (await ctx.deployment())?.EventArchiveName;
    if (!archiveName) {
      throw new UsageError(
        `no archive: pass --stack NAME or --outputs-file FILE (output EventArchiveName) or --archive, or set ${EVENT_ARCHIVE_VARIABLE}`,
        'events replay',
      );
    }
    const client = new EventBridgeClient({});
    const bar = progress(ctx.io);
    try {
      return await replayArchive({
        client,
        archiveName,
        range,
        replayName: replayNameAt(new Date()),
        onProgress: (replay) =>
          bar.update(
            `replay ${replay.State ?? 'STARTING'}` +
              (replay.EventLastReplayedTime
                ? `, replayed up to ${replay.EventLastReplayedTime.toISOString()}`
                : ''),
          ),
      });
    } finally {
      bar.done();
      client.destroy();
    }
  },
};

/** PutEvents takes at most 10 entries per call. */
const PUT_BATCH = 10;

async function replayLocal(ctx: CommandContext, range: ReplayRange) {
  const dataDir = resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
  const eventsFile = join(dataDir, 'events.jsonl');
  if (!existsSync(eventsFile)) {
    throw new UsageError(`no ${eventsFile}: run \`npm start\` first, or pass --data-dir`, 'events replay');
  }
  const stack = readLiveStack(dataDir);
  if (!stack) {
    throw new InvalidInputError(
      `no \`npm start\` is running on ${dataDir}: the local bus (and its rules) exists only while it runs. ` +
        'Start it (with your --rule files), then run this again.',
    );
  }
  const { events, skipped } = selectRecordedEvents(readFileSync(eventsFile, 'utf8'), range);
  const client = new EventBridgeClient({
    region: stack.region,
    endpoint: stack.endpoints.eventBridge,
    credentials: stack.credentials,
  });
  const bar = progress(ctx.io);
  let published = 0;
  try {
    for (let i = 0; i < events.length; i += PUT_BATCH) {
      const batch = events.slice(i, i + PUT_BATCH);
      const response = await client.send(
        new PutEventsCommand({ Entries: batch.map((event) => toEntry(event, stack.resources.eventBusName)) }),
      );
      if ((response.FailedEntryCount ?? 0) > 0) {
        const failed = response.Entries?.find((entry) => entry.ErrorCode);
        throw new Error(
          `the local bus refused an event (${failed?.ErrorCode ?? 'unknown error'}) after ${published}`,
        );
      }
      published += batch.length;
      bar.update(`re-published ${published} of ${events.length}`);
    }
  } finally {
    bar.done();
    client.destroy();
  }
  return {
    local: true,
    since: range.since.toISOString(),
    until: range.until.toISOString(),
    published,
    ...(skipped > 0 && { skippedLines: skipped }),
  };
}

/** The original time is kept, as an EventBridge replay keeps it. */
function toEntry(event: RecordedEvent, busName: string) {
  return {
    EventBusName: busName,
    Source: event.source,
    DetailType: event['detail-type'],
    Detail: JSON.stringify(event.detail),
    Time: new Date(event.time),
    ...(Array.isArray(event.resources) && event.resources.length > 0 && { Resources: event.resources }),
  };
}
