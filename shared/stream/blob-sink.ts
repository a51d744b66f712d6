/**
 * One base64 `data` value on its way to S3: decoded, hashed and sniffed in one pass as its pieces arrive
 * (docs/pipeline.md, "Streaming fetch-and-store"). A small blob is held until its entry closes and then
 * written with one PutObject under its final key; a blob past `smallLimit` goes to a multipart upload
 * under a staging key while it is still being decoded, and is copied to its final key (with its SHA-256
 * in the metadata) once the entry's names are known.
 */
import { createHash, type Hash } from 'node:crypto';
import { type SniffedType, sniffContentType } from '../image';
import { Base64DataError, Base64StreamDecoder } from './base64-decoder';
import type { BufferPool } from './buffer-pool';
import { ResultContentError } from './errors';

/** Which list of the result a blob belongs to. */
export type BlobGroup = 'images' | 'files';

/** Reference that replaces a base64 `data` field in the stored result: where the blob went, what it is. */
export interface ObjectRef {
  readonly key: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * How the blobs of one result are named: the store's key layout, handed in so that the parser knows
 * nothing of it.
 */
export interface BlobNames {
  /** Where a large blob's multipart upload goes while its entry's names are not known yet. */
  stagingKey(group: BlobGroup, index: number): string;
  /** The final key of the `index`-th blob of `group`, from its entry's fields and its extension. */
  finalKey(group: BlobGroup, index: number, entry: Record<string, unknown>, extension: string): string;
}

/** A multipart upload in progress. */
export interface LargeUpload {
  /**
   * Room for the next `bytes` decoded bytes inside the upload's current part, so the decoder writes there
   * and `write` has nothing to copy; `undefined` when the part has less room left (the bytes then come in a
   * buffer of their own and are copied).
   */
  space(bytes: number): Buffer | undefined;
  /**
   * Queues bytes (in place from `space`, or copied: the caller may reuse `bytes` once it returns);
   * returns false when the caller should `drained()` before writing more.
   */
  write(bytes: Buffer): boolean;
  /** Resolves when more may be written; rejects if the upload failed. */
  drained(): Promise<void>;
  /** No more bytes: completes the upload. */
  finish(): Promise<void>;
  /** Aborts the upload (idempotent, never throws). */
  abort(): Promise<void>;
}

/** Where blobs go (the store's S3 side). */
export interface BlobTarget {
  putSmall(key: string, body: Buffer, type: SniffedType, sha256: string, signal: AbortSignal): Promise<void>;
  startLarge(stagingKey: string, type: SniffedType, signal: AbortSignal): LargeUpload;
  /** Copies a completed staging object to its final key (the staging object stays until `discard`). */
  promote(
    stagingKey: string,
    key: string,
    type: SniffedType,
    sha256: string,
    signal: AbortSignal,
  ): Promise<void>;
  /**
   * Deletes staging objects, once every write of the result has ended: deleting one while another
   * write of the same result is still under way lets the local S3 emulator remove a folder that write
   * is about to use (its filesystem store prunes empty folders), and on S3 it makes no difference.
   */
  discard(stagingKeys: readonly string[]): Promise<void>;
}

/** A decoded blob, ready to be named. */
export interface CompletedBlob {
  readonly type: SniffedType;
  readonly bytes: number;
  readonly sha256: string;
  /** The whole blob when it stayed small. */
  readonly body?: Buffer;
  /**
   * Set when `body` is a view of a pooled buffer: call it once the write of `body` has ended. The buffer
   * is used again only if the write succeeded (`reusable`); a request that failed or was cut off may
   * still be reading it.
   */
  readonly release?: (reusable: boolean) => void;
  /** Set when the blob went to a multipart upload under this staging key. */
  readonly stagingKey?: string;
  readonly upload?: LargeUpload;
}

/** Blobs smaller than this are copied out of their pooled buffer rather than handed over as a view. */
const COPY_BELOW = 64 * 1024;

/** Bytes enough for every magic number `sniffContentType` reads. */
const SNIFF_BYTES = 16;

/** Decodes, hashes and sniffs one value; see the file comment. */
export class BlobSink {
  readonly #decoder: Base64StreamDecoder;
  readonly #hash: Hash = createHash('sha256');
  /** Pieces held while the blob is small, unless they are all in `#arena`. */
  readonly #held: Buffer[] = [];
  #heldBytes = 0;
  /** Pooled buffer the blob is decoded into while it fits; its first `#heldBytes` bytes are the blob. */
  #arena: Buffer | undefined;
  /** The pooled buffer `end()` handed over as the body, until it is released. */
  #lent: Buffer | undefined;
  #bytes = 0;
  #head = Buffer.alloc(0);
  #type: SniffedType | undefined;
  #upload: LargeUpload | undefined;
  #needsDrain = false;

  constructor(
    readonly group: BlobGroup,
    readonly index: number,
    private readonly options: {
      readonly target: BlobTarget;
      readonly stagingKey: string;
      readonly smallLimit: number;
      readonly signal: AbortSignal;
      /**
       * Buffers to decode a small blob into, of `smallLimit` bytes or more: the blob is then handed over as
       * a view of one, with no copy to join its pieces. Without it, pieces are joined at the end.
       */
      readonly pool?: BufferPool;
      /** Called when the blob outgrows `smallLimit` and its multipart upload to `stagingKey` starts. */
      readonly onLarge?: () => void;
    },
  ) {
    this.#decoder = new Base64StreamDecoder(
      (bytes) => this.#take(bytes),
      (bytes) => this.#space(bytes),
    );
  }

  /** Decoded bytes so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A piece of the value as the JSON tokenizer hands it over. */
  push(piece: Uint8Array): void {
    try {
      this.#decoder.push(piece);
    } catch (error) {
      throw this.#dataError(error);
    }
  }

  /** Resolves when the multipart upload (if any) can take more. */
  async drained(): Promise<void> {
    if (this.#upload && this.#needsDrain) {
      this.#needsDrain = false;
      await this.#upload.drained();
    }
  }

  /** The value ended. `undefined` for an empty value (nothing to store). */
  async end(): Promise<CompletedBlob | undefined> {
    try {
      this.#decoder.end();
    } catch (error) {
      throw this.#dataError(error);
    }
    if (this.#bytes === 0 && this.#decoder.empty) {
      this.#giveArenaBack();
      return undefined;
    }
    const type = this.#sniff();
    const sha256 = this.#hash.digest('hex');
    if (this.#upload) {
      await this.#upload.finish();
      return { type, bytes: this.#bytes, sha256, stagingKey: this.options.stagingKey, upload: this.#upload };
    }
    const arena = this.#arena;
    // A tiny blob is copied out and the buffer goes back at once: many of them closing in one chunk of
    // the body would otherwise each hold a buffer.
    if (arena && this.#held.length === 0 && this.#heldBytes >= COPY_BELOW) {
      this.#lent = arena;
      this.#arena = undefined;
      return {
        type,
        bytes: this.#bytes,
        sha256,
        body: arena.subarray(0, this.#heldBytes),
        release: (reusable) => this.#release(reusable),
      };
    }
    const body = this.#joinHeld();
    this.#giveArenaBack();
    return { type, bytes: this.#bytes, sha256, body };
  }

  /**
   * Aborts a multipart upload in progress (never throws). The buffer still being decoded into goes back to
   * the pool (no write reads it); one lent as a body and not yet released is only counted out, since a
   * write of it may be under way.
   */
  async abort(): Promise<void> {
    this.#held.length = 0;
    this.#giveArenaBack();
    this.#release(false);
    await this.#upload?.abort();
  }

  /** Ends the loan of the buffer `end()` handed over as the body, once (see `CompletedBlob.release`). */
  #release(reusable: boolean): void {
    const lent = this.#lent;
    if (!lent) return;
    this.#lent = undefined;
    if (reusable) this.options.pool!.give(lent);
    else this.options.pool!.drop();
  }

  /** Where the decoder writes next: the rest of the pooled buffer while the blob fits in it. */
  #space(bytes: number): Buffer {
    if (this.#upload) return this.#upload.space(bytes) ?? Buffer.allocUnsafe(bytes);
    const pool = this.options.pool;
    if (pool && !this.#upload && this.#held.length === 0) {
      this.#arena ??= pool.take();
      if (this.#arena && this.#arena.length - this.#heldBytes >= bytes) {
        return this.#arena.subarray(this.#heldBytes);
      }
    }
    return Buffer.allocUnsafe(bytes);
  }

  /** Gives the arena back to the pool once nothing refers to its bytes any more. */
  #giveArenaBack(): void {
    if (this.#arena) this.options.pool!.give(this.#arena);
    this.#arena = undefined;
  }

  /** The held bytes as one buffer (a copy, or a view of the arena when they are all there). */
  #joinHeld(): Buffer {
    let body: Buffer;
    if (this.#held.length === 0) body = Buffer.from(this.#arena?.subarray(0, this.#heldBytes) ?? []);
    else body = Buffer.concat(this.#held, this.#heldBytes);
    this.#held.length = 0;
    return body;
  }

  #take(bytes: Buffer): void {
    this.#hash.update(bytes);
    this.#bytes += bytes.length;
    if (this.#head.length < SNIFF_BYTES) {
      this.#head = Buffer.concat([this.#head, bytes.subarray(0, SNIFF_BYTES - this.#head.length)]);
      // An image is known to be one from its first bytes: fail before uploading anything more.
      if (this.#head.length >= SNIFF_BYTES) this.#sniff();
    }
    if (this.#upload) {
      if (!this.#upload.write(bytes)) this.#needsDrain = true;
      return;
    }
    const arena = this.#arena;
    if (arena && this.#held.length === 0) {
      if (bytes.buffer === arena.buffer && bytes.byteOffset === arena.byteOffset + this.#heldBytes) {
        // Decoded in place, right after the bytes before it.
        this.#heldBytes += bytes.length;
      } else {
        // The piece did not fit: from now on the pieces are joined at the end, the arena's bytes first.
        this.#held.push(arena.subarray(0, this.#heldBytes), bytes);
        this.#heldBytes += bytes.length;
      }
    } else {
      this.#held.push(bytes);
      this.#heldBytes += bytes.length;
    }
    if (this.#heldBytes > this.options.smallLimit) {
      this.#upload = this.options.target.startLarge(
        this.options.stagingKey,
        this.#sniff(),
        this.options.signal,
      );
      this.options.onLarge?.();
      // The upload is done with what `write` is given when it returns (it copies into its part), so the
      // arena goes back at once: the bytes decoded into it are not copied out into a buffer of their own.
      const arena = this.#arena;
      const held = arena && this.#held.length === 0 ? arena.subarray(0, this.#heldBytes) : this.#joinHeld();
      this.#held.length = 0;
      this.#heldBytes = 0;
      if (!this.#upload.write(held)) this.#needsDrain = true;
      this.#giveArenaBack();
    }
  }

  #sniff(): SniffedType {
    if (this.#type) return this.#type;
    const type = sniffContentType(this.#head);
    if (this.group === 'images' && !type.contentType.startsWith('image/')) {
      throw new ResultContentError(
        'DATA_NOT_IMAGE',
        `images[${this.index}].data decodes to bytes that are not an image (${type.contentType})`,
      );
    }
    this.#type = type;
    return type;
  }

  #dataError(error: unknown): unknown {
    if (!(error instanceof Base64DataError)) return error;
    return new ResultContentError(
      'DATA_NOT_BASE64',
      `${this.group}[${this.index}].data is not base64: ${error.message}`,
    );
  }
}
