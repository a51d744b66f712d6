/**
 * Every S3 listing of the project, page by page. ListObjectsV2 goes through the SDK's own paginator;
 * ListObjectVersions and ListMultipartUploads have none in the SDK (each resumes from two markers, a key
 * and a version or upload id), so their one loop lives here, and no other module pages S3 by hand.
 */
import {
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  type ListObjectsV2CommandInput,
  type ListObjectsV2CommandOutput,
  ListObjectVersionsCommand,
  type ListObjectVersionsCommandOutput,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';

/** The pages of ListObjectsV2 for `input` (the SDK's paginator). */
export function objectPages(
  s3: S3Client,
  input: Omit<ListObjectsV2CommandInput, 'ContinuationToken'>,
): AsyncIterable<ListObjectsV2CommandOutput> {
  return paginateListObjectsV2({ client: s3 }, input);
}

/** The pages of ListObjectVersions under `prefix`: every version and delete marker. */
export async function* versionPages(
  s3: S3Client,
  bucket: string,
  prefix: string,
): AsyncGenerator<ListObjectVersionsCommandOutput> {
  let keyMarker: string | undefined;
  let versionIdMarker: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectVersionsCommand({
        Bucket: bucket,
        Prefix: prefix,
        KeyMarker: keyMarker,
        VersionIdMarker: versionIdMarker,
      }),
    );
    yield page;
    const more = page.IsTruncated === true;
    keyMarker = more ? page.NextKeyMarker : undefined;
    versionIdMarker = more ? page.NextVersionIdMarker : undefined;
  } while (keyMarker !== undefined);
}

/** The pages of ListMultipartUploads under `prefix`: every upload in progress. */
export async function* uploadPages(
  s3: S3Client,
  bucket: string,
  prefix: string,
): AsyncGenerator<ListMultipartUploadsCommandOutput> {
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  do {
    const page = await s3.send(
      new ListMultipartUploadsCommand({
        Bucket: bucket,
        Prefix: prefix,
        KeyMarker: keyMarker,
        UploadIdMarker: uploadIdMarker,
      }),
    );
    yield page;
    const more = page.IsTruncated === true;
    keyMarker = more ? page.NextKeyMarker : undefined;
    uploadIdMarker = more ? page.NextUploadIdMarker : undefined;
  } while (keyMarker !== undefined);
}
