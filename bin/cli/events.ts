/**
 * `idv events …`: try an EventBridge rule pattern against an event (locally, no AWS call), and replay
 * archived events onto the bus after a consumer outage (on AWS, or `--local` through a running `npm start`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { probeRun } from '../../local/local-open';
import { readLiveStack } from '../../local/stack-file';
import { ENVIRONMENTS, type ServiceEnvironment } from '../../shared/api/enums';
import { createEventBridgeClient } from '../../shared/aws-clients';
import { ENV } from '../../shared/config';
import { EVENT_SOURCE } from '../../shared/events/names';
import { compileEventPattern, EventPatternError } from '../../shared/events/pattern';
import { patternOfRuleDocument } from '../../shared/events/rule-document';
import { isJsonObject } from '../../shared/json-object';
import { getResult } from '../../shared/queries/results';
import { UsageError } from './errors';
import {
  checkRange,
  markReplay,
  parseReplayTime,
  type RecordedEvent,
  type ReplayRange,
  replayArchive,
  replayNameAt,
  replayOfItem,
  selectRecordedEvents,
} from './events-replay';
import { checkedValue, readInput, required, str } from './flags';
import { openTarget, progress } from './results';
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
  if (!isJsonObject(event)) {
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
  usage:
    'events replay (--since DATE --until DATE | --result-id ID) [--stack NAME | --archive NAME | --bus NAME] [--local [--data-dir DIR]]',
  help: `  --result-id ID       re-announce one result from the store: its event, built from the stored item
                       as the pipeline builds it, published again with detail.replay (no archive needed;
                       AWS: the deployment's bus and table, or --bus and --table; --environment for the detail)
  --environment ENV    staging or production, the stack's (default ${ENV.environment}, else staging)
  --since DATE         start, inclusive: 2026-08-10 (midnight UTC) or 2026-08-10T12:00:00Z
  --until DATE         end, exclusive (--since 2026-08-10 --until 2026-08-11 replays the 10th)
  --archive NAME       ${EVENT_ARCHIVE_VARIABLE}  the archive (default: the deployment's output EventArchiveName)
  --bus NAME           ${ENV.eventBusName}      the bus --result-id publishes to (default: output EventBusName)
  --local              re-publish the events of <data-dir>/events.jsonl in the range through the bus of a
                       running \`npm start\` (and so through its --rule rules)
  --data-dir DIR       data directory of the local stack (default .local)
On AWS: StartReplay onto the archive's bus, progress on stderr until COMPLETED; a range before the
archive's retention is refused. Replayed events are delivered again: consumers dedupe on detail.resultId,
and can tell a replay by EventBridge's replay-name (archive replays) or detail.replay (every replay this
command publishes itself: --local and --result-id). AWS credentials and region come from the standard
AWS environment/profile.`,
  options: {
    'result-id': { type: 'string' },
    environment: { type: 'string' },
    table: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    archive: { type: 'string' },
    bus: { type: 'string' },
    local: { type: 'boolean' },
    'data-dir': { type: 'string' },
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const resultId = str(ctx, 'result-id');
    if (resultId !== undefined) {
      if (str(ctx, 'since') !== undefined || str(ctx, 'until') !== undefined) {
        throw new UsageError('use either --result-id or --since/--until', 'events replay');
      }
      return replayResult(ctx, resultId);
    }
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
    const client = createEventBridgeClient();
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
  // A run that is stopped or hung is said so within seconds (local/local-open.ts).
  await probeRun(stack.endpoints.eventBridge, stack.pid);
  const { events, skipped } = selectRecordedEvents(readFileSync(eventsFile, 'utf8'), range);
  const replayName = replayNameAt(new Date());
  const client = createEventBridgeClient(undefined, {
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
        new PutEventsCommand({
          Entries: batch.map((event) => toEntry(event, stack.resources.eventBusName, replayName)),
        }),
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
    replayName,
    since: range.since.toISOString(),
    until: range.until.toISOString(),
    published,
    ...(skipped > 0 && { skippedLines: skipped }),
  };
}

/**
 * The original time is kept, as an EventBridge replay keeps it; the detail gets the replay marker, so the
 * line the local bus appends to events.jsonl is told apart from the original.
 */
function toEntry(event: RecordedEvent, busName: string, replayName: string) {
  return {
    EventBusName: busName,
    Source: event.source,
    DetailType: event['detail-type'],
    Detail: JSON.stringify(markReplay(event.detail, replayName)),
    Time: new Date(event.time),
    ...(Array.isArray(event.resources) && event.resources.length > 0 && { Resources: event.resources }),
  };
}

/** `events replay --result-id`: the stored item's event again, marked as a replay. */
async function replayResult(ctx: CommandContext, resultId: string) {
  const local = ctx.values['local'] === true;
  const environmentText = str(ctx, 'environment') ?? ctx.io.env[ENV.environment] ?? 'staging';
  const environment: ServiceEnvironment = checkedValue(
    environmentText,
    '--environment',
    ENVIRONMENTS,
    'events replay',
  );
  const dataDir = resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
  const stack = local ? readLiveStack(dataDir) : undefined;
  if (local && !stack) {
    throw new InvalidInputError(
      `no \`npm start\` is running on ${dataDir}: the local bus exists only while it runs. Start it, then run this again.`,
    );
  }
  const busName = local
    ? stack!.resources.eventBusName
    : (str(ctx, 'bus') ?? ctx.io.env[ENV.eventBusName] ?? (await ctx.deployment())?.EventBusName);
  if (!busName) {
    throw new UsageError(
      `no bus: pass --stack NAME or --outputs-file FILE (output EventBusName) or --bus, or set ${ENV.eventBusName}`,
      'events replay',
    );
  }
  const target = await openTarget(ctx);
  const client = stack
    ? createEventBridgeClient(undefined, {
        region: stack.region,
        endpoint: stack.endpoints.eventBridge,
        credentials: stack.credentials,
      })
    : createEventBridgeClient();
  try {
    if (!target.tableName) {
      throw new UsageError(
        `no results table: pass --stack NAME, --outputs-file FILE or --table (${ENV.resultsTableName}), or use --local`,
        'events replay',
      );
    }
    const item = await getResult(
      { dynamo: target.dynamo, s3: target.s3, tableName: target.tableName },
      resultId,
    );
    if (!item)
      throw new InvalidInputError(
        `no stored result ${resultId} in ${target.description}: nothing to re-announce`,
      );
    const replayName = replayNameAt(new Date());
    const { detailType, detail } = replayOfItem(
      item,
      { environment, store: { table: target.tableName, bucket: item.bucket ?? target.bucketName ?? '' } },
      replayName,
    );
    const response = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: busName,
            Source: EVENT_SOURCE,
            DetailType: detailType,
            Detail: JSON.stringify(detail),
          },
        ],
      }),
    );
    if ((response.FailedEntryCount ?? 0) > 0) {
      throw new Error(
        `the bus refused the event (${response.Entries?.find((e) => e.ErrorCode)?.ErrorCode ?? 'unknown error'})`,
      );
    }
    return { resultId, replayName, detailType, bus: busName, ...(local && { local: true }) };
  } finally {
    client.destroy();
    await target.close();
  }
}
