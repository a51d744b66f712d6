/**
 * `ingestResult` (shared/stream/result-ingest.ts) against recording blob targets: how many writes it holds
 * at once, when it reports the result complete, and its staging objects. The tokenizer and the base64
 * decoder beneath it: stream-parsing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { resultBlobNames } from '../../shared/store/keys';
import type { BlobTarget } from '../../shared/stream/blob-sink';
import { ingestResult } from '../../shared/stream/result-ingest';

describe('ingestResult write bounds', () => {
  /** A target whose PutObjects wait until released, recording how much is in flight. */
  function slowTarget() {
    const state = { running: 0, bytes: 0, maxRunning: 0, maxBytes: 0, puts: 0 };
    const target: BlobTarget = {
      putSmall: async (_key, body) => {
        state.running++;
        state.bytes += body.length;
        state.maxRunning = Math.max(state.maxRunning, state.running);
        state.maxBytes = Math.max(state.maxBytes, state.bytes);
        await new Promise((resolve) => setTimeout(resolve, 5));
        state.running--;
        state.bytes -= body.length;
        state.puts++;
      },
      startLarge: () => {
        throw new Error('not used');
      },
      promote: async () => {
        throw new Error('not used');
      },
      discard: async () => {},
    };
    return { state, target };
  }

  function bodyWith(images: number, imageBytes: number): AsyncIterable<Uint8Array> {
    const image = Buffer.alloc(imageBytes, 7);
    Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(image);
    const data = image.toString('base64');
    const entries = Array.from({ length: images }, () => `{"data":"${data}"}`);
    const text = Buffer.from(`{"result":"APPROVED","images":[${entries.join(',')}]}`);
    return (async function* () {
      for (let at = 0; at < text.length; at += 4096) yield text.subarray(at, at + 4096);
    })();
  }

  it('holds at most `concurrency` writes and `bytesInFlight` decoded bytes at once, and writes every blob', async () => {
    // Prepare
    const many = slowTarget();
    const large = slowTarget();

    // Act
    await ingestResult(bodyWith(12, 2_000), many.target, resultBlobNames('r'), { concurrency: 3 });
    await ingestResult(bodyWith(6, 40_000), large.target, resultBlobNames('r'), {
      concurrency: 4,
      bytesInFlight: 100_000,
    });

    // Assess: the count bounds small blobs, the byte budget large ones (two of 40 KB fit 100 KB).
    expect(many.state).toMatchObject({ puts: 12, maxRunning: 3 });
    expect(large.state.puts).toBe(6);
    expect(large.state.maxRunning).toBe(2);
    expect(large.state.maxBytes).toBeLessThanOrEqual(100_000);
  });

  it('writes up to 16 small blobs at once by default', async () => {
    // Prepare
    const { state, target } = slowTarget();

    // Act
    await ingestResult(bodyWith(40, 2_000), target, resultBlobNames('r'));

    // Assess
    expect(state).toMatchObject({ puts: 40, maxRunning: 16 });
  });

  it('lets one blob larger than the budget through alone', async () => {
    // Prepare
    const { state, target } = slowTarget();

    // Act
    await ingestResult(bodyWith(3, 50_000), target, resultBlobNames('r'), { bytesInFlight: 10_000 });

    // Assess
    expect(state).toMatchObject({ puts: 3, maxRunning: 1 });
  });
});

describe('ingestResult whenComplete', () => {
  /** A target whose PutObjects wait until `release` is called, recording the keys written. */
  function heldTarget(fail?: string) {
    const written: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const target: BlobTarget = {
      putSmall: async (key) => {
        await released;
        if (fail && key.includes(fail)) throw new Error(`put of ${fail} failed`);
        written.push(key);
      },
      startLarge: () => {
        throw new Error('not used');
      },
      promote: async () => {
        throw new Error('not used');
      },
      discard: async () => {},
    };
    return { target, written, release };
  }

  function body(images: number): AsyncIterable<Uint8Array> {
    const data = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).toString('base64');
    const entries = Array.from({ length: images }, (_, i) => `{"data":"${data}","documentType":"T${i}"}`);
    const text = Buffer.from(`{"result":"APPROVED","images":[${entries.join(',')}],"files":[{"data":""}]}`);
    return (async function* () {
      yield text;
    })();
  }

  it('gets the complete document while the writes still run, and ingestResult waits for both', async () => {
    // Prepare
    const { target, written, release } = heldTarget();
    let seen: { document: string; objects: number; writtenThen: number } | undefined;

    // Act
    const ingesting = ingestResult(body(3), target, resultBlobNames('r'), {}, async (document, objects) => {
      seen = { document: JSON.stringify(document), objects: objects.length, writtenThen: written.length };
      release();
    });
    const ingested = await ingesting;

    // Assess: called before any write had ended, with every reference in place; the result equals it.
    expect(seen?.writtenThen).toBe(0);
    expect(seen?.objects).toBe(3);
    expect(seen?.document).toBe(JSON.stringify(ingested.document));
    expect(seen?.document).not.toContain('/9j/');
    expect(ingested.document).toMatchObject({ files: [{ data: '' }] });
    expect(written).toHaveLength(3);
  });

  it('fails with the failed write, after whenComplete has ended, never before', async () => {
    // Prepare
    const { target, release } = heldTarget('/images/02-');
    let ended = false;

    // Act
    const ingesting = ingestResult(body(3), target, resultBlobNames('r'), {}, async () => {
      release();
      await new Promise((resolve) => setTimeout(resolve, 20));
      ended = true;
    });

    // Assess
    await expect(ingesting).rejects.toThrow('put of /images/02- failed');
    expect(ended).toBe(true);
  });

  it('fails with whenComplete`s failure once the writes have ended', async () => {
    // Prepare
    const { target, written, release } = heldTarget();

    // Act
    const ingesting = ingestResult(body(2), target, resultBlobNames('r'), {}, async () => {
      setTimeout(release, 10);
      throw new Error('result.json refused');
    });

    // Assess
    await expect(ingesting).rejects.toThrow('result.json refused');
    expect(written).toHaveLength(2);
  });
});

describe('ingestResult staging objects', () => {
  function recordingTarget() {
    const events: string[] = [];
    const target: BlobTarget = {
      putSmall: async (key) => {
        events.push(`put ${key}`);
      },
      startLarge: (stagingKey) => {
        events.push(`start ${stagingKey}`);
        return {
          space: () => undefined,
          write: () => true,
          drained: async () => {},
          finish: async () => {
            await new Promise((resolve) => setTimeout(resolve, 2));
          },
          abort: async () => {},
        };
      },
      promote: async (stagingKey, key) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        events.push(`copy ${stagingKey} -> ${key}`);
      },
      discard: async (keys) => {
        events.push(`discard ${keys.join(',')}`);
      },
    };
    return { events, target };
  }

  async function* body(text: string): AsyncIterable<Uint8Array> {
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 1000) yield bytes.subarray(at, at + 1000);
  }

  it('deletes the staging objects once, after every copy of the result has ended', async () => {
    // Prepare: three blobs over the small limit, one under it.
    const jpeg = (n: number) => {
      const bytes = Buffer.alloc(n, 1);
      Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(bytes);
      return bytes.toString('base64');
    };
    const images = [5_000, 5_000, 100, 5_000].map((n) => `{"data":"${jpeg(n)}"}`);
    const { events, target } = recordingTarget();

    // Act
    await ingestResult(body(`{"images":[${images.join(',')}]}`), target, resultBlobNames('r'), {
      smallLimit: 1_000,
    });

    // Assess
    const discards = events.filter((e) => e.startsWith('discard'));
    expect(discards).toEqual(['discard staging/r/images-01,staging/r/images-02,staging/r/images-04']);
    expect(events.at(-1)).toBe(discards[0]);
    expect(events.filter((e) => e.startsWith('copy'))).toHaveLength(3);
  });

  it('deletes the staging objects it started when the result fails', async () => {
    // Prepare: a large blob, then a value that is not base64.
    const { events, target } = recordingTarget();
    const large = Buffer.alloc(5_000, 1);
    Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(large);
    const text = `{"images":[{"data":"${large.toString('base64')}"},{"data":"%%"}]}`;

    // Act
    const failure = await ingestResult(body(text), target, resultBlobNames('r'), { smallLimit: 1_000 }).catch(
      (e) => e,
    );

    // Assess
    expect(failure).toMatchObject({ reason: 'DATA_NOT_BASE64' });
    expect(events.at(-1)).toBe('discard staging/r/images-01');
  });
});
