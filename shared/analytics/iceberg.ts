/**
 * The AWS projection path (docs/analytics.md, "On AWS"): the pipeline bus sends every result event to an
 * Amazon Data Firehose stream, whose transformation Lambda (`functions/projector/transform.ts`) turns each
 * event into one row of the Iceberg table `result_rows` with the same projection as the local run
 * (`./projection.ts`), and tells Firehose to upsert it on `result_id`. An event of an erased result is
 * dropped (docs/erasure.md): replaying the archive after an erasure brings no row back. No I/O of its
 * own: the erasure look-up is handed in.
 */
import { PROJECTION_COLUMNS } from './columns';
import { ProjectionError, type ProjectionOptions, type ProjectionRecord, projectEvent } from './projection';

/** One record of a Firehose data-transformation invocation. */
export interface FirehoseInputRecord {
  readonly recordId: string;
  /** Base64 of the record as the source sent it: here an EventBridge event as JSON. */
  readonly data: string;
}

/** What the transformation answers for one record. */
export interface FirehoseOutputRecord {
  readonly recordId: string;
  readonly result: 'Ok' | 'Dropped' | 'ProcessingFailed';
  readonly data: string;
  readonly metadata?: {
    readonly otfMetadata: {
      readonly destinationDatabaseName: string;
      readonly destinationTableName: string;
      readonly operation: 'insert' | 'update' | 'delete';
    };
  };
}

/** Where the rows go, and the projection's options. */
export interface IcebergTarget extends ProjectionOptions {
  readonly database: string;
  readonly table: string;
}

/**
 * A projection record as an Iceberg row: Firehose takes Iceberg `timestamp` values as microseconds since
 * the epoch (UTC), every other column as it is.
 */
export function icebergRow(record: ProjectionRecord): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const column of PROJECTION_COLUMNS) {
    const value = record[column.name as keyof ProjectionRecord];
    row[column.name] =
      column.kind === 'timestamp' && typeof value === 'string'
        ? Date.parse(`${value.replace(' ', 'T')}Z`) * 1000
        : value;
  }
  return row;
}

/**
 * The answer for one Firehose record: an `update` of the row keyed by `result_id` for a result event
 * (Firehose deletes the row with that key and inserts this one, so a later STORED replaces an UNAVAILABLE
 * and a repeated event leaves the same row), `Dropped` for any other event, `ProcessingFailed` for a result
 * event that cannot become a row (Firehose writes it to the error prefix; nothing of it is logged).
 */
export function transformRecord(
  input: FirehoseInputRecord,
  target: IcebergTarget,
  erased: ReadonlySet<string> = new Set(),
): FirehoseOutputRecord {
  let record: ProjectionRecord | undefined;
  try {
    record = projectEvent(JSON.parse(Buffer.from(input.data, 'base64').toString('utf8')), target);
  } catch (error) {
    if (error instanceof ProjectionError || error instanceof SyntaxError) {
      return { recordId: input.recordId, result: 'ProcessingFailed', data: input.data };
    }
    throw error;
  }
  // An erased result's event (a replay of the archive, a late delivery) makes no row.
  if (!record || erased.has(record.result_id))
    return { recordId: input.recordId, result: 'Dropped', data: input.data };
  return {
    recordId: input.recordId,
    result: 'Ok',
    data: Buffer.from(`${JSON.stringify(icebergRow(record))}\n`).toString('base64'),
    metadata: {
      otfMetadata: {
        destinationDatabaseName: target.database,
        destinationTableName: target.table,
        operation: 'update',
      },
    },
  };
}

/** The `detail.resultId` of a record's event, when it has one (for the erasure look-up); never throws. */
export function recordResultId(input: FirehoseInputRecord): string | undefined {
  try {
    const event = JSON.parse(Buffer.from(input.data, 'base64').toString('utf8')) as {
      detail?: { resultId?: unknown };
    };
    const resultId = event?.detail?.resultId;
    return typeof resultId === 'string' ? resultId : undefined;
  } catch {
    return undefined;
  }
}

/** Which results of a batch were erased (the results table's `<id>#erasure` records). */
export interface ErasureLookup {
  erasedAmong(resultIds: readonly string[]): Promise<Set<string>>;
}

/**
 * One Firehose invocation: the erased results among the batch's events are looked up once, then each record
 * is transformed ({@link transformRecord}); `erased` counts the records dropped for an erasure.
 */
export async function transformBatch(
  inputs: readonly FirehoseInputRecord[],
  target: IcebergTarget,
  erasures: ErasureLookup | undefined,
): Promise<{ records: FirehoseOutputRecord[]; erased: number }> {
  const ids = inputs.map(recordResultId);
  const known = ids.filter((id): id is string => id !== undefined);
  const erased = erasures && known.length > 0 ? await erasures.erasedAmong(known) : new Set<string>();
  let dropped = 0;
  const records = inputs.map((input, i) => {
    const output = transformRecord(input, target, erased);
    if (output.result === 'Dropped' && erased.has(ids[i] ?? '')) dropped++;
    return output;
  });
  return { records, erased: dropped };
}
