/**
 * Buffers of one size, used again once given back: the space small blobs are decoded into
 * (shared/stream/blob-sink.ts). A blob decoded in place is handed to its PutObject as a view of such a
 * buffer — no copy of it is made to join its pieces — and the buffer comes back here when the write has
 * succeeded, so the next blobs decode into memory that is already mapped instead of fresh pages.
 */
export class BufferPool {
  readonly #free: Buffer[] = [];
  /** Buffers taken and neither given back nor dropped. */
  #out = 0;

  /**
   * @param size Bytes of each buffer.
   * @param limit Most buffers in existence at once, taken or free: what the pool can cost in memory.
   */
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {}

  /**
   * A buffer of `size` bytes whose content is undefined (never zero-filled), or `undefined` when
   * `limit` buffers are out: the caller then does without.
   */
  take(): Buffer | undefined {
    let buffer = this.#free.pop();
    if (!buffer && this.#out < this.limit) buffer = Buffer.allocUnsafeSlow(this.size);
    if (buffer) this.#out++;
    return buffer;
  }

  /** Gives back a taken buffer that nothing reads or writes any more. */
  give(buffer: Buffer): void {
    this.#out--;
    this.#free.push(buffer);
  }

  /** Counts out a taken buffer that may still be read (a write cut off): it is left to the GC. */
  drop(): void {
    this.#out--;
  }

  /** Buffers waiting to be taken (for tests). */
  get available(): number {
    return this.#free.length;
  }

  /** Buffers taken and not yet back (for tests). */
  get taken(): number {
    return this.#out;
  }
}
