/**
 * Replaying archived events onto the bus after a consumer outage: the time range checks, the AWS
 * replay (StartReplay + DescribeReplay until it ends), the selection of local events by time, and the
 * re-announcement of one stored result. Consumers deduplicate on `detail.resultId`, so replaying a range
 * that was partly delivered is safe.
 *
 * A replayed event says so (docs/events.md, "Replayed events"): every event this code publishes again
 * carries `detail.replay` with the replay's name, and EventBridge's own archive replay adds the top-level
 * `replay-name`. A first announcement has neither, so a consumer that must act once filters on their
 * absence: `{"detail": {"replay": [{"exists": false}]}, "replay-name": [{"exists": false}]}`.
 */
import {
  DescribeArchiveCommand,
  type DescribeArchiveResponse,
  DescribeReplayCommand,
  type DescribeReplayResponse,
  type EventBridgeClient,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { PipelineError } from '../../shared/errors';
import {
  changedDetail,
  type DetailOptions,
  storedDetail,
  unavailableDetail,
} from '../../shared/events/details';
import { DETAIL_TYPES, type DetailType } from '../../shared/events/names';
import type { ResultItem } from '../../shared/store/item';
import { previousVersionOf } from '../../shared/store/versions';

/** A replay that cannot start (range outside the archive, archive missing) or that ended FAILED/CANCELLED. */
export class ReplayError extends PipelineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReplayError';
  }
}

/** Half-open time range `[since, until)`. */
export interface ReplayRange {
  since: Date;
  until: Date;
}

const DAY_MS = 86_400_000;

/**
 * Parses `--since`/`--until`: a day `YYYY-MM-DD` (midnight UTC) or an ISO 8601 time with a zone
 * (`2026-08-10T12:00:00Z`). A time without a zone is refused: it would mean something else on every machine.
 */
export function parseReplayTime(text: string, flag: string): Date {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text);
  const date = new Date(day ? `${text}T00:00:00Z` : text);
  if ((!day && !zoned) || Number.isNaN(date.getTime())) {
    throw new ReplayError(
      `${flag} must be a day (2026-08-10, midnight UTC) or a time with a zone (2026-08-10T12:00:00Z), got "${text}"`,
    );
  }
  return date;
}

/** Checks `since < until`. */
export function checkRange(range: ReplayRange): void {
  if (range.since.getTime() >= range.until.getTime()) {
    throw new ReplayError(`--since (${iso(range.since)}) must be before --until (${iso(range.until)})`);
  }
}

/**
 * The part of `range` the archive can replay, or a {@link ReplayError} saying why none of it can be:
 * the archive holds events from its creation on and drops them after `RetentionDays` (0 = forever).
 * A range reaching into the future ends now (EventBridge refuses an end time after the present).
 */
export function rangeWithinArchive(
  range: ReplayRange,
  archive: Pick<DescribeArchiveResponse, 'ArchiveName' | 'RetentionDays' | 'CreationTime'>,
  now: Date,
): ReplayRange {
  checkRange(range);
  const name = archive.ArchiveName ?? 'the archive';
  const retentionDays = archive.RetentionDays ?? 0;
  const oldestRetained =
    retentionDays > 0 ? now.getTime() - retentionDays * DAY_MS : Number.NEGATIVE_INFINITY;
  const created = archive.CreationTime?.getTime() ?? Number.NEGATIVE_INFINITY;
  const oldest = Math.max(oldestRetained, created);
  const kept = retentionDays > 0 ? `keeps events for ${retentionDays} days` : 'keeps events indefinitely';
  const holds = Number.isFinite(oldest) ? `it holds events from ${iso(new Date(oldest))} on` : '';
  if (range.since.getTime() < oldest) {
    throw new ReplayError(
      `--since ${iso(range.since)} is outside the retention of archive ${name}: it ${kept}` +
        `${archive.CreationTime ? ` and was created at ${iso(archive.CreationTime)}` : ''}; ${holds}. ` +
        'Events older than that are gone from the archive; read them from the results table instead.',
    );
  }
  if (range.since.getTime() >= now.getTime()) {
    throw new ReplayError(`--since ${iso(range.since)} is in the future: there is nothing to replay yet`);
  }
  return { since: range.since, until: new Date(Math.min(range.until.getTime(), now.getTime())) };
}

/** What {@link replayArchive} needs. */
export interface ArchiveReplayOptions {
  client: EventBridgeClient;
  archiveName: string;
  range: ReplayRange;
  /** Name of the replay (unique per account and region). */
  replayName: string;
  /** Told of every state seen while waiting. */
  onProgress?: (replay: DescribeReplayResponse) => void;
  /** Pause between DescribeReplay calls. @default 5000 */
  pollIntervalMs?: number;
  /** @default setTimeout-based */
  sleep?: (ms: number) => Promise<void>;
  /** @default () => new Date() */
  now?: () => Date;
}

/** Outcome of a replay that completed. */
export interface ArchiveReplaySummary {
  replayName: string;
  replayArn?: string;
  archiveName: string;
  state: string;
  since: string;
  until: string;
  lastReplayed?: string;
}

const FINAL_STATES = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/**
 * Replays the archive's events of `range` onto the bus the archive belongs to (its `EventSourceArn`),
 * then waits until the replay is COMPLETED. FAILED or CANCELLED is a {@link ReplayError} with the reason.
 */
export async function replayArchive(options: ArchiveReplayOptions): Promise<ArchiveReplaySummary> {
  const now = options.now ?? (() => new Date());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const archive = await options.client
    .send(new DescribeArchiveCommand({ ArchiveName: options.archiveName }))
    .catch((error: unknown) => {
      if ((error as { name?: string }).name === 'ResourceNotFoundException') {
        throw new ReplayError(`archive ${options.archiveName} does not exist (check --archive or --bus)`, {
          cause: error,
        });
      }
      throw error;
    });
  if (!archive.EventSourceArn) throw new ReplayError(`archive ${options.archiveName} names no event bus`);
  const range = rangeWithinArchive(options.range, { ...archive, ArchiveName: options.archiveName }, now());
  const started = await options.client.send(
    new StartReplayCommand({
      ReplayName: options.replayName,
      Description: `idv events replay ${iso(range.since)} .. ${iso(range.until)}`,
      EventSourceArn: archive.EventSourceArn,
      EventStartTime: range.since,
      EventEndTime: range.until,
      Destination: { Arn: archive.EventSourceArn },
    }),
  );
  let replay: DescribeReplayResponse = { State: started.State, ReplayArn: started.ReplayArn };
  options.onProgress?.(replay);
  while (!FINAL_STATES.has(replay.State ?? '')) {
    await sleep(options.pollIntervalMs ?? 5000);
    replay = await options.client.send(new DescribeReplayCommand({ ReplayName: options.replayName }));
    options.onProgress?.(replay);
  }
  if (replay.State !== 'COMPLETED') {
    throw new ReplayError(
      `replay ${options.replayName} ended ${replay.State}${replay.StateReason ? `: ${replay.StateReason}` : ''}`,
    );
  }
  return {
    replayName: options.replayName,
    ...((replay.ReplayArn ?? started.ReplayArn) ? { replayArn: replay.ReplayArn ?? started.ReplayArn } : {}),
    archiveName: options.archiveName,
    state: replay.State,
    since: iso(range.since),
    until: iso(range.until),
    ...(replay.EventLastReplayedTime && { lastReplayed: iso(replay.EventLastReplayedTime) }),
  };
}

/** A replay name EventBridge accepts (`[.\-_A-Za-z0-9]+`, at most 64), unique to the second. */
export function replayNameAt(now: Date): string {
  return `idv-replay-${iso(now).replace(/[:.]/g, '-')}`;
}

/** One line of the local `events.jsonl`, as far as a replay needs it. */
export interface RecordedEvent {
  time: string;
  source: string;
  'detail-type': string;
  detail: Record<string, unknown>;
  resources?: string[];
}

/**
 * The events of `events.jsonl` text whose `time` lies in `range`, in file order. A line that is not an
 * event (a partial last line after a crash, a hand edit) is counted in `skipped`, never fatal.
 */
export function selectRecordedEvents(
  text: string,
  range: ReplayRange,
): { events: RecordedEvent[]; skipped: number } {
  const events: RecordedEvent[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let event: RecordedEvent;
    try {
      event = JSON.parse(line) as RecordedEvent;
    } catch {
      skipped++;
      continue;
    }
    const time = typeof event?.time === 'string' ? Date.parse(event.time) : Number.NaN;
    const valid =
      !Number.isNaN(time) &&
      typeof event.source === 'string' &&
      typeof event['detail-type'] === 'string' &&
      typeof event.detail === 'object' &&
      event.detail !== null;
    if (!valid) {
      skipped++;
      continue;
    }
    if (time >= range.since.getTime() && time < range.until.getTime()) events.push(event);
  }
  return { events, skipped };
}

function iso(date: Date): string {
  return date.toISOString();
}

/** The `detail` field that marks a replayed event; its value is the replay's name. */
export const REPLAY_FIELD = 'replay';

/** `detail` with the replay marker (a detail that already carries one gets this replay's name). */
export function markReplay<T extends object>(detail: T, replayName: string): T & { replay: string } {
  return { ...detail, [REPLAY_FIELD]: replayName } as T & { replay: string };
}

/** True for an event a replay published (our marker, or EventBridge's `replay-name`). */
export function isReplayed(event: { detail?: unknown; 'replay-name'?: unknown }): boolean {
  const detail = event.detail as Record<string, unknown> | undefined;
  return typeof event['replay-name'] === 'string' || typeof detail?.[REPLAY_FIELD] === 'string';
}

/**
 * The event that re-announces a stored item (`idv events replay --result-id`): the detail the pipeline
 * would publish for it now, built by the same checks (`./details`), with the replay marker. An item that
 * holds a changed verdict (a later version) is re-announced as that change, its latest announcement.
 */
export function replayOfItem(
  item: ResultItem,
  options: DetailOptions,
  replayName: string,
): { detailType: DetailType; detail: object } {
  const previous = item.status === 'STORED' ? previousVersionOf(item) : undefined;
  if (previous) {
    return {
      detailType: DETAIL_TYPES.resultChanged,
      detail: markReplay(changedDetail(item, previous, options), replayName),
    };
  }
  return item.status === 'STORED'
    ? { detailType: DETAIL_TYPES.resultStored, detail: markReplay(storedDetail(item, options), replayName) }
    : {
        detailType: DETAIL_TYPES.resultUnavailable,
        detail: markReplay(unavailableDetail(item, options), replayName),
      };
}
