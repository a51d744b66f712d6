/**
 * The S3 side of blob writes (`BlobTarget` of shared/stream/blob-sink.ts): one PutObject for a small
 * blob, a `@aws-sdk/lib-storage` multipart `Upload` fed while decoding for a large one, and one server-side
 * CopyObject (metadata replaced, so `sha256` is on the final object), and the DeleteObjects of the
 * staging keys once the whole result is written.
 * No request names a ServerSideEncryption: the bucket's default (our customer-managed KMS key) applies.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { SniffedType } from '../image';
import type { BlobTarget, LargeUpload } from '../stream/blob-sink';

/** Part size of multipart uploads (S3's minimum). */
export const PART_SIZE = 5 * 1024 * 1024;
/** Parts of one upload in flight at once. */
const QUEUE_SIZE = 2;

/** `BlobTarget` over one bucket. */
export class S3BlobTarget implements BlobTarget {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async putSmall(key: string, body: Buffer, type: SniffedType, sha256: string, signal: AbortSignal) {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: key,
      Body: body,
      ContentType: type.contentType,
      Metadata: { sha256 },
      // The SHA-256 computed while decoding: S3 refuses the object unless the bytes it received match,
      // and keeps the checksum with it (GetObjectAttributes). The SDK then computes no CRC32 of its own.
      ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
    });
    // SigV4's payload hash is the same SHA-256: given as `x-amz-content-sha256`, the SDK does not hash the
    // blob a second time to sign it, and S3 checks the body against it either way.
    command.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers?: Record<string, string> };
        if (request.headers) request.headers['x-amz-content-sha256'] = sha256;
        return next(args);
      },
      { step: 'build', name: 'idvSignedPayload' },
    );
    await this.s3.send(command, { abortSignal: signal });
  }

  startLarge(stagingKey: string, type: SniffedType, signal: AbortSignal): LargeUpload {
    const body = new PassThrough({ highWaterMark: 64 * 1024 });
    const upload = new Upload({
      client: this.s3,
      params: { Bucket: this.bucket, Key: stagingKey, Body: body, ContentType: type.contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    let failure: unknown;
    const done = upload.done().then(
      () => undefined,
      (error: unknown) => {
        failure = error;
        // Unblocks a writer waiting for 'drain' that will never come.
        body.destroy();
      },
    );
    const onAbort = () => void upload.abort().catch(() => {});
    signal.addEventListener('abort', onAbort, { once: true });
    let aborted = false;
    return {
      write: (bytes) => body.write(bytes),
      drained: async () => {
        if (failure) throw failure;
        if (!body.writableNeedDrain) return;
        await Promise.race([once(body, 'drain'), done]);
        if (failure) throw failure;
      },
      finish: async () => {
        body.end();
        await done;
        signal.removeEventListener('abort', onAbort);
        if (failure) throw failure;
      },
      abort: async () => {
        if (aborted) return;
        aborted = true;
        signal.removeEventListener('abort', onAbort);
        await upload.abort().catch(() => {});
        body.destroy();
        await done;
      },
    };
  }

  async promote(stagingKey: string, key: string, type: SniffedType, sha256: string, signal: AbortSignal) {
    await this.s3.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: key,
        CopySource: `${this.bucket}/${stagingKey.split('/').map(encodeURIComponent).join('/')}`,
        MetadataDirective: 'REPLACE',
        ContentType: type.contentType,
        Metadata: { sha256 },
      }),
      { abortSignal: signal },
    );
  }

  async discard(stagingKeys: readonly string[]) {
    for (const key of stagingKeys) {
      await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    }
  }
}
