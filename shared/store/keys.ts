/**
 * The S3 key layout of stored results (docs/pipeline.md, "S3 data bucket"). Infra imports the prefixes
 * from here for its IAM grants and lifecycle rules, so grants and keys cannot drift apart.
 */
import {
  RESULT_FILE_DOCUMENT_TYPES,
  RESULT_IMAGE_DOCUMENT_TYPES,
  RESULT_IMAGE_PAGE_TYPES,
} from '../api/enums';
import type { BlobGroup, BlobNames } from '../stream/blob-sink';

/** Prefix of every stored result object. */
export const RESULTS_PREFIX = 'results/';

/**
 * Prefix of the multipart uploads of large blobs whose key is not known yet (the entry's documentType
 * may follow its `data`); each is copied to its final key and deleted. Expired by a lifecycle rule, so a
 * crash between upload and copy leaves nothing for long.
 */
export const STAGING_PREFIX = 'staging/';

const PLAIN_ID = /^[A-Za-z0-9_-]*$/;

/**
 * The resultId as one S3 key segment. Ids of only letters, digits, `-` and `_` (UUIDs, our simulator's ids)
 * keep their plain form. Every other character (`.` `:` `~` `+` `=` `@`, which another implementation may
 * use; S3 treats `:` `+` `=` `@` specially and `~` is to be avoided) becomes `.` plus two upper-case hex
 * digits per UTF-8 byte, e.g. `res.2026:0001` → `res.2E2026.3A0001`. The mapping is reversible and
 * collision-free: a plain segment never contains `.`, an escaped one always does, and `.` itself is escaped.
 */
export function resultIdKeyPart(resultId: string): string {
  if (PLAIN_ID.test(resultId)) return resultId;
  return resultId.replace(/[^A-Za-z0-9_-]/gu, (char) =>
    [...Buffer.from(char, 'utf8')]
      .map((byte) => `.${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  );
}

/** The prefix of every final object of `resultId`; the trailing `/` keeps `abcd`'s keys out of `abc`'s. */
export function resultObjectsPrefix(resultId: string): string {
  return `${RESULTS_PREFIX}${resultIdKeyPart(resultId)}/`;
}

/** The prefix of `resultId`'s staged blobs (multipart uploads before their final key is known). */
export function resultStagingPrefix(resultId: string): string {
  return `${STAGING_PREFIX}${resultIdKeyPart(resultId)}/`;
}

/**
 * The prefix of the objects of one version of `resultId` (docs/changed-verdicts.md): the first
 * version's objects stay where every result's were before versions existed (`results/{id}/…`), so stored
 * data and its readers keep working; a later version of the same resultId (a verdict the service changed
 * and announced again) goes under `results/{id}/versions/{n}/`. Every version stays inside
 * {@link resultObjectsPrefix}, so whatever purges a result's prefix purges all of its versions.
 */
export function resultVersionPrefix(resultId: string, version = 1): string {
  const base = resultObjectsPrefix(resultId);
  return version > 1 ? `${base}versions/${versionPart(version)}/` : base;
}

/** A version number as a key part: a positive integer, else refused (never a raw value in a key). */
function versionPart(version: number): string {
  if (!Number.isSafeInteger(version) || version < 1)
    throw new RangeError('a result version is a positive integer');
  return String(version);
}

/** S3 key of the stripped result JSON (of `version`, the first by default). */
export function resultJsonKey(resultId: string, version = 1): string {
  return `${resultVersionPrefix(resultId, version)}result.json`;
}

/** Two-digit (or more) 1-based position used in object keys. */
function position(index: number): string {
  return String(index + 1).padStart(2, '0');
}

/** An enum value for a key part, or `UNKNOWN`: raw strings never reach a key. */
function keyPart(value: unknown, allowed: readonly string[]): string {
  return typeof value === 'string' && allowed.includes(value) ? value : 'UNKNOWN';
}

/** S3 key of the `index`-th image of a result (of `version`, the first by default). */
export function imageKey(
  resultId: string,
  index: number,
  image: Record<string, unknown>,
  ext: string,
  version = 1,
): string {
  const documentType = keyPart(image.documentType, RESULT_IMAGE_DOCUMENT_TYPES);
  const pageType = keyPart(image.pageType, RESULT_IMAGE_PAGE_TYPES);
  return `${resultVersionPrefix(resultId, version)}images/${position(index)}-${documentType}-${pageType}.${ext}`;
}

/** S3 key of the `index`-th file of a result (of `version`, the first by default). */
export function fileKey(
  resultId: string,
  index: number,
  file: Record<string, unknown>,
  ext: string,
  version = 1,
): string {
  const documentType = keyPart(file.documentType, RESULT_FILE_DOCUMENT_TYPES);
  return `${resultVersionPrefix(resultId, version)}files/${position(index)}-${documentType}.${ext}`;
}

/** Final key of a blob of `group` (of `version`, the first by default). */
export function blobKey(
  group: BlobGroup,
  resultId: string,
  index: number,
  entry: Record<string, unknown>,
  ext: string,
  version = 1,
): string {
  return group === 'images'
    ? imageKey(resultId, index, entry, ext, version)
    : fileKey(resultId, index, entry, ext, version);
}

/** Deterministic staging key of a large blob (a redelivery overwrites it); a later version's apart. */
export function stagingKey(resultId: string, group: BlobGroup, index: number, version = 1): string {
  const versionDir = version > 1 ? `versions/${versionPart(version)}/` : '';
  return `${resultStagingPrefix(resultId)}${versionDir}${group}-${position(index)}`;
}

/** The key layout of `resultId`'s blobs (of `version`, the first by default), as the streaming ingest asks for it. */
export function resultBlobNames(resultId: string, version = 1): BlobNames {
  return {
    stagingKey: (group, index) => stagingKey(resultId, group, index, version),
    finalKey: (group, index, entry, extension) => blobKey(group, resultId, index, entry, extension, version),
  };
}
