/**
 * Removing one result's rows from the analytics projection (docs/analytics.md): the records at
 * `analytics/results/day=…/{resultId}.{stored|unavailable}.json`, one per status, in whichever day
 * partition the event put them. Every day partition is looked at, so a row is found whatever the
 * result's day was. Kept to what the JSON projection is today; once analytics moves to Iceberg this
 * becomes a `DELETE … WHERE result_id = ?`.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { PARTITION_COLUMN } from './columns';
import { PROJECTION_PREFIX, projectionKeyPart } from './projection';

/** File names of a result's records in a day partition, every status. */
export function projectionFileNames(resultId: string): string[] {
  const part = projectionKeyPart(resultId);
  return [`${part}.stored.json`, `${part}.unavailable.json`];
}

/** The paths of `resultId`'s records under a local projection directory (`<data-dir>/analytics/results`). */
export function findLocalProjectionRows(projectionDir: string, resultId: string): string[] {
  if (!existsSync(projectionDir)) return [];
  const names = projectionFileNames(resultId);
  const found: string[] = [];
  for (const day of readdirSync(projectionDir, { withFileTypes: true })) {
    if (!day.isDirectory() || !day.name.startsWith(`${PARTITION_COLUMN}=`)) continue;
    for (const name of names) {
      const path = join(projectionDir, day.name, name);
      if (existsSync(path)) found.push(path);
    }
  }
  return found;
}

/** Deletes the given local record files; returns how many were removed. */
export function removeLocalProjectionRows(paths: readonly string[]): number {
  for (const path of paths) rmSync(path, { force: true });
  return paths.length;
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
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: PROJECTION_PREFIX,
        Delimiter: '/',
        ContinuationToken: token,
      }),
    );
    for (const prefix of page.CommonPrefixes ?? []) if (prefix.Prefix) days.push(prefix.Prefix);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const part = projectionKeyPart(resultId);
  const wanted = new Set(projectionFileNames(resultId));
  const found: string[] = [];
  for (const day of days) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${day}${part}.` }));
    for (const object of page.Contents ?? []) {
      if (object.Key && wanted.has(object.Key.slice(day.length))) found.push(object.Key);
    }
  }
  return found;
}

/** A projection record's resultId part and status from its file name (`{id part}.{status}.json`). */
function rowOf(name: string): string | undefined {
  const match = /^(.+)\.(stored|unavailable)\.json$/.exec(name);
  return match?.[1];
}

/** Every record file of a local projection directory with its write time (for the retention check). */
export function listLocalProjection(projectionDir: string): { resultId: string; writtenAt: Date }[] {
  if (!existsSync(projectionDir)) return [];
  const rows: { resultId: string; writtenAt: Date }[] = [];
  for (const day of readdirSync(projectionDir, { withFileTypes: true })) {
    if (!day.isDirectory()) continue;
    for (const name of readdirSync(join(projectionDir, day.name))) {
      const resultId = rowOf(name);
      if (resultId) rows.push({ resultId, writtenAt: statSync(join(projectionDir, day.name, name)).mtime });
    }
  }
  return rows;
}

/** Every record object of the analytics bucket with its write time. */
export async function listProjectionObjects(
  s3: S3Client,
  bucket: string,
): Promise<{ resultId: string; writtenAt: Date }[]> {
  const rows: { resultId: string; writtenAt: Date }[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: PROJECTION_PREFIX, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) {
      const resultId = object.Key ? rowOf(object.Key.slice(object.Key.lastIndexOf('/') + 1)) : undefined;
      if (resultId && object.LastModified) rows.push({ resultId, writtenAt: object.LastModified });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return rows;
}
