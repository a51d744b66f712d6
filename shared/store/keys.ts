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

/** S3 key of the stripped result JSON. */
export function resultJsonKey(resultId: string): string {
  return `${resultObjectsPrefix(resultId)}result.json`;
}

/** Two-digit (or more) 1-based position used in object keys. */
function position(index: number): string {
  return String(index + 1).padStart(2, '0');
}

/** An enum value for a key part, or `UNKNOWN`: raw strings never reach a key. */
function keyPart(value: unknown, allowed: readonly string[]): string {
  return typeof value === 'string' && allowed.includes(value) ? value : 'UNKNOWN';
}

/** S3 key of the `index`-th image of a result. */
export function imageKey(
  resultId: string,
  index: number,
  image: Record<string, unknown>,
  ext: string,
): string {
  const documentType = keyPart(image.documentType, RESULT_IMAGE_DOCUMENT_TYPES);
  const pageType = keyPart(image.pageType, RESULT_IMAGE_PAGE_TYPES);
  return `${RESULTS_PREFIX}${resultIdKeyPart(resultId)}/images/${position(index)}-${documentType}-${pageType}.${ext}`;
}

/** S3 key of the `index`-th file of a result. */
export function fileKey(resultId: string, index: number, file: Record<string, unknown>, ext: string): string {
  const documentType = keyPart(file.documentType, RESULT_FILE_DOCUMENT_TYPES);
  return `${RESULTS_PREFIX}${resultIdKeyPart(resultId)}/files/${position(index)}-${documentType}.${ext}`;
}

/** Final key of a blob of `group`. */
export function blobKey(
  group: BlobGroup,
  resultId: string,
  index: number,
  entry: Record<string, unknown>,
  ext: string,
): string {
  return group === 'images' ? imageKey(resultId, index, entry, ext) : fileKey(resultId, index, entry, ext);
}

/** Deterministic staging key of a large blob (a redelivery overwrites it). */
export function stagingKey(resultId: string, group: BlobGroup, index: number): string {
  return `${resultStagingPrefix(resultId)}${group}-${position(index)}`;
}

/** The key layout of `resultId`'s blobs, as the streaming ingest asks for it. */
export function resultBlobNames(resultId: string): BlobNames {
  return {
    stagingKey: (group, index) => stagingKey(resultId, group, index),
    finalKey: (group, index, entry, extension) => blobKey(group, resultId, index, entry, extension),
  };
}
