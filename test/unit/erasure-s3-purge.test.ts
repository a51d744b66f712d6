/**
 * The S3 purge of an erasure (shared/erasure/s3-purge.ts) against an in-memory versioned bucket that pages
 * and filters as S3 does: what it removes (every version, marker and upload, across pages and batches),
 * what it keeps (another result's keys beside the prefix) and where it stops (the round limit).
 */
import {
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  deleteContents,
  listPrefix,
  MAX_PURGE_ROUNDS,
  ObjectDeletionError,
  PurgeRoundsError,
  purgePrefix,
} from '../../shared/erasure/s3-purge';
import { resultJsonKey, stagingKey } from '../../shared/store/keys';
import { VersionedBucket } from '../support/versioned-bucket';

const s3Mock = mockClient(S3Client);
const BUCKET = 'data';
const s3 = () => new S3Client({ region: 'eu-west-1' });

describe('purgePrefix on a versioned bucket', () => {
  beforeEach(() => s3Mock.reset());

  it('keeps the keys of a result whose id starts with the erased one (results/abc/ vs results/abcd/)', async () => {
    // Prepare: the real key layout, ids `abc` and `abcd` (and an escaped id sharing the plain part).
    const bucket = new VersionedBucket();
    bucket.attach(s3Mock);
    const own = [resultJsonKey('abc'), 'results/abc/images/01-PASSPORT-FRONT.jpg'];
    const other = [resultJsonKey('abcd'), resultJsonKey('abc.x'), stagingKey('abc', 'images', 0)];
    for (const key of [...own, ...other]) bucket.versions.push({ key, versionId: `v-${key}` });

    // Act
    const counts = await purgePrefix(s3(), BUCKET, 'results/abc/', 'aws');

    // Assess
    expect(counts).toEqual({ versions: 2, deleteMarkers: 0, keys: 2, uploads: 0 });
    expect(bucket.keys()).toEqual([...other].sort());
  });

  it('keeps a key under the listed prefix that `accept` refuses (abc. vs abc.2Ex.)', async () => {
    // Prepare: the projection's record keys share the listed prefix `…/abc.`.
    const bucket = new VersionedBucket();
    bucket.attach(s3Mock);
    const mine = 'analytics/results/day=2026-08-10/abc.stored.json';
    const theirs = 'analytics/results/day=2026-08-10/abc.2Ex.stored.json';
    bucket.versions.push({ key: mine, versionId: 'a' }, { key: theirs, versionId: 'b' });
    bucket.uploads.push({ key: theirs, uploadId: 'u-theirs' }, { key: mine, uploadId: 'u-mine' });
    const accept = (key: string) => key === mine;

    // Act
    const listed = await listPrefix(s3(), BUCKET, 'analytics/results/day=2026-08-10/abc.', 'aws', accept);
    const counts = await purgePrefix(s3(), BUCKET, 'analytics/results/day=2026-08-10/abc.', 'aws', accept);

    // Assess
    expect(listed.versions.map((v) => v.key)).toEqual([mine]);
    expect(listed.uploads).toEqual([{ key: mine, uploadId: 'u-mine' }]);
    expect(counts).toEqual({ versions: 1, deleteMarkers: 0, keys: 1, uploads: 1 });
    expect(bucket.keys()).toEqual([theirs]);
    expect(bucket.uploads).toEqual([{ key: theirs, uploadId: 'u-theirs' }]);
  });

  it('keeps delete markers of refused keys too, and takes those of accepted ones', async () => {
    // Prepare
    const bucket = new VersionedBucket();
    bucket.attach(s3Mock);
    bucket.versions.push(
      { key: 'p/a', versionId: '1', deleteMarker: true },
      { key: 'p/b', versionId: '2', deleteMarker: true },
    );

    // Act
    const counts = await purgePrefix(s3(), BUCKET, 'p/', 'aws', (key) => key === 'p/a');

    // Assess
    expect(counts).toEqual({ versions: 0, deleteMarkers: 1, keys: 1, uploads: 0 });
    expect(bucket.versions).toEqual([{ key: 'p/b', versionId: '2', deleteMarker: true }]);
  });

  it('removes 2,500 versions and markers listed over several pages, in batches of at most 1,000', async () => {
    // Prepare: 2,400 versions of 1,200 keys and 100 delete markers, pages of 1,000 entries.
    const bucket = new VersionedBucket();
    bucket.attach(s3Mock);
    bucket.addVersions('results/res-1/files/', 2400);
    for (let i = 0; i < 100; i++)
      bucket.versions.push({ key: `results/res-1/z/${i}`, versionId: `m${i}`, deleteMarker: true });
    bucket.versions.push({ key: 'results/res-10/result.json', versionId: 'other' });

    // Act
    const counts = await purgePrefix(s3(), BUCKET, 'results/res-1/', 'aws');

    // Assess
    expect(counts).toEqual({ versions: 2400, deleteMarkers: 100, keys: 1300, uploads: 0 });
    expect(bucket.versions).toEqual([{ key: 'results/res-10/result.json', versionId: 'other' }]);
    expect(bucket.deleteBatches).toEqual([1000, 1000, 500]);
    // One listing of three pages, then one empty listing that ends the purge.
    expect(s3Mock.commandCalls(ListObjectVersionsCommand)).toHaveLength(4);
  });

  it('aborts every multipart upload over several listing pages', async () => {
    // Prepare: pages of 2 entries, 5 uploads (two of one key), and one upload of another result.
    const bucket = new VersionedBucket(2);
    bucket.attach(s3Mock);
    for (const [key, uploadId] of [
      ['staging/res-1/images-01', 'u1'],
      ['staging/res-1/images-01', 'u2'],
      ['staging/res-1/files-01', 'u3'],
      ['staging/res-1/images-02', 'u4'],
      ['staging/res-1/images-03', 'u5'],
      ['staging/res-12/images-01', 'u6'],
    ] as const)
      bucket.uploads.push({ key, uploadId });

    // Act
    const counts = await purgePrefix(s3(), BUCKET, 'staging/res-1/', 'aws');

    // Assess
    expect(counts).toEqual({ versions: 0, deleteMarkers: 0, keys: 0, uploads: 5 });
    expect(bucket.uploads).toEqual([{ key: 'staging/res-12/images-01', uploadId: 'u6' }]);
  });

  it('lists every upload of several pages in one listing (the rounds do not stand in for paging)', async () => {
    // Prepare: pages of 2 uploads.
    const bucket = new VersionedBucket(2);
    bucket.attach(s3Mock);
    for (let i = 0; i < 5; i++) bucket.uploads.push({ key: `staging/r/images-0${i}`, uploadId: `u${i}` });
    bucket.addVersions('results/r/', 5);

    // Act
    const listed = await listPrefix(s3(), BUCKET, '', 'aws');

    // Assess
    expect(listed.uploads.map((u) => u.uploadId)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
    expect(listed.versions).toHaveLength(5);
    expect(s3Mock.commandCalls(ListMultipartUploadsCommand)).toHaveLength(3);
    expect(s3Mock.commandCalls(ListMultipartUploadsCommand)[1]!.args[0].input).toMatchObject({
      KeyMarker: 'staging/r/images-01',
      UploadIdMarker: 'u1',
    });
  });

  it('trusts IsTruncated alone: a last page that still names markers ends the listing', async () => {
    // Prepare
    s3Mock.on(ListObjectVersionsCommand).resolves({
      IsTruncated: false,
      NextKeyMarker: 'results/r/a',
      NextVersionIdMarker: '1',
      Versions: [{ Key: 'results/r/a', VersionId: '1' }],
    });
    s3Mock.on(ListMultipartUploadsCommand).resolves({
      IsTruncated: false,
      NextKeyMarker: 'staging/r/a',
      NextUploadIdMarker: 'u',
      Uploads: [{ Key: 'staging/r/a', UploadId: 'u' }],
    });

    // Act
    const listed = await listPrefix(s3(), BUCKET, 'r', 'aws');

    // Assess
    expect(listed.versions).toHaveLength(1);
    expect(listed.uploads).toHaveLength(1);
    expect(s3Mock.commandCalls(ListObjectVersionsCommand)).toHaveLength(1);
    expect(s3Mock.commandCalls(ListMultipartUploadsCommand)).toHaveLength(1);
  });

  it('skips listing entries without a key or an upload id, and pages without entries', async () => {
    // Prepare
    s3Mock.on(ListObjectVersionsCommand).resolves({ Versions: [{ VersionId: 'k' }], DeleteMarkers: [{}] });
    s3Mock
      .on(ListMultipartUploadsCommand)
      .resolves({ Uploads: [{ UploadId: 'no-key' }, { Key: 'r/no-id' }] });

    // Act
    const listed = await listPrefix(s3(), BUCKET, 'r/', 'aws');

    // Assess
    expect(listed).toEqual({ versions: [], uploads: [] });
  });

  it('names each version by its VersionId (a plain delete would leave the data under a marker)', async () => {
    // Prepare
    const bucket = new VersionedBucket();
    bucket.attach(s3Mock);
    bucket.versions.push({ key: 'results/r/result.json', versionId: 'v1' });

    // Act
    await purgePrefix(s3(), BUCKET, 'results/r/', 'aws');

    // Assess
    expect(bucket.versions).toEqual([]);
    expect(s3Mock.commandCalls(DeleteObjectsCommand)[0]!.args[0].input).toEqual({
      Bucket: BUCKET,
      Delete: { Objects: [{ Key: 'results/r/result.json', VersionId: 'v1' }], Quiet: true },
    });
  });

  it('stops after the round limit when a writer keeps adding versions, and says so', async () => {
    // Prepare: every deletion is followed by a new version (a fetch that lost the race, still writing).
    const bucket = new VersionedBucket();
    bucket.attach(s3Mock);
    let written = 0;
    bucket.versions.push({ key: 'results/r/result.json', versionId: 'w0' });
    bucket.afterDelete = () => {
      written++;
      bucket.versions.push({ key: 'results/r/result.json', versionId: `w${written}` });
    };

    // Act / Assess
    const purge = purgePrefix(s3(), BUCKET, 'results/r/', 'aws');
    await expect(purge).rejects.toThrow(PurgeRoundsError);
    await expect(purge).rejects.toMatchObject({
      name: 'PurgeRoundsError',
      bucket: BUCKET,
      prefix: 'results/r/',
      rounds: 5,
    });
    await expect(purge).rejects.toThrow(`${BUCKET}/results/r/ still held data after 5 rounds of deletion`);
    expect(MAX_PURGE_ROUNDS).toBe(5);
    expect(s3Mock.commandCalls(ListObjectVersionsCommand)).toHaveLength(5);
    expect(written).toBe(5);
  });

  it('finishes in the last allowed round when the writer stops in time', async () => {
    // Prepare: the writer adds a version after each of the first four deletions only.
    const bucket = new VersionedBucket();
    bucket.attach(s3Mock);
    let written = 0;
    bucket.versions.push({ key: 'results/r/result.json', versionId: 'w0' });
    bucket.afterDelete = () => {
      if (written < 3) bucket.versions.push({ key: 'results/r/result.json', versionId: `w${++written}` });
    };

    // Act
    const counts = await purgePrefix(s3(), BUCKET, 'results/r/', 'aws');

    // Assess: four rounds deleted one version each, the fifth listing found nothing.
    expect(counts).toEqual({ versions: 4, deleteMarkers: 0, keys: 1, uploads: 0 });
    expect(s3Mock.commandCalls(ListObjectVersionsCommand)).toHaveLength(5);
  });

  it('fails naming each refusal code once, and never counts a refused batch as erased', async () => {
    // Prepare
    s3Mock.on(ListMultipartUploadsCommand).resolves({});
    s3Mock.on(ListObjectVersionsCommand).resolves({
      Versions: [
        { Key: 'results/r/a', VersionId: '1' },
        { Key: 'results/r/b', VersionId: '2' },
      ],
    });
    s3Mock.on(DeleteObjectsCommand).resolves({
      Errors: [
        { Key: 'results/r/a', Code: 'AccessDenied' },
        { Key: 'results/r/b', Code: 'AccessDenied' },
        { Key: 'results/r/c' },
      ],
    });

    // Act
    const error = await purgePrefix(s3(), BUCKET, 'results/r/', 'aws').catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ObjectDeletionError);
    expect((error as ObjectDeletionError).message).toBe(
      `S3 refused to delete 3 version(s) in ${BUCKET}: AccessDenied, unknown`,
    );
    expect((error as ObjectDeletionError).codes).toEqual(['AccessDenied', 'AccessDenied', 'unknown']);
    expect((error as ObjectDeletionError).name).toBe('ObjectDeletionError');
  });

  it('sends nothing for empty contents', async () => {
    // Act
    await deleteContents(s3(), BUCKET, { versions: [], uploads: [] });

    // Assess
    expect(s3Mock.calls()).toHaveLength(0);
  });
});

describe('purgePrefix on the local emulator (one version per key, no version listing)', () => {
  beforeEach(() => s3Mock.reset());

  it('deletes every key over several pages without VersionIds, and keeps the neighbour', async () => {
    // Prepare: pages of 2 keys.
    const bucket = new VersionedBucket(2, false);
    bucket.attach(s3Mock);
    for (const name of ['a', 'b', 'c', 'd', 'e'])
      bucket.versions.push({ key: `results/r/${name}`, versionId: 'null' });
    bucket.versions.push({ key: 'results/r2/a', versionId: 'null' });

    // Act
    const counts = await purgePrefix(s3(), BUCKET, 'results/r/', 'local');

    // Assess
    expect(counts).toEqual({ versions: 5, deleteMarkers: 0, keys: 5, uploads: 0 });
    expect(bucket.keys()).toEqual(['results/r2/a']);
    expect(s3Mock.commandCalls(ListObjectVersionsCommand)).toHaveLength(0);
    const sent = s3Mock.commandCalls(DeleteObjectsCommand).flatMap((c) => c.args[0].input.Delete!.Objects!);
    expect(sent.every((o) => !('VersionId' in o))).toBe(true);
  });

  it('lists nothing from a page without contents', async () => {
    // Prepare
    s3Mock.on(ListObjectsV2Command).resolves({});

    // Act / Assess
    expect(await listPrefix(s3(), BUCKET, 'p/', 'local')).toEqual({ versions: [], uploads: [] });
  });

  it('lists with last-modified times and applies `accept`', async () => {
    // Prepare
    const bucket = new VersionedBucket(1, false);
    bucket.attach(s3Mock);
    bucket.versions.push({ key: 'p/a', versionId: 'null' }, { key: 'p/b', versionId: 'null' });

    // Act
    const listed = await listPrefix(s3(), BUCKET, 'p/', 'local', (key) => key !== 'p/a');

    // Assess
    expect(listed).toEqual({
      versions: [{ key: 'p/b', deleteMarker: false, lastModified: new Date(0) }],
      uploads: [],
    });
  });
});
