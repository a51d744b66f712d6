/**
 * The ceilings of the stripped document and the duplicate-key rule (docs/pipeline.md, "Bad input"): a
 * small version of each memory attack and of the duplicate `images` attack is refused with its named
 * reason, every started upload aborted, and the largest accepted shapes still stored.
 */
import { describe, expect, it } from 'vitest';
import { resultBlobNames } from '../../shared/store/keys';
import type { BlobTarget } from '../../shared/stream/blob-sink';
import { ResultContentError } from '../../shared/stream/errors';
import { DOCUMENT_LIMITS, ingestResult } from '../../shared/stream/result-ingest';

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 1)]).toString('base64');

/** A target that records what it was asked to do. */
function recordingTarget() {
  const state = { puts: [] as string[], started: [] as string[], aborted: 0, discarded: [] as string[] };
  const target: BlobTarget = {
    putSmall: async (key) => {
      state.puts.push(key);
    },
    startLarge: (stagingKey) => {
      state.started.push(stagingKey);
      return {
        space: () => undefined,
        write: () => true,
        drained: async () => {},
        finish: async () => {},
        abort: async () => {
          state.aborted++;
        },
      };
    },
    promote: async () => {},
    discard: async (keys) => {
      state.discarded.push(...keys);
    },
  };
  return { state, target };
}

/** The text as a body in chunks of `size` bytes, counting how many were pulled. */
function chunked(text: string | Buffer, size = 64 * 1024) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const read = { chunks: 0, returned: false };
  const body: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      let at = 0;
      return {
        next: async () => {
          if (at >= bytes.length) return { done: true, value: undefined };
          read.chunks++;
          const value = bytes.subarray(at, at + size);
          at += size;
          return { done: false, value };
        },
        return: async () => {
          read.returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { body, read };
}

async function refusal(text: string | Buffer, size?: number): Promise<ResultContentError> {
  const { target } = recordingTarget();
  const error = await ingestResult(chunked(text, size).body, target, resultBlobNames('r')).catch((e) => e);
  expect(error).toBeInstanceOf(ResultContentError);
  return error as ResultContentError;
}

describe('document ceilings', () => {
  it('refuses a string past the ceiling while it streams, without reading the rest of the body', async () => {
    // Prepare: a 50 MB string field, of which only the first chunks may be read
    const text = Buffer.concat([
      Buffer.from('{"result":"APPROVED","note":"'),
      Buffer.alloc(50 * 1024 * 1024, 0x61),
      Buffer.from('"}'),
    ]);
    const { target } = recordingTarget();
    const { body, read } = chunked(text);

    // Act
    const error = await ingestResult(body, target, resultBlobNames('r')).catch((e) => e);

    // Assess
    expect(error).toMatchObject({ reason: 'STRING_TOO_LONG', transient: false });
    expect(read.chunks).toBeLessThanOrEqual(3);
    expect(read.returned).toBe(true);
  });

  it('counts escaped characters by their bytes, split anywhere', async () => {
    const text = `{"note":"${'\\u00e9'.repeat(DOCUMENT_LIMITS.stringBytes / 2 + 1)}"}`;
    expect((await refusal(text, 7)).reason).toBe('STRING_TOO_LONG');
  });

  it('takes a string at the ceiling', async () => {
    const { target } = recordingTarget();
    const text = `{"note":"${'a'.repeat(DOCUMENT_LIMITS.stringBytes)}"}`;
    const { document } = await ingestResult(chunked(text).body, target, resultBlobNames('r'));
    expect((document.note as string).length).toBe(DOCUMENT_LIMITS.stringBytes);
  });

  it('refuses more reason codes than the value ceiling', async () => {
    const text = `{"messages":[${Array(DOCUMENT_LIMITS.values).fill('"A"').join(',')}]}`;
    expect((await refusal(text)).reason).toBe('TOO_MANY_VALUES');
  });

  it('refuses more keys than the key ceiling, across objects', async () => {
    const half = DOCUMENT_LIMITS.keys / 2;
    const object = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
    const text = `{"a":${object(half)},"b":${object(half)}}`;
    expect((await refusal(text)).reason).toBe('TOO_MANY_KEYS');
  });

  it('refuses nesting past the depth ceiling (100,000 deep and just past it)', async () => {
    expect((await refusal(`{"a":${'['.repeat(100_000)}`)).reason).toBe('TOO_DEEP');
    const depth = DOCUMENT_LIMITS.depth;
    const { target } = recordingTarget();
    const atLimit = `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    await expect(ingestResult(chunked(atLimit).body, target, resultBlobNames('r'))).resolves.toBeDefined();
    expect((await refusal(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`)).reason).toBe('TOO_DEEP');
  });

  it('refuses keys and strings past the text ceiling together', async () => {
    const field = 'a'.repeat(DOCUMENT_LIMITS.stringBytes - 10);
    const count = Math.ceil(DOCUMENT_LIMITS.textBytes / field.length) + 1;
    const text = `{"notes":[${Array(count).fill(`"${field}"`).join(',')}]}`;
    expect((await refusal(text)).reason).toBe('DOCUMENT_TOO_LARGE');
  });

  it('refuses more images and files than the object ceiling', async () => {
    const files = Array(DOCUMENT_LIMITS.objects).fill('{"data":"AA=="}').join(',');
    expect((await refusal(`{"files":[${files}],"images":[{"data":"${JPEG}"}]}`)).reason).toBe(
      'TOO_MANY_OBJECTS',
    );
  });

  it('names no part of the body in the message', async () => {
    const error = await refusal(`{"Jan Jansen 1970-01-01":"${'x'.repeat(DOCUMENT_LIMITS.stringBytes + 1)}"}`);
    expect(error.message).not.toContain('Jan');
    expect(error.message).not.toContain('xxx');
  });
});

describe('duplicate keys', () => {
  /** The issue's attack: `images` twice, a 6 MiB PASSPORT/FRONT first, a 104-byte image second. */
  function doubleImages(): string {
    const big = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(6 * 1024 * 1024, 3)]);
    const small = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 5)]);
    return (
      `{"result":"APPROVED","images":[{"data":"${big.toString('base64')}","documentType":"PASSPORT","pageType":"FRONT"}],` +
      `"images":[{"data":"${small.toString('base64')}","documentType":"PASSPORT","pageType":"FRONT"}]}`
    );
  }

  it('refuses `images` twice and aborts the upload already started, discarding its staging object', async () => {
    // Prepare
    const { state, target } = recordingTarget();

    // Act
    const error = await ingestResult(chunked(doubleImages()).body, target, resultBlobNames('r')).catch(
      (e) => e,
    );

    // Assess
    expect(error).toMatchObject({ name: 'ResultContentError', reason: 'DUPLICATE_KEY', transient: false });
    expect(state.started).toEqual(['staging/r/images-01']);
    expect(state.aborted).toBe(1);
    expect(state.discarded).toEqual(['staging/r/images-01']);
  });

  it.each([
    ['the root', `{"result":"APPROVED","result":"DECLINED"}`, 'depth 1'],
    [
      'an images entry',
      `{"images":[{"data":"${JPEG}","documentType":"PASSPORT","documentType":"ID_CARD"}]}`,
      'images[0]',
    ],
    ['a data field', `{"images":[{"data":"${JPEG}","data":"${JPEG}"}]}`, 'images[0]'],
    ['an entry`s metadata', `{"files":[{"data":"","meta":{"a":1,"a":2}}]}`, 'files[0] (nested)'],
    ['a section', `{"identity":{"result":"APPROVED","checks":{"x":{"result":"A","result":"B"}}}}`, 'depth 4'],
    ['an object in an array', `{"messages":[{"k":1},{"k":1,"k":2}]}`, 'depth 3'],
  ])('refuses a key twice in %s', async (_where, text, where) => {
    const error = await refusal(text, 5);
    expect(error.reason).toBe('DUPLICATE_KEY');
    expect(error.message).toContain(where);
  });

  it('takes the same key in different objects', async () => {
    const { state, target } = recordingTarget();
    const text = `{"images":[{"data":"${JPEG}","documentType":"PASSPORT"},{"data":"${JPEG}","documentType":"PASSPORT"}]}`;
    const { objects } = await ingestResult(chunked(text, 3).body, target, resultBlobNames('r'));
    expect(objects.map((o) => o.key)).toEqual(state.puts.sort());
    expect(objects).toHaveLength(2);
  });
});
