/**
 * The local run's analytics writer: every event the local EventBridge accepts goes through the same
 * projection as on AWS (`shared/analytics/projection.ts`) into
 * `<data-dir>/analytics/results/day=yyyy-MM-dd/{resultId}.{status}.json`, which `idv analytics query
 * --local` reads with DuckDB. A data directory from before the projection existed is filled once from
 * its `events.jsonl`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type PipelineEvent, projectEvent, recordKey, recordLine } from '../shared/analytics/projection';
import { localProjectionDir } from './analytics-duckdb';

/** What the sink needs from the local EventBridge (`FakeEventBridge` fits). */
export interface EventSource {
  on(listener: (event: PipelineEvent) => void): () => void;
}

/** Name of the local run's event log in the data directory. */
const EVENTS_FILE = 'events.jsonl';

/**
 * Writes the record of one event (nothing for events that are not about a result). Synchronous, so
 * the record is on disk before the local PutEvents answers, as an EventBridge target would have it
 * before the publisher marks the result announced. Written to a temporary file and renamed: a query
 * running meanwhile never reads half a record.
 */
export function writeProjection(dataDir: string, event: PipelineEvent): string | undefined {
  const record = projectEvent(event);
  if (!record) return undefined;
  const file = join(dataDir, recordKey(record));
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, recordLine(record), { mode: 0o600 });
  renameSync(temporary, file);
  return file;
}

/** Projects the events of an existing `events.jsonl` once, when the data directory has no projection yet. */
export function backfillProjection(dataDir: string, report: (line: string) => void): number {
  const eventsFile = join(dataDir, EVENTS_FILE);
  if (existsSync(localProjectionDir(dataDir)) || !existsSync(eventsFile)) return 0;
  let written = 0;
  for (const line of readFileSync(eventsFile, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      if (writeProjection(dataDir, JSON.parse(line) as PipelineEvent)) written++;
    } catch (error) {
      report(`analytics: an event of ${EVENTS_FILE} was not projected (${describe(error)})`);
    }
  }
  return written;
}

/**
 * Feeds every event of `events` into the local projection of `dataDir` (after a one-time backfill
 * from `events.jsonl`). Problems are reported, never thrown: analytics must not stop the pipeline.
 * Returns the function that detaches the sink.
 */
export function attachAnalyticsSink(
  events: EventSource,
  dataDir: string,
  report: (line: string) => void,
): () => void {
  backfillProjection(dataDir, report);
  return events.on((event) => {
    try {
      writeProjection(dataDir, event);
    } catch (error) {
      report(`analytics: the ${String(event['detail-type'])} event was not projected (${describe(error)})`);
    }
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : 'error';
}
