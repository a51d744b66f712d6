/**
 * Buffers of one size, used again once given back: the space small blobs are decoded into
 * (shared/stream/blob-sink.ts). A blob decoded in place is handed to its PutObject as a view of such a
 * buffer — no copy of it is made to join its pieces — and the buffer comes back here when the write has
 * succeeded, so the next blobs decode into memory that is already mapped instead of fresh pages.
 */
export class BufferPool {
  readonly #free: Buffer[] = [];

  /**
   * @param size Bytes of each buffer.
   * @param keep Most buffers kept for reuse; a buffer given back beyond that is left to the GC.
   */
  constructor(
    readonly size: number,
    private readonly keep: number,
  ) {}

  /** A buffer of `size` bytes whose content is undefined (never zero-filled). */
  take(): Buffer {
    return this.#free.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }

  /** Gives back a buffer of this pool that nothing reads or writes any more. */
  give(buffer: Buffer): void {
    if (this.#free.length < this.keep && !this.#free.includes(buffer)) this.#free.push(buffer);
  }

  /** Buffers waiting to be taken (for tests). */
  get available(): number {
    return this.#free.length;
  }
}
