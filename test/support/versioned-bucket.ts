/**
 * An in-memory versioned S3 bucket behind aws-sdk-client-mock, for the erasure's unit tests: it honours
 * `Prefix`, pages its listings the way S3 does (key order, `KeyMarker`/`VersionIdMarker`,
 * `UploadIdMarker`, `ContinuationToken`, at most `pageSize` entries a page) and refuses a DeleteObjects of
 * more than 1,000 keys as S3 does, so a purge that forgets a page, a marker or the batch limit leaves data
 * behind or fails here. It also stores what the result store writes (PutObject, multipart uploads with
 * their parts, CopyObject), each write a new version with its bytes, so a scan can look at every byte kept.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { AwsClientStub } from 'aws-sdk-client-mock';

/** One stored version or delete marker. */
export interface FakeVersion {
  key: string;
  versionId: string;
  deleteMarker?: boolean;
  /** The bytes, for versions the store wrote. */
  body?: Buffer;
}

/** The bytes of a request body as the SDK takes it (a buffer, a string or a stream). */
async function bytesOf(body: unknown): Promise<Buffer> {
  if (body === undefined) return Buffer.alloc(0);
  if (typeof body === 'string' || body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** A bucket's contents, changed in place by the commands. */
export class VersionedBucket {
  versions: FakeVersion[] = [];
  uploads: { key: string; uploadId: string; parts?: Map<number, Buffer> }[] = [];
  #written = 0;
  /** Keys per DeleteObjects request (S3's limit). */
  readonly deleteLimit = 1000;
  /** Sizes of the DeleteObjects requests received. */
  readonly deleteBatches: number[] = [];
  /** Called after each DeleteObjects (a writer racing the erasure adds versions here). */
  afterDelete: () => void = () => undefined;

  /**
   * @param pageSize entries per listing page (S3: 1,000)
   * @param versioned a delete without VersionId adds a delete marker (AWS) or removes the key (the emulator)
   */
  constructor(
    readonly pageSize = 1000,
    readonly versioned = true,
  ) {}

  /** `count` versions of keys `prefix{n}` (two versions per key, n padded so key order is creation order). */
  addVersions(prefix: string, count: number): void {
    for (let i = 0; i < count; i++) {
      const n = String(Math.floor(i / 2)).padStart(6, '0');
      this.versions.push({ key: `${prefix}${n}`, versionId: `v${i}` });
    }
  }

  keys(): string[] {
    return [...new Set(this.versions.map((v) => v.key))].sort();
  }

  /** Routes the S3 commands of `mock` to this bucket. */
  attach(stub: AwsClientStub<S3Client>): void {
    stub.on(ListObjectVersionsCommand).callsFake((input) => this.#listVersions(input));
    stub.on(ListObjectsV2Command).callsFake((input) => this.#listObjects(input));
    stub.on(ListMultipartUploadsCommand).callsFake((input) => this.#listUploads(input));
    stub.on(DeleteObjectsCommand).callsFake((input) => this.#delete(input));
    stub.on(AbortMultipartUploadCommand).callsFake((input) => {
      this.uploads = this.uploads.filter((u) => !(u.key === input.Key && u.uploadId === input.UploadId));
      return {};
    });
    stub.on(PutObjectCommand).callsFake(async (input) => {
      this.#write(input.Key!, await bytesOf(input.Body));
      return { ETag: '"e"' };
    });
    stub.on(CreateMultipartUploadCommand).callsFake((input) => {
      const uploadId = `up-${++this.#written}`;
      this.uploads.push({ key: input.Key!, uploadId, parts: new Map() });
      return { UploadId: uploadId };
    });
    stub.on(UploadPartCommand).callsFake(async (input) => {
      const upload = this.uploads.find((u) => u.uploadId === input.UploadId);
      upload?.parts?.set(input.PartNumber!, await bytesOf(input.Body));
      return { ETag: `"p${input.PartNumber}"` };
    });
    stub.on(CompleteMultipartUploadCommand).callsFake((input) => {
      const upload = this.uploads.find((u) => u.uploadId === input.UploadId)!;
      const parts = [...(upload.parts ?? new Map()).entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
      this.uploads = this.uploads.filter((u) => u !== upload);
      this.#write(upload.key, Buffer.concat(parts));
      return {};
    });
    stub.on(CopyObjectCommand).callsFake((input) => {
      const source = decodeURIComponent(input.CopySource!.slice(input.CopySource!.indexOf('/') + 1));
      const latest = this.versions.filter((v) => v.key === source && !v.deleteMarker).at(-1);
      if (!latest) throw Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey' });
      this.#write(input.Key!, latest.body ?? Buffer.alloc(0));
      return {};
    });
  }

  #write(key: string, body: Buffer): void {
    this.versions.push({ key, versionId: `w${String(++this.#written).padStart(6, '0')}`, body });
  }

  #sorted(prefix: string): FakeVersion[] {
    return this.versions
      .filter((v) => v.key.startsWith(prefix))
      .sort((a, b) => (a.key === b.key ? a.versionId.localeCompare(b.versionId) : a.key < b.key ? -1 : 1));
  }

  #listVersions(input: { Prefix?: string; KeyMarker?: string; VersionIdMarker?: string }) {
    let all = this.#sorted(input.Prefix ?? '');
    if (input.KeyMarker !== undefined) {
      const at = all.findIndex((v) => v.key === input.KeyMarker && v.versionId === input.VersionIdMarker);
      all = all.slice(at + 1);
    }
    const page = all.slice(0, this.pageSize);
    const last = page.at(-1);
    const truncated = all.length > page.length;
    return {
      Versions: page
        .filter((v) => !v.deleteMarker)
        .map((v) => ({ Key: v.key, VersionId: v.versionId, LastModified: new Date(0) })),
      DeleteMarkers: page
        .filter((v) => v.deleteMarker)
        .map((v) => ({ Key: v.key, VersionId: v.versionId, LastModified: new Date(0) })),
      IsTruncated: truncated,
      ...(truncated && { NextKeyMarker: last!.key, NextVersionIdMarker: last!.versionId }),
    };
  }

  #listObjects(input: { Prefix?: string; ContinuationToken?: string }) {
    const keys = [...new Set(this.#sorted(input.Prefix ?? '').map((v) => v.key))];
    const from = input.ContinuationToken ? Number(input.ContinuationToken) : 0;
    const page = keys.slice(from, from + this.pageSize);
    const truncated = from + page.length < keys.length;
    return {
      Contents: page.map((key) => ({ Key: key, LastModified: new Date(0) })),
      IsTruncated: truncated,
      ...(truncated && { NextContinuationToken: String(from + page.length) }),
    };
  }

  #listUploads(input: { Prefix?: string; KeyMarker?: string; UploadIdMarker?: string }) {
    let all = this.uploads
      .filter((u) => u.key.startsWith(input.Prefix ?? ''))
      .sort((a, b) => (a.key === b.key ? a.uploadId.localeCompare(b.uploadId) : a.key < b.key ? -1 : 1));
    if (input.KeyMarker !== undefined) {
      const at = all.findIndex((u) => u.key === input.KeyMarker && u.uploadId === input.UploadIdMarker);
      all = all.slice(at + 1);
    }
    const page = all.slice(0, this.pageSize);
    const truncated = all.length > page.length;
    return {
      Uploads: page.map((u) => ({ Key: u.key, UploadId: u.uploadId })),
      IsTruncated: truncated,
      ...(truncated && { NextKeyMarker: page.at(-1)!.key, NextUploadIdMarker: page.at(-1)!.uploadId }),
    };
  }

  #delete(input: { Delete?: { Objects?: { Key?: string; VersionId?: string }[] } }) {
    const objects = input.Delete?.Objects ?? [];
    this.deleteBatches.push(objects.length);
    if (objects.length > this.deleteLimit)
      throw Object.assign(new Error('MalformedXML'), { name: 'MalformedXML' });
    for (const object of objects) {
      if (object.VersionId === undefined && this.versioned) {
        // S3 keeps the data in a noncurrent version and adds a marker on top.
        this.versions.push({ key: object.Key!, versionId: `m${this.versions.length}`, deleteMarker: true });
        continue;
      }
      this.versions = this.versions.filter(
        (v) =>
          !(v.key === object.Key && (object.VersionId === undefined || v.versionId === object.VersionId)),
      );
    }
    this.afterDelete();
    return {};
  }
}
