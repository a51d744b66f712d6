/**
 * Finding one result's rows of the analytics projection in the analytics bucket, for erasure
 * (docs/pipeline.md, "Erasure"): the JSON records at `…/day=…/{resultId}.{stored|unavailable}.json`, one per
 * status, in whichever day partition the event put them. The local projection (one Parquet file) erases
 * its rows in local/analytics-store.ts.
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { PROJECTION_PREFIX, projectionKeyPart } from './projection';

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
