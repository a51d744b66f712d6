/**
 * Finding one result's rows of the analytics projection in the analytics bucket, for erasure
 * (docs/erasure.md, "How it runs"): the JSON records at `…/day=…/{resultId}.{stored|unavailable}.json`, one per
 * status, in whichever day partition the event put them. The local projection (one Parquet file) erases
 * its rows in local/analytics-store.ts.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { RESULT_ID_PATTERN } from '../api/result-id';
import { PipelineError } from '../errors';
import { objectPages } from '../store/s3-pages';
import type { QueryEngine } from './engine';
import { PROJECTION_PREFIX, projectionKeyPart } from './projection';
import { RESULTS_RAW_TABLE } from './queries';

/** File names of a result's records in a day partition, every status. */
export function projectionFileNames(resultId: string): string[] {
  const part = projectionKeyPart(resultId);
  return [`${part}.stored.json`, `${part}.unavailable.json`];
}

/**
 * The keys of `resultId`'s records in the analytics bucket: one listing of the day partitions
 * (delimiter `/`), then one listing per day of the exact record keys.
 */
export async function findProjectionObjects(
  s3: S3Client,
  bucket: string,
  resultId: string,
): Promise<string[]> {
  const days: string[] = [];
  for await (const page of objectPages(s3, { Bucket: bucket, Prefix: PROJECTION_PREFIX, Delimiter: '/' })) {
    for (const prefix of page.CommonPrefixes ?? []) if (prefix.Prefix) days.push(prefix.Prefix);
  }
  const part = projectionKeyPart(resultId);
  const wanted = new Set(projectionFileNames(resultId));
  const found: string[] = [];
  for (const day of days) {
    for await (const page of objectPages(s3, { Bucket: bucket, Prefix: `${day}${part}.` })) {
      for (const object of page.Contents ?? []) {
        if (object.Key && wanted.has(object.Key.slice(day.length))) found.push(object.Key);
      }
    }
  }
  return found;
}

/** A projection record's resultId part and status from its file name (`{id part}.{status}.json`). */
function rowOf(name: string): string | undefined {
  const match = /^(.+)\.(stored|unavailable)\.json$/.exec(name);
  return match?.[1];
}

/** Every record object of the analytics bucket with its write time. */
export async function listProjectionObjects(
  s3: S3Client,
  bucket: string,
): Promise<{ resultId: string; writtenAt: Date }[]> {
  const rows: { resultId: string; writtenAt: Date }[] = [];
  for await (const page of objectPages(s3, { Bucket: bucket, Prefix: PROJECTION_PREFIX })) {
    for (const object of page.Contents ?? []) {
      const resultId = object.Key ? rowOf(object.Key.slice(object.Key.lastIndexOf('/') + 1)) : undefined;
      if (resultId && object.LastModified) rows.push({ resultId, writtenAt: object.LastModified });
    }
  }
  return rows;
}

/**
 * One result's row of the Iceberg table `results_raw` through Athena (the AWS projection once analytics is on
 * Iceberg): found with a count, removed with a row-level `DELETE` (Iceberg v2 delete files; the table's
 * optimizer rewrites the data files and expires the old snapshots, after which no file holds the row).
 */
export function icebergProjectionRows(engine: QueryEngine): {
  find(resultId: string): Promise<string[]>;
  remove(resultId: string): Promise<number>;
} {
  const where = (resultId: string) => {
    // Ids reach SQL only when they follow the id rule (letters, digits and a few marks, no quote).
    if (!RESULT_ID_PATTERN.test(resultId))
      throw new PipelineError('a resultId that breaks the id rule is never put into SQL');
    return `result_id = '${resultId}'`;
  };
  const count = async (resultId: string) =>
    Number(
      (await engine.query(`SELECT count(*) AS n FROM ${RESULTS_RAW_TABLE} WHERE ${where(resultId)}`))
        .rows[0]?.['n'] ?? 0,
    );
  return {
    find: async (resultId) =>
      (await count(resultId)) > 0 ? [`${RESULTS_RAW_TABLE} (${engine.description})`] : [],
    remove: async (resultId) => {
      const rows = await count(resultId);
      if (rows > 0) await engine.query(`DELETE FROM ${RESULTS_RAW_TABLE} WHERE ${where(resultId)}`);
      return rows;
    },
  };
}
