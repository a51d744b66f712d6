/**
 * The S3 side of blob writes (`BlobTarget` of shared/stream/blob-sink.ts): one PutObject for a small
 * blob, a multipart upload fed while decoding for a large one (its parts decoded in place into a few
 * pooled part buffers), and one server-side CopyObject (metadata replaced, so `sha256` is on the final
 * object), and the DeleteObjects of the staging keys once the whole result is written.
 * No request names a ServerSideEncryption: the bucket's default (our customer-managed KMS key) applies.
 */
import {
  AbortMultipartUploadCommand,
  ChecksumAlgorithm,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { PipelineError } from '../errors';
import type { SniffedType } from '../image';
import type { BlobTarget, LargeUpload } from '../stream/blob-sink';
import { BufferPool } from '../stream/buffer-pool';

/** Part size of multipart uploads (S3's minimum for every part but the last). */
export const PART_SIZE = 5 * 1024 * 1024;
/** Parts of one upload in flight at once. */
const QUEUE_SIZE = 2;
/**
 * Parts in flight at once in the whole process, whatever the number of uploads: with the part each
 * upload is filling, what multipart uploads can hold in memory.
 */
const PROCESS_PARTS_IN_FLIGHT = 2;

/**
 * Part buffers, one pool for the process: the parts of every upload are decoded into the same few
 * buffers (two in flight, the one being filled, one for the next blob's upload starting while the last
 * part of the one before is sent), so a 1 GB result makes no garbage of 5 MiB copies. A part whose
 * request failed or was cut off is left to the GC (it may still be read).
 */
const partPool = new BufferPool(PART_SIZE, PROCESS_PARTS_IN_FLIGHT + 2);

/** Keys of one DeleteObjects request (S3's most). */
const DELETE_BATCH = 1000;

/** Part requests in flight in the process. */
const processParts = new Set<Promise<void>>();

/** `BlobTarget` over one bucket: every request a command of the same S3 client. */
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
    return new PartedUpload(this.s3, this.bucket, stagingKey, type, signal);
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

  /**
   * One DeleteObjects per 1,000 staging keys (S3's limit), not one DeleteObject each: a 1 GB result of 64
   * large images made 64 requests here at its very end, and their SDK objects alone grew the heap's young
   * generation by about 15 MiB of fresh pages (measured with the size bench,
   * docs/benchmarks.md). A key S3 could not delete fails the call, as a failed DeleteObject did.
   */
  async discard(stagingKeys: readonly string[]) {
    for (let start = 0; start < stagingKeys.length; start += DELETE_BATCH) {
      const keys = stagingKeys.slice(start, start + DELETE_BATCH);
      const answer = await this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = answer.Errors?.length ?? 0;
      if (failed > 0) {
        throw new PipelineError(`DeleteObjects could not delete ${failed} of ${keys.length} staging objects`);
      }
    }
  }
}

/**
 * One multipart upload fed while decoding: bytes are decoded straight into the current part buffer
 * (`space`), a full part is sent at once, at most {@link QUEUE_SIZE} of this upload and
 * {@link PROCESS_PARTS_IN_FLIGHT} of the process in flight (`drained` waits). Checksums as
 * `@aws-sdk/lib-storage` sets them: the algorithm named at creation when the client computes request
 * checksums (its default), each part's checksum as the SDK computed it, repeated in the completion.
 */
class PartedUpload implements LargeUpload {
  readonly #created: Promise<string>;
  #part: Buffer | undefined;
  /** `#part` came from the pool (else it is the GC's once sent). */
  #pooled = false;
  #filled = 0;
  #partNumber = 0;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #parts: CompletedPart[] = [];
  #failure: unknown;
  #aborted = false;
  readonly #onAbort = () => void this.abort();

  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    type: SniffedType,
    private readonly signal: AbortSignal,
  ) {
    this.#created = (async () => {
      const calculation = await s3.config.requestChecksumCalculation();
      const created = await s3.send(
        new CreateMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          ContentType: type.contentType,
          ...(calculation === 'WHEN_SUPPORTED' && { ChecksumAlgorithm: ChecksumAlgorithm.CRC32 }),
        }),
        { abortSignal: signal },
      );
      if (!created.UploadId) throw new PipelineError('CreateMultipartUpload answered without an UploadId');
      return created.UploadId;
    })();
    // Failures surface in `drained`/`finish`; this keeps an early one from being an unhandled rejection.
    this.#created.catch((error: unknown) => {
      this.#failure ??= error;
    });
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  space(bytes: number): Buffer | undefined {
    const part = this.#currentPart();
    return PART_SIZE - this.#filled >= bytes ? part.subarray(this.#filled) : undefined;
  }

  /** The part being filled; a fresh buffer (the GC's) when every pooled one is in use. */
  #currentPart(): Buffer {
    if (this.#part) return this.#part;
    const pooled = partPool.take();
    this.#pooled = pooled !== undefined;
    this.#part = pooled ?? Buffer.allocUnsafeSlow(PART_SIZE);
    return this.#part;
  }

  write(bytes: Buffer): boolean {
    let offset = 0;
    while (offset < bytes.length) {
      const part = this.#currentPart();
      const n = Math.min(PART_SIZE - this.#filled, bytes.length - offset);
      const inPlace =
        offset === 0 && bytes.buffer === part.buffer && bytes.byteOffset === part.byteOffset + this.#filled;
      if (!inPlace) bytes.copy(part, this.#filled, offset, offset + n);
      this.#filled += n;
      offset += n;
      if (this.#filled === PART_SIZE) this.#send();
    }
    return !this.#mustWait();
  }

  async drained(): Promise<void> {
    while (this.#mustWait() && !this.#failure) await Promise.race([...this.#inFlight, ...processParts]);
    if (this.#failure) throw this.#failure;
  }

  async finish(): Promise<void> {
    if (this.#filled > 0 || this.#partNumber === 0) this.#send();
    while (this.#inFlight.size > 0) await Promise.race(this.#inFlight);
    if (this.#failure) throw this.#failure;
    const uploadId = await this.#created;
    const parts = [...this.#parts].sort((a, b) => a.PartNumber! - b.PartNumber!);
    await this.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: this.key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
      { abortSignal: this.signal },
    );
    this.signal.removeEventListener('abort', this.#onAbort);
  }

  async abort(): Promise<void> {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#failure ??= new Error('upload aborted');
    this.signal.removeEventListener('abort', this.#onAbort);
    await Promise.allSettled([...this.#inFlight]);
    if (this.#part && this.#pooled) partPool.give(this.#part);
    this.#part = undefined;
    const uploadId = await this.#created.catch(() => undefined);
    if (uploadId) {
      await this.s3
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId }))
        .catch(() => {});
    }
  }

  /** This upload or the process has as many parts in flight as it may. */
  #mustWait(): boolean {
    return this.#inFlight.size >= QUEUE_SIZE || processParts.size >= PROCESS_PARTS_IN_FLIGHT;
  }

  /** Sends the current part (the buffer goes back to the pool once its request succeeded). */
  #send(): void {
    const buffer = this.#part ?? Buffer.alloc(0);
    const pooled = this.#part !== undefined && this.#pooled;
    const body = buffer.subarray(0, this.#filled);
    const partNumber = ++this.#partNumber;
    this.#part = undefined;
    this.#filled = 0;
    const task = (async () => {
      let sent = false;
      try {
        const uploadId = await this.#created;
        const answer = await this.s3.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: this.key,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: body,
          }),
          { abortSignal: this.signal },
        );
        if (!answer.ETag) throw new PipelineError(`UploadPart ${partNumber} answered without an ETag`);
        sent = true;
        this.#parts.push({
          PartNumber: partNumber,
          ETag: answer.ETag,
          ...(answer.ChecksumCRC32 && { ChecksumCRC32: answer.ChecksumCRC32 }),
          ...(answer.ChecksumCRC32C && { ChecksumCRC32C: answer.ChecksumCRC32C }),
          ...(answer.ChecksumSHA1 && { ChecksumSHA1: answer.ChecksumSHA1 }),
          ...(answer.ChecksumSHA256 && { ChecksumSHA256: answer.ChecksumSHA256 }),
        });
      } catch (error) {
        this.#failure ??= error;
      } finally {
        if (pooled && sent) partPool.give(buffer);
        else if (pooled) partPool.drop();
      }
    })();
    const done = task.finally(() => {
      this.#inFlight.delete(done);
      processParts.delete(done);
    });
    this.#inFlight.add(done);
    processParts.add(done);
  }
}
