/**
 * The local run's analytics writer: every event the local EventBridge accepts goes through the same
 * projection as on AWS (`shared/analytics/projection.ts`) and is appended to the local store
 * (`./analytics-store.ts`: JSON lines, compacted into one Parquet file with one row per result), which
 * `idv analytics query --local` reads with DuckDB. A data directory without a projection (from before
 * it existed, or with the earlier one-JSON-object-per-result layout) is filled once from its
 * `events.jsonl`.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type PipelineEvent, type ProjectionOptions, projectEvent } from '../shared/analytics/projection';
import {
  appendRecord,
  compactLocalProjection,
  incomingBytes,
  localAnalyticsDir,
  localIncomingFiles,
  localParquetFile,
} from './analytics-store';

/** What the sink needs from the local EventBridge (`FakeEventBridge` fits). */
export interface EventSource {
  on(listener: (event: PipelineEvent) => void): () => void;
}

/** Name of the local run's event log in the data directory. */
const EVENTS_FILE = 'events.jsonl';
/** Incoming bytes that start a compaction in the background (about 2,000 records). */
const COMPACT_AFTER_BYTES = 2 * 1024 * 1024;

/**
 * The local events carry `customerReference` only when `IDV_EVENT_CUSTOMER_REFERENCE` includes it (the
 * local run sets it as cdk.json does), so the sink exports what they carry.
 */
const LOCAL_OPTIONS: ProjectionOptions = { customerReference: 'include' };

/**
 * Appends the record of one event (nothing for events that are not about a result). Synchronous, so
 * the record is on disk before the local PutEvents answers, as an EventBridge target would have it
 * before the publisher marks the result announced. Returns whether a record was written.
 */
export function writeProjection(
  dataDir: string,
  event: PipelineEvent,
  options: ProjectionOptions = LOCAL_OPTIONS,
): boolean {
  const record = projectEvent(event, options);
  if (!record) return false;
  appendRecord(dataDir, record);
  return true;
}

/**
 * Projects the events of an existing `events.jsonl` once, when the data directory has no projection yet
 * (no Parquet file, no incoming lines); the one-object-per-result directory of earlier versions
 * (`analytics/results/`) is replaced. Returns the number of records written.
 */
export function backfillProjection(dataDir: string, report: (line: string) => void): number {
  const eventsFile = join(dataDir, EVENTS_FILE);
  const legacy = join(localAnalyticsDir(dataDir), 'results');
  if (existsSync(localParquetFile(dataDir)) || localIncomingFiles(dataDir).length > 0) return 0;
  if (!existsSync(eventsFile)) return 0;
  let written = 0;
  for (const line of readFileSync(eventsFile, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      if (writeProjection(dataDir, JSON.parse(line) as PipelineEvent)) written++;
    } catch (error) {
      report(`analytics: an event of ${EVENTS_FILE} was not projected (${describe(error)})`);
    }
  }
  rmSync(legacy, { recursive: true, force: true });
  return written;
}

/**
 * Feeds every event of `events` into the local projection of `dataDir` (after a one-time backfill
 * from `events.jsonl`), compacting in the background once enough has come in. Problems are reported,
 * never thrown: analytics must not stop the pipeline. Returns the function that detaches the sink.
 */
export function attachAnalyticsSink(
  events: EventSource,
  dataDir: string,
  report: (line: string) => void,
): () => void {
  backfillProjection(dataDir, report);
  let compacting: Promise<unknown> | undefined;
  const compact = () => {
    if (compacting) return;
    compacting = compactLocalProjection(dataDir)
      .catch((error: unknown) => report(`analytics: compaction failed, retried later (${describe(error)})`))
      .finally(() => {
        compacting = undefined;
      });
  };
  compact();
  return events.on((event) => {
    try {
      if (writeProjection(dataDir, event) && incomingBytes(dataDir) > COMPACT_AFTER_BYTES) compact();
    } catch (error) {
      report(`analytics: the ${String(event['detail-type'])} event was not projected (${describe(error)})`);
    }
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : 'error';
}
