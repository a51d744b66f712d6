/**
 * Everything one result leaves behind, in one list (docs/erasure.md, "What erasure removes"). Each store
 * registers the per-result keys it writes through the key makers it exports; the erasure
 * (shared/erasure/erase-result.ts) deletes exactly what this list names, and a test stores a result
 * through the real stores and fails on any key of it that no entry here claims — so a new per-result
 * record cannot be written without the erasure knowing it.
 */
import { enqueueMarkerKey } from '../pipeline/enqueue-markers';
import { erasureKey } from '../store/erasure-record';
import { resultItemKey } from '../store/item';
import { resultObjectsPrefix, resultStagingPrefix } from '../store/keys';
import { pollRecordKey } from '../store/poll-records';
import { publicationKey } from '../store/publication';

/** The two DynamoDB tables of the pipeline. */
export type TraceTable = 'results' | 'markers';

/** A per-result item, keyed by a key maker of its store. */
export interface ItemTrace {
  readonly kind: string;
  readonly table: TraceTable;
  readonly key: (resultId: string) => string;
  /** What it holds (for docs and the dry run; never its content). */
  readonly holds: string;
}

/** Per-result objects under one prefix of the data bucket (every version, every upload). */
export interface ObjectTrace {
  readonly kind: string;
  readonly prefix: (resultId: string) => string;
  readonly holds: string;
}

/**
 * A trace in a store the erasure reaches through a caller-given {@link TraceReach}: the analytics
 * projection (Athena or the local Parquet files), the queues and the local run's journals.
 */
export interface ReachedTrace {
  readonly kind: string;
  readonly reach: ReachName;
  readonly holds: string;
}

/** The reaches an erasure may be given (see `ErasureDeps.reaches`). */
export type ReachName = 'projection' | 'queues' | 'journals';

/**
 * One store's traces of a result that the erasure reaches through code outside `shared/` (the
 * projection's engine, the local files). `find` names what is there (keys, row labels, file names with
 * counts — never content); `remove` takes what `find` returned and says how many went.
 */
export interface TraceReach {
  find(resultId: string): Promise<string[]>;
  remove(resultId: string, found: readonly string[]): Promise<number>;
}

/** Items the erasure deletes. */
export const ITEM_TRACES: readonly ItemTrace[] = [
  {
    kind: 'result-item',
    table: 'results',
    key: resultItemKey,
    holds: 'the result document (or its reference), identifiers, poll metadata, the history of its versions',
  },
  {
    kind: 'publication-record',
    table: 'results',
    key: publicationKey,
    holds: 'status, claim token and times of the result event',
  },
  {
    kind: 'poll-record',
    table: 'results',
    key: pollRecordKey,
    holds: "the service's polling record: transactionId, product, customerReference, userId, completed",
  },
  {
    kind: 'enqueue-marker',
    table: 'markers',
    key: enqueueMarkerKey,
    holds: 'enqueue time and the polling record completion time',
  },
];

/** The erasure's own record: written, never deleted (it is the proof, and the fence); it expires by TTL. */
export const ERASURE_RECORD_TRACE: ItemTrace = {
  kind: 'erasure-record',
  table: 'results',
  key: erasureKey,
  holds: 'when, who, counts and receipt of the erasure; no data of the result',
};

/** Objects the erasure deletes, every version and upload. */
export const OBJECT_TRACES: readonly ObjectTrace[] = [
  {
    kind: 'result-objects',
    prefix: resultObjectsPrefix,
    holds: 'result.json, decoded images and files, of every version (versions/<n>/ under the prefix)',
  },
  { kind: 'staged-uploads', prefix: resultStagingPrefix, holds: 'large blobs before their final key' },
];

/** Traces in stores reached through the caller. */
export const REACHED_TRACES: readonly ReachedTrace[] = [
  { kind: 'analytics-row', reach: 'projection', holds: 'the projection row (no personal data)' },
  {
    kind: 'queue-messages',
    reach: 'queues',
    holds: 'messages of the results queue and its DLQ (poll metadata: customerReference, userId)',
  },
  {
    kind: 'local-journals',
    reach: 'journals',
    holds: 'local run only: events.jsonl, rules/*.jsonl, trace.jsonl lines naming the result',
  },
];

/** Every kind, in the order the docs list them. */
export const TRACE_KINDS: readonly string[] = [
  ...OBJECT_TRACES.map((t) => t.kind),
  ...ITEM_TRACES.map((t) => t.kind),
  ERASURE_RECORD_TRACE.kind,
  ...REACHED_TRACES.map((t) => t.kind),
];

/** The registered kind of item `key` of `table` for `resultId`, or undefined when none claims it. */
export function itemTraceKind(table: TraceTable, key: string, resultId: string): string | undefined {
  return [...ITEM_TRACES, ERASURE_RECORD_TRACE].find((t) => t.table === table && t.key(resultId) === key)
    ?.kind;
}

/** The registered kind of object `key` of the data bucket for `resultId`, or undefined. */
export function objectTraceKind(key: string, resultId: string): string | undefined {
  return OBJECT_TRACES.find((t) => key.startsWith(t.prefix(resultId)))?.kind;
}
