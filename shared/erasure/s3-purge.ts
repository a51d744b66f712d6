/**
 * Every stored byte of one key prefix, gone: on a versioned bucket each version and each delete marker
 * (ListObjectVersions, then DeleteObjects naming every VersionId — a plain delete would only add a
 * marker and leave the data in a noncurrent version), and every multipart upload in progress
 * (ListMultipartUploads, AbortMultipartUpload: uploaded parts hold data too).
 *
 * The local S3 emulator (s3rver) keeps one version per key and implements neither `?versions` (it
 * answers 405) nor `?uploads` (501): with `dialect: 'local'` the same steps use ListObjectsV2 and
 * DeleteObjects without versions. The versioned path is tested with aws-sdk-client-mock.
 */
import { AbortMultipartUploadCommand, DeleteObjectsCommand, type S3Client } from '@aws-sdk/client-s3';
import { PipelineError } from '../errors';
import { objectPages, uploadPages, versionPages } from '../store/s3-pages';

/** What the bucket speaks: AWS S3 (versions, multipart listings) or the local emulator (neither). */
export type S3Dialect = 'aws' | 'local';

/** One stored version (or delete marker) of a key. */
export interface StoredVersion {
  readonly key: string;
  /** Absent for the local emulator's single version. */
  readonly versionId?: string;
  readonly deleteMarker: boolean;
  /** When it was written (for the retention check). */
  readonly lastModified?: Date;
}

/** A multipart upload in progress. */
export interface OpenUpload {
  readonly key: string;
  readonly uploadId: string;
}

/** What lies under a prefix. */
export interface PrefixContents {
  readonly versions: StoredVersion[];
  readonly uploads: OpenUpload[];
}

/** Keys per DeleteObjects request (S3's limit). */
const DELETE_BATCH = 1000;
/** List-and-delete rounds before giving up: a writer racing the erasure adds versions as we go. */
export const MAX_PURGE_ROUNDS = 5;

/** S3 refused some keys of a DeleteObjects request (the codes, never a key's bytes beyond the key). */
export class ObjectDeletionError extends PipelineError {
  override readonly name = 'ObjectDeletionError';
  constructor(
    readonly bucket: string,
    readonly codes: string[],
  ) {
    super(`S3 refused to delete ${codes.length} version(s) in ${bucket}: ${[...new Set(codes)].join(', ')}`);
  }
}

/** A prefix still held data after {@link MAX_PURGE_ROUNDS} rounds (a writer kept adding): run the erasure again. */
export class PurgeRoundsError extends PipelineError {
  override readonly name = 'PurgeRoundsError';
  constructor(
    readonly bucket: string,
    readonly prefix: string,
    readonly rounds: number,
  ) {
    super(`${bucket}/${prefix} still held data after ${rounds} rounds of deletion`);
  }
}

/**
 * Everything stored under `prefix` (every page), keeping only keys `accept` takes (a prefix may be
 * shared with another result's key, e.g. `abc.` with `abc.2Ex.`).
 */
export async function listPrefix(
  s3: S3Client,
  bucket: string,
  prefix: string,
  dialect: S3Dialect,
  accept: (key: string) => boolean = () => true,
): Promise<PrefixContents> {
  const versions: StoredVersion[] = [];
  const uploads: OpenUpload[] = [];
  if (dialect === 'local') {
    for await (const page of objectPages(s3, { Bucket: bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) {
        if (object.Key && accept(object.Key)) {
          versions.push({ key: object.Key, deleteMarker: false, lastModified: object.LastModified });
        }
      }
    }
    return { versions, uploads };
  }
  for await (const page of versionPages(s3, bucket, prefix)) {
    for (const version of page.Versions ?? []) {
      if (version.Key && accept(version.Key)) {
        versions.push({
          key: version.Key,
          versionId: version.VersionId,
          deleteMarker: false,
          lastModified: version.LastModified,
        });
      }
    }
    for (const marker of page.DeleteMarkers ?? []) {
      if (marker.Key && accept(marker.Key)) {
        versions.push({
          key: marker.Key,
          versionId: marker.VersionId,
          deleteMarker: true,
          lastModified: marker.LastModified,
        });
      }
    }
  }
  for await (const page of uploadPages(s3, bucket, prefix)) {
    for (const upload of page.Uploads ?? []) {
      if (upload.Key && upload.UploadId && accept(upload.Key))
        uploads.push({ key: upload.Key, uploadId: upload.UploadId });
    }
  }
  return { versions, uploads };
}

/** Deletes exactly the listed versions (and aborts the uploads); throws when S3 refused any. */
export async function deleteContents(s3: S3Client, bucket: string, contents: PrefixContents): Promise<void> {
  for (const upload of contents.uploads) {
    await s3.send(
      new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.key, UploadId: upload.uploadId }),
    );
  }
  for (let i = 0; i < contents.versions.length; i += DELETE_BATCH) {
    const batch = contents.versions.slice(i, i + DELETE_BATCH);
    const answer = await s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: {
          Objects: batch.map((v) => ({
            Key: v.key,
            ...(v.versionId !== undefined && { VersionId: v.versionId }),
          })),
          Quiet: true,
        },
      }),
    );
    const refused = answer.Errors ?? [];
    if (refused.length > 0)
      throw new ObjectDeletionError(
        bucket,
        refused.map((e) => e.Code ?? 'unknown'),
      );
  }
}

/** What {@link purgePrefix} removed. */
export interface PurgeCounts {
  versions: number;
  deleteMarkers: number;
  keys: number;
  uploads: number;
}

/**
 * Lists and deletes everything under `prefix` until a listing comes back empty (a write racing the
 * erasure is caught by the next round); throws a {@link PurgeRoundsError} after {@link MAX_PURGE_ROUNDS}
 * rounds that still found data.
 */
export async function purgePrefix(
  s3: S3Client,
  bucket: string,
  prefix: string,
  dialect: S3Dialect,
  accept?: (key: string) => boolean,
): Promise<PurgeCounts> {
  const counts: PurgeCounts = { versions: 0, deleteMarkers: 0, keys: 0, uploads: 0 };
  const keys = new Set<string>();
  for (let round = 0; round < MAX_PURGE_ROUNDS; round++) {
    const contents = await listPrefix(s3, bucket, prefix, dialect, accept);
    if (contents.versions.length === 0 && contents.uploads.length === 0) {
      counts.keys = keys.size;
      return counts;
    }
    await deleteContents(s3, bucket, contents);
    for (const version of contents.versions) {
      keys.add(version.key);
      if (version.deleteMarker) counts.deleteMarkers++;
      else counts.versions++;
    }
    counts.uploads += contents.uploads.length;
  }
  throw new PurgeRoundsError(bucket, prefix, MAX_PURGE_ROUNDS);
}
