/**
 * Keeps the dead chunks of streamed bodies from piling up in the process that hosts the emulators.
 *
 * A large result passes through that process several times as 64 KiB chunks, each a new Buffer dead as
 * soon as it is written on: the fronts read every request body (`aws-front.ts`), s3rver reads it again
 * from the front's socket, and a multipart completion reads every part back from disk. Nothing holds
 * them (a heap snapshot at the peak finds 26 MiB of live ArrayBuffers, the pooled part buffers), but V8
 * frees a chunk's memory only when a GC finds its Buffer dead, and a chunk's JavaScript part is too small
 * to trigger one: it waits until the external memory is some 64 MiB above the last full GC. With a
 * 200 MB result that garbage was most of the local run's peak RSS growth (97 MiB against a bound of
 * 84). A young-generation GC whenever the external memory has grown by {@link STEP_BYTES} frees the
 * chunks within milliseconds; it costs about a millisecond and runs only while bodies stream. Chunks that
 * waited in a stream's queue across two of them are in the old generation by then, so a full GC follows
 * when the external memory still grew {@link MAJOR_STEP_BYTES} over its lowest point since the last one.
 * Ten 15 MiB objects uploaded in parts and copied through the front (a timer reading the memory every
 * 5 ms beside them, three runs each): peak RSS growth 31–44 MiB with this guard, 67–84 without.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Growth of external memory that prompts a young-generation GC. */
const STEP_BYTES = 16 * 1024 * 1024;
/** Growth of external memory, over its lowest point since the last full GC, that prompts a full GC. */
const MAJOR_STEP_BYTES = 48 * 1024 * 1024;
/** How often the external memory is read (a cheap call: no /proc read). */
const CHECK_MS = 20;

/** V8's `gc` with the options this module uses. */
export type Gc = (options: { type: 'minor' | 'major' }) => void;

let v8Gc: Gc | undefined;

/** V8's `gc`, without starting Node with `--expose-gc` (the flag applies to contexts created after it). */
function collector(): Gc {
  if (!v8Gc) {
    setFlagsFromString('--expose-gc');
    v8Gc = runInNewContext('gc') as Gc;
  }
  return v8Gc;
}

/** Options of {@link startChunkGc}; both are V8's unless a test hands in its own. */
export interface ChunkGcOptions {
  readonly gc?: Gc;
  /** Bytes of external memory (ArrayBuffers' included) now. */
  readonly externalBytes?: () => number;
}

/** Starts the guard; returns its stop. The timer never keeps the process alive. */
export function startChunkGc(options: ChunkGcOptions = {}): () => void {
  const run = options.gc ?? collector();
  const external = options.externalBytes ?? (() => getHeapStatistics().external_memory);
  let floor = external();
  let majorFloor = floor;
  const timer = setInterval(() => {
    const now = external();
    majorFloor = Math.min(majorFloor, now);
    if (now - majorFloor >= MAJOR_STEP_BYTES) {
      run({ type: 'major' });
      floor = majorFloor = external();
    } else if (now - floor >= STEP_BYTES) {
      run({ type: 'minor' });
      floor = external();
    } else if (now < floor) {
      floor = now;
    }
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
