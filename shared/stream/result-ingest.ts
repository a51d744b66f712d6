/**
 * Reads a result body as it arrives and stores it (docs/pipeline.md, "Streaming fetch-and-store"): the
 * JSON is tokenized chunk by chunk; every `data` of `images[]` and `files[]` goes through a `BlobSink`
 * to S3; everything else is assembled into the stripped document, where each `data` becomes its
 * `ObjectRef`. Uploads run while the body is still being read, at most `concurrency` at once and, for
 * blobs held in memory until their PutObject, at most `bytesInFlight` of them; on any failure every
 * upload in progress is aborted and nothing is reported stored.
 *
 * The document beside the blobs is small in every real result (kilobytes), yet it is built whole: so
 * every part of it has a ceiling ({@link DOCUMENT_LIMITS}), checked as the tokens arrive, and a result
 * past one is refused with a named reason before it costs memory. A key repeated in any object is refused
 * too (`DUPLICATE_KEY`): which of two values a reader takes is not defined, and the blobs, result.json and
 * the item must never describe different ones.
 */

import { isJsonObject } from '../json-object';
import {
  type BlobGroup,
  type BlobNames,
  BlobSink,
  type BlobTarget,
  type CompletedBlob,
  type ObjectRef,
} from './blob-sink';
import { BufferPool } from './buffer-pool';
import { ResultContentError, type ResultReason } from './errors';
import { type JsonHandler, JsonSyntaxError, JsonTokenizer } from './json-tokenizer';

/** Tunables of {@link ingestResult}. */
export interface IngestOptions {
  /** Blobs up to this many decoded bytes are written with one PutObject. @default 5 MiB */
  readonly smallLimit?: number;
  /**
   * Objects uploaded at once. Many small images are many round trips: 16 at once keep them overlapping
   * (the 1,000-image bench result took 11–14 s on the local emulator with 4, 7–9 s with 16; on S3, whose
   * PUTs take tens of milliseconds each, the difference is larger), while `bytesInFlight` still holds
   * large blobs to two or three at once. @default 16
   */
  readonly concurrency?: number;
  /**
   * Decoded bytes of the objects being written at once (a small blob is held whole until its PutObject
   * ends; a multipart upload counts as one small blob): bounds memory whatever the image sizes. One
   * object is always let through, however large. @default 12 MiB
   */
  readonly bytesInFlight?: number;
  /**
   * Buffers to decode small blobs into, of at least `smallLimit` bytes. @default the process's pool for
   * `smallLimit` (see {@link poolFor})
   */
  readonly pool?: BufferPool;
}

/**
 * Ceilings of the stripped document (everything but the `data` of `images[]`/`files[]`), documented in
 * docs/pipeline.md ("Bad input"). The spec's largest real result (every section, its reason codes and
 * metadata) has a few hundred values, under 100 keys, 8 levels and a few KiB of text: each ceiling is
 * hundreds of times that, and together they keep the document, its copy in result.json and the item
 * built from it far inside the function's memory.
 */
export const DOCUMENT_LIMITS = {
  /** UTF-8 bytes of one string that is not a blob's `data`: `STRING_TOO_LONG`. */
  stringBytes: 64 * 1024,
  /** Values in the document (objects, arrays, strings, numbers, booleans, nulls): `TOO_MANY_VALUES`. */
  values: 200_000,
  /** Keys in the document, all objects together: `TOO_MANY_KEYS`. */
  keys: 100_000,
  /** Objects and arrays nested in one another: `TOO_DEEP`. */
  depth: 64,
  /** UTF-8 bytes of every key and non-`data` string together: `DOCUMENT_TOO_LARGE`. */
  textBytes: 4 * 1024 * 1024,
  /**
   * Blobs (non-empty `data` of `images[]` and `files[]` together): `TOO_MANY_OBJECTS`. Each costs a
   * write and its reference stays in the document until the end; 20,000 keep a 1 GB body of tiny
   * blobs inside the memory budget (docs/pipeline.md).
   */
  objects: 20_000,
} as const;

/** What {@link ingestResult} stored. */
export interface IngestedResult {
  /** The result with every blob `data` replaced by its reference. */
  readonly document: Record<string, unknown>;
  /** The references, images first, each list in index order. */
  readonly objects: ObjectRef[];
  /** Bytes of the body read. */
  readonly bodyBytes: number;
}

/** Objects written at once unless `IngestOptions.concurrency` says otherwise. */
const DEFAULT_CONCURRENCY = 16;
/**
 * Writes that may hold a pooled decode buffer at once: the pool does not grow with `concurrency` (16
 * buffers of 5.25 MiB could all be resident); a blob beyond it is joined from its pieces.
 */
const POOLED_WRITES = 4;

/**
 * Room beyond `smallLimit` in each pooled decode buffer: a blob of up to `smallLimit` bytes is decoded in
 * place as long as its pieces are below about 340 KiB (the body arrives in chunks of 64 KiB at most).
 */
const POOL_ROOM = 256 * 1024;

const pools = new Map<string, BufferPool>();

/**
 * The decode buffers of small blobs, one pool per size and limit for the whole process: a warm function
 * decodes every result into the same few buffers. Making them anew for each result cost more than it
 * saved (V8 answers tens of MB of new external memory with full GCs). `limit` is one buffer per write
 * running (at most {@link POOLED_WRITES}), the blob being read and one waiting: 6 with the defaults, 31.5 MiB of address space, resident
 * as far as the largest blobs reached. Results processed at once share it; when it runs out, blobs are
 * joined from their pieces instead.
 */
function poolFor(size: number, limit: number): BufferPool {
  const key = `${size}/${limit}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new BufferPool(size, limit);
    pools.set(key, pool);
  }
  return pool;
}

type Frame =
  | {
      kind: 'object';
      value: Record<string, unknown>;
      key: string | undefined;
      /** Keys seen in this object, to refuse a second one (bounded by `DOCUMENT_LIMITS.keys`). */
      keys: Set<string>;
      entry?: Entry;
    }
  | { kind: 'array'; value: unknown[]; group?: BlobGroup };

/** An element of `images`/`files` and its blob. */
interface Entry {
  readonly group: BlobGroup;
  readonly index: number;
  sink?: BlobSink;
  completed?: Promise<CompletedBlob | undefined>;
}

/**
 * Work on the complete document (every blob named and its reference in place) that may run while the last
 * blobs are still being written: the store writes `result.json` then, not after the last image's PUT.
 * `ingestResult` settles only once it has ended too, and fails with it.
 */
export type WhenComplete = (document: Record<string, unknown>, objects: ObjectRef[]) => Promise<void>;

/**
 * Stores one result body; see the file comment. `target` writes the blobs under the keys `names` gives
 * (the store's layout); `whenComplete` runs once the document is complete, alongside the last writes.
 */
export async function ingestResult(
  body: AsyncIterable<Uint8Array>,
  target: BlobTarget,
  names: BlobNames,
  options: IngestOptions = {},
  whenComplete?: WhenComplete,
): Promise<IngestedResult> {
  const controller = new AbortController();
  const state = new Assembler(target, names, {
    smallLimit: options.smallLimit ?? 5 * 1024 * 1024,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    bytesInFlight: options.bytesInFlight ?? 12 * 1024 * 1024,
    signal: controller.signal,
    ...(options.pool && { pool: options.pool }),
  });
  const tokenizer = new JsonTokenizer(state);
  const iterator = body[Symbol.asyncIterator]();
  try {
    let bodyBytes = 0;
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      bodyBytes += next.value.length;
      try {
        tokenizer.write(next.value);
      } catch (error) {
        if (!(error instanceof JsonSyntaxError)) throw error;
        // The size tells an error page from a cut-off result; reading on costs no memory.
        for (let rest = await iterator.next(); !rest.done; rest = await iterator.next()) {
          bodyBytes += rest.value.length;
        }
        throw notJson(error, bodyBytes);
      }
      await state.settle();
    }
    try {
      tokenizer.end();
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      if (bodyBytes === 0) throw notJson(error, 0);
      throw new ResultContentError(
        'BODY_TRUNCATED',
        `the result body ended after ${bodyBytes} bytes, before its JSON was complete`,
      );
    }
    const objects = await state.finish(whenComplete);
    await target.discard(state.staged);
    return { document: state.root!, objects, bodyBytes };
  } catch (error) {
    controller.abort();
    // A refused body is not read on: its connection is released now, not when the rest has arrived.
    await iterator.return?.().catch(() => {});
    await state.abortAll();
    // Completed staging objects go now (an aborted upload left none); the bucket's staging lifecycle
    // rule removes whatever a failed delete leaves.
    await target.discard(state.staged).catch(() => {});
    throw error;
  }
}

function notJson(error: JsonSyntaxError, bytes: number): ResultContentError {
  return new ResultContentError(
    'BODY_NOT_JSON',
    `the service answered the result request with a body that is not JSON (${bytes} bytes): ${error.message}`,
  );
}

function refuse(reason: ResultReason, message: string): ResultContentError {
  return new ResultContentError(reason, message);
}

/** Builds the document from tokens and runs the blob uploads. */
class Assembler implements JsonHandler {
  root: Record<string, unknown> | undefined;
  readonly #stack: Frame[] = [];
  #strings: Buffer[] = [];
  #stringBytes = 0;
  /** Counts against {@link DOCUMENT_LIMITS}. */
  #values = 0;
  #keys = 0;
  #textBytes = 0;
  #objects = 0;
  #sink: BlobSink | undefined;
  /** Entries closed whose blob still has to be named and written. */
  readonly #closed: { entry: Entry; value: Record<string, unknown> }[] = [];
  readonly #running = new Set<Promise<void>>();
  /** Bytes counted against `bytesInFlight` by the writes running. */
  #runningBytes = 0;
  readonly #sinks = new Set<BlobSink>();
  readonly #refs: { group: BlobGroup; index: number; ref: ObjectRef }[] = [];
  /** Per write started: settles once its blob's reference is in the document (or never will be). */
  readonly #named: Promise<void>[] = [];
  /** Decode buffers of small blobs (see {@link poolFor}). */
  readonly #pool: BufferPool;
  /** Staging keys of the multipart uploads started, deleted once every write has ended. */
  readonly staged: string[] = [];
  #failure: unknown;

  constructor(
    readonly target: BlobTarget,
    readonly names: BlobNames,
    readonly options: {
      smallLimit: number;
      concurrency: number;
      bytesInFlight: number;
      signal: AbortSignal;
      pool?: BufferPool;
    },
  ) {
    this.#pool =
      options.pool ??
      poolFor(options.smallLimit + POOL_ROOM, Math.min(options.concurrency, POOLED_WRITES) + 2);
  }

  // --- JsonHandler -------------------------------------------------------------------------------

  startObject(): void {
    this.#checkNotData('an object');
    this.#checkDepth();
    const value: Record<string, unknown> = {};
    const parent = this.#stack[this.#stack.length - 1];
    let entry: Entry | undefined;
    if (parent?.kind === 'array' && parent.group) {
      entry = { group: parent.group, index: parent.value.length };
    }
    this.#attach(value);
    this.#stack.push({ kind: 'object', value, key: undefined, keys: new Set(), ...(entry && { entry }) });
  }

  endObject(): void {
    const frame = this.#stack.pop() as Extract<Frame, { kind: 'object' }>;
    if (frame.entry?.completed) this.#closed.push({ entry: frame.entry, value: frame.value });
  }

  startArray(): void {
    this.#checkNotData('an array');
    this.#checkDepth();
    const value: unknown[] = [];
    const parent = this.#stack[this.#stack.length - 1];
    const group =
      this.#stack.length === 1 &&
      parent?.kind === 'object' &&
      (parent.key === 'images' || parent.key === 'files')
        ? parent.key
        : undefined;
    this.#attach(value);
    this.#stack.push({ kind: 'array', value, ...(group && { group }) });
  }

  endArray(): void {
    this.#stack.pop();
  }

  key(name: string): void {
    const frame = this.#stack[this.#stack.length - 1] as Extract<Frame, { kind: 'object' }>;
    if (++this.#keys > DOCUMENT_LIMITS.keys) {
      throw refuse('TOO_MANY_KEYS', `the result holds more than ${DOCUMENT_LIMITS.keys} keys`);
    }
    // The key itself is never named: it is the service's text.
    if (frame.keys.has(name)) {
      throw refuse('DUPLICATE_KEY', `${this.#where()} holds the same key twice`);
    }
    frame.keys.add(name);
    this.#countText(Buffer.byteLength(name, 'utf8'));
    frame.key = name;
  }

  scalar(value: number | boolean | null): void {
    if (value !== null) this.#checkNotData(`a ${typeof value}`);
    this.#attach(value);
  }

  stringStart(): void {
    const entry = this.#dataEntry();
    if (entry) {
      if (++this.#objects > DOCUMENT_LIMITS.objects) {
        throw refuse(
          'TOO_MANY_OBJECTS',
          `the result holds more than ${DOCUMENT_LIMITS.objects} images and files`,
        );
      }
      const staging = this.names.stagingKey(entry.group, entry.index);
      const sink = new BlobSink(entry.group, entry.index, {
        target: this.target,
        stagingKey: staging,
        smallLimit: this.options.smallLimit,
        signal: this.options.signal,
        pool: this.#pool,
        onLarge: () => this.staged.push(staging),
      });
      entry.sink = sink;
      this.#sink = sink;
      this.#sinks.add(sink);
      return;
    }
    this.#strings = [];
    this.#stringBytes = 0;
  }

  stringPiece(bytes: Uint8Array): void {
    if (this.#sink) {
      this.#sink.push(bytes);
      return;
    }
    // Checked before the piece is kept: a string past the ceiling is refused as it arrives.
    this.#stringBytes += bytes.length;
    if (this.#stringBytes > DOCUMENT_LIMITS.stringBytes) {
      throw refuse(
        'STRING_TOO_LONG',
        `${this.#where()} holds a string longer than ${DOCUMENT_LIMITS.stringBytes} bytes that is not a blob's data`,
      );
    }
    this.#countText(bytes.length);
    this.#strings.push(Buffer.from(bytes));
  }

  stringEnd(): void {
    const sink = this.#sink;
    if (sink) {
      this.#sink = undefined;
      const entry = this.#dataEntry()!;
      const completed = sink.end();
      // Failures surface in `settle`; this keeps an early one from being an unhandled rejection.
      completed.catch(() => {});
      entry.completed = completed;
      // A place holder keeps the field order of the entry; the reference replaces it.
      this.#attach(null);
      return;
    }
    const text = Buffer.concat(this.#strings, this.#stringBytes).toString('utf8');
    this.#strings = [];
    this.#attach(text);
  }

  // --- uploads ---------------------------------------------------------------------------------

  /** Waits for back-pressure, starts the writes of closed entries, surfaces the first failure. */
  async settle(): Promise<void> {
    if (this.#failure) throw this.#failure;
    await this.#sink?.drained();
    while (this.#closed.length > 0) {
      const { entry, value } = this.#closed.shift()!;
      const bytes = Math.min(entry.sink?.bytes ?? 0, this.options.smallLimit);
      while (
        this.#running.size >= this.options.concurrency ||
        (this.#running.size > 0 && this.#runningBytes + bytes > this.options.bytesInFlight)
      ) {
        await Promise.race(this.#running);
      }
      if (this.#failure) throw this.#failure;
      this.#runningBytes += bytes;
      let named!: () => void;
      this.#named.push(new Promise<void>((resolve) => (named = resolve)));
      const task = this.#store(entry, value, named).then(
        () => {
          this.#running.delete(task);
          this.#runningBytes -= bytes;
        },
        (error: unknown) => {
          this.#running.delete(task);
          this.#runningBytes -= bytes;
          this.#failure ??= error;
        },
      );
      this.#running.add(task);
    }
    if (this.#failure) throw this.#failure;
  }

  /**
   * All writes done: the references in a stable order. `whenComplete` runs as soon as every blob is named
   * (its reference in the document), alongside the writes still running; both are waited for, and the
   * first failure of a write (else of `whenComplete`) is thrown.
   */
  async finish(whenComplete?: WhenComplete): Promise<ObjectRef[]> {
    await this.settle();
    let alongside: Promise<void> | undefined;
    if (whenComplete) {
      await Promise.all(this.#named);
      if (this.#failure) throw this.#failure;
      alongside = whenComplete(this.root!, this.#orderedRefs());
    }
    const [writes, complete] = await Promise.allSettled([this.#allWritten(), alongside]);
    if (writes.status === 'rejected') throw writes.reason;
    if (complete.status === 'rejected') throw complete.reason;
    return this.#orderedRefs();
  }

  async #allWritten(): Promise<void> {
    while (this.#running.size > 0) await Promise.race(this.#running);
    if (this.#failure) throw this.#failure;
  }

  /** The references, images first, each group in index order. */
  #orderedRefs(): ObjectRef[] {
    const order = (group: BlobGroup) => (group === 'images' ? 0 : 1);
    return this.#refs.sort((a, b) => order(a.group) - order(b.group) || a.index - b.index).map((r) => r.ref);
  }

  /** Aborts every multipart upload and waits for the writes in flight to stop. */
  async abortAll(): Promise<void> {
    await Promise.allSettled([...this.#running]);
    await Promise.allSettled([...this.#sinks].map((sink) => sink.abort()));
  }

  /**
   * Names the entry's blob, puts its reference in the document, then writes it. `named` is called once
   * the reference is in place, or once that can no longer happen (an empty value, a failure).
   */
  async #store(entry: Entry, value: Record<string, unknown>, named: () => void): Promise<void> {
    try {
      const blob = await entry.completed!;
      this.#sinks.delete(entry.sink!);
      if (!blob) {
        // An empty value: nothing to store, kept as it came.
        value.data = '';
        return;
      }
      // A pooled buffer lent as the body goes back once its write ended, reusable only if it succeeded.
      let written = false;
      try {
        const key = this.names.finalKey(entry.group, entry.index, value, blob.type.extension);
        // In place before the write: a failed write fails the whole result, document and all.
        const ref: ObjectRef = {
          key,
          contentType: blob.type.contentType,
          bytes: blob.bytes,
          sha256: blob.sha256,
        };
        value.data = ref;
        this.#refs.push({ group: entry.group, index: entry.index, ref });
        named();
        const { signal } = this.options;
        if (blob.body) await this.target.putSmall(key, blob.body, blob.type, blob.sha256, signal);
        else await this.target.promote(blob.stagingKey!, key, blob.type, blob.sha256, signal);
        written = true;
      } finally {
        blob.release?.(written);
      }
    } finally {
      named();
    }
  }

  // --- assembly --------------------------------------------------------------------------------

  #attach(value: unknown): void {
    if (++this.#values > DOCUMENT_LIMITS.values) {
      throw refuse('TOO_MANY_VALUES', `the result holds more than ${DOCUMENT_LIMITS.values} values`);
    }
    const frame = this.#stack[this.#stack.length - 1];
    if (!frame) {
      if (!isJsonObject(value)) {
        throw new ResultContentError(
          'BODY_NOT_OBJECT',
          'the service answered the result request with JSON that is not an object',
        );
      }
      this.root = value as Record<string, unknown>;
      return;
    }
    if (frame.kind === 'array') frame.value.push(value);
    else frame.value[frame.key!] = value;
  }

  #checkDepth(): void {
    if (this.#stack.length >= DOCUMENT_LIMITS.depth) {
      throw refuse(
        'TOO_DEEP',
        `the result nests objects and arrays deeper than ${DOCUMENT_LIMITS.depth} levels`,
      );
    }
  }

  #countText(bytes: number): void {
    this.#textBytes += bytes;
    if (this.#textBytes > DOCUMENT_LIMITS.textBytes) {
      throw refuse(
        'DOCUMENT_TOO_LARGE',
        `the result's keys and strings other than blob data exceed ${DOCUMENT_LIMITS.textBytes} bytes`,
      );
    }
  }

  /**
   * Where the token being read is, in words that hold no service text: `images[2]` inside an entry, else
   * the depth (keys are never named: they are the service's text).
   */
  #where(): string {
    for (let i = this.#stack.length - 1; i >= 0; i--) {
      const entry = (this.#stack[i] as { entry?: Entry }).entry;
      if (entry) return `${entry.group}[${entry.index}]${i < this.#stack.length - 1 ? ' (nested)' : ''}`;
    }
    return `an object or array at depth ${this.#stack.length}`;
  }

  /** The entry whose `data` member is being read now, if any. */
  #dataEntry(): Entry | undefined {
    const frame = this.#stack[this.#stack.length - 1];
    return frame?.kind === 'object' && frame.key === 'data' && frame.entry ? frame.entry : undefined;
  }

  #checkNotData(what: string): void {
    const entry = this.#dataEntry();
    if (entry) {
      throw new ResultContentError(
        'DATA_NOT_STRING',
        `${entry.group}[${entry.index}].data is ${what}, not a base64 string`,
      );
    }
  }
}
