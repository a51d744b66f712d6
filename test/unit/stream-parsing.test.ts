/**
 * The streaming parts of fetch-result at every split position: the byte tokenizer against JSON.parse, and
 * the incremental base64 decoder against the whole-value decoder (bin/cli/base64.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { decodeBase64Data } from '../../bin/cli/base64';
import { Base64DataError, Base64StreamDecoder } from '../../shared/stream/base64-decoder';
import { type JsonHandler, JsonSyntaxError, JsonTokenizer } from '../../shared/stream/json-tokenizer';

/** Rebuilds the value from the tokens, to compare with JSON.parse. */
function collect(): { handler: JsonHandler; value: () => unknown } {
  const stack: { value: unknown[] | Record<string, unknown>; key?: string }[] = [];
  let root: unknown;
  let pieces: Buffer[] = [];
  const attach = (value: unknown) => {
    const top = stack[stack.length - 1];
    if (!top) root = value;
    else if (Array.isArray(top.value)) top.value.push(value);
    else top.value[top.key!] = value;
  };
  const open = (value: unknown[] | Record<string, unknown>) => {
    attach(value);
    stack.push({ value });
  };
  return {
    value: () => root,
    handler: {
      startObject: () => open({}),
      endObject: () => void stack.pop(),
      startArray: () => open([]),
      endArray: () => void stack.pop(),
      key: (name) => {
        stack[stack.length - 1]!.key = name;
      },
      scalar: attach,
      stringStart: () => {
        pieces = [];
      },
      stringPiece: (bytes) => void pieces.push(Buffer.from(bytes)),
      stringEnd: () => attach(Buffer.concat(pieces).toString('utf8')),
    },
  };
}

function tokenize(chunks: Uint8Array[]): unknown {
  const { handler, value } = collect();
  const tokenizer = new JsonTokenizer(handler);
  for (const chunk of chunks) tokenizer.write(chunk);
  tokenizer.end();
  return value();
}

const SAMPLE = JSON.stringify({
  transactionId: 'tx-1',
  result: 'APPROVED',
  messages: ['A', 'B\n"quoted"\\', 'ünï€😀'],
  images: [
    { data: '/9j/4AAQ\\/+==', documentType: 'PASSPORT', metadata: { n: -1.5e3, ok: true, none: null } },
  ],
  empty: { a: [], b: {} },
  escaped: '\u0001\t\ud83d\ude00 \\u00e9',
});

describe('JsonTokenizer', () => {
  it('gives JSON.parse`s value for every split of a document into two and three chunks', () => {
    // Prepare
    const bytes = Buffer.from(SAMPLE, 'utf8');
    const expected = JSON.parse(SAMPLE);

    // Act + Assess
    for (let i = 0; i <= bytes.length; i++) {
      expect(tokenize([bytes.subarray(0, i), bytes.subarray(i)])).toEqual(expected);
      const j = Math.min(bytes.length, i + 7);
      expect(tokenize([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)])).toEqual(expected);
    }
  });

  it('reads byte by byte, escapes split anywhere', () => {
    // Prepare
    const text = JSON.stringify({ s: 'a\\/b\u00e9\ud83d\ude00"' }).replace('\\\\/', '\\/');
    const bytes = Buffer.from(`\uFEFF${text}`, 'utf8');

    // Act
    const value = tokenize([...bytes].map((b) => Uint8Array.of(b)));

    // Assess
    expect(value).toEqual(JSON.parse(text));
  });

  it('hands a long string over in pieces no larger than the chunks', () => {
    // Prepare
    const pieces: number[] = [];
    const tokenizer = new JsonTokenizer({
      ...collect().handler,
      stringPiece: (b) => void pieces.push(b.length),
    });
    const long = 'A'.repeat(1_000_000);
    const bytes = Buffer.from(JSON.stringify({ data: long }));

    // Act
    for (let i = 0; i < bytes.length; i += 65_536) tokenizer.write(bytes.subarray(i, i + 65_536));
    tokenizer.end();

    // Assess
    expect(Math.max(...pieces)).toBeLessThanOrEqual(65_536);
    expect(pieces.reduce((a, b) => a + b, 0)).toBe(long.length);
  });

  it.each([
    ['{"a":1,}', 'expected a key'],
    ['{"a" 1}', 'expected ":"'],
    ['[1 2]', 'expected "," or a closing bracket'],
    ['{"a":tru}', 'an invalid number or literal'],
    ['{"a":"\\x"}', 'an invalid escape sequence'],
    ['{"a":1}}', 'unexpected data after the JSON value'],
    ['<html>', 'unexpected character'],
    ['{"a":[1}', 'mismatched closing bracket'],
  ])('refuses %j: %s', (text, problem) => {
    // Act
    const error = (() => {
      try {
        tokenize([Buffer.from(text)]);
      } catch (e) {
        return e;
      }
    })() as JsonSyntaxError;

    // Assess
    expect(error).toBeInstanceOf(JsonSyntaxError);
    expect(error.problem).toBe(problem);
  });

  it('says when the JSON ends early', () => {
    // Assess
    expect(() => tokenize([Buffer.from('{"images":[{"data":"AAAA')])).toThrow('ends before it is complete');
  });
});

function decodeInPieces(value: string, splits: number[]): Buffer {
  const out: Buffer[] = [];
  const decoder = new Base64StreamDecoder((bytes) => out.push(Buffer.from(bytes)));
  const bytes = Buffer.from(value, 'utf8');
  let from = 0;
  for (const at of [...splits, bytes.length]) {
    decoder.push(bytes.subarray(from, at));
    from = at;
  }
  decoder.end();
  return Buffer.concat(out);
}

const BYTES = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0xfb, 0xff, 0xfe, 0xd9, 0x3e, 0x3f]);

describe('Base64StreamDecoder', () => {
  const variants: [string, string][] = [
    ['plain', BYTES.toString('base64')],
    ['data URL', `data:image/jpeg;base64,${BYTES.toString('base64')}`],
    ['data URL, upper case', `DATA:image/jpeg;name=x.jpg;BASE64,${BYTES.toString('base64')}`],
    ['line breaks', BYTES.toString('base64').replace(/(.{4})/g, '$1\r\n')],
    ['spaces and tabs', ` ${BYTES.toString('base64').replace(/(.{3})/g, '$1 \t')} `],
    ['URL-safe alphabet', BYTES.toString('base64url')],
    ['no padding', BYTES.toString('base64').replace(/=+$/, '')],
    ['a value starting like "data"', Buffer.from('u\xab\x5a', 'latin1').toString('base64')],
  ];

  it.each(variants)('decodes %s like the whole-value decoder at every split position', (_name, value) => {
    // Prepare
    const expected = decodeBase64Data(value)!;
    const length = Buffer.byteLength(value);

    // Act + Assess
    for (let i = 0; i <= length; i++) {
      expect(decodeInPieces(value, [i])).toEqual(expected);
      for (let j = i; j <= Math.min(length, i + 5); j++)
        expect(decodeInPieces(value, [i, j])).toEqual(expected);
    }
  });

  it.each([
    ['not base64 at all!', 'a character outside base64'],
    ['data:text/plain,hello', 'a data: URL that is not base64'],
    ['abcde', '4n+1'],
    ['ab+c-d==', 'mixing both base64 alphabets'],
    ['QQ==QQ', 'after the padding'],
    ['QQ===', 'more than two padding'],
    ['data:image/png;base64', 'without a comma'],
  ])('refuses %j at every split position (%s), like the whole-value decoder', (value, problem) => {
    // Assess
    expect(decodeBase64Data(value)).toBeUndefined();
    for (let i = 0; i <= value.length; i++) {
      expect(() => decodeInPieces(value, [i])).toThrow(Base64DataError);
      expect(() => decodeInPieces(value, [i])).toThrow(problem);
    }
  });

  // Long values: runs of standard-alphabet characters go through the native decoder, the rest through the
  // byte table; every dialect must give the same bytes at any split, whichever path each part takes.
  const LONG = Buffer.from(Array.from({ length: 3_001 }, (_, i) => (i * 151 + (i >> 3)) & 0xff));
  const longVariants: [string, string][] = [
    ['plain', LONG.toString('base64')],
    ['data URL', `data:image/jpeg;base64,${LONG.toString('base64')}`],
    ['MIME line breaks (76)', LONG.toString('base64').replace(/(.{76})/g, '$1\r\n')],
    ['odd line breaks (77)', LONG.toString('base64').replace(/(.{77})/g, '$1\n')],
    ['URL-safe alphabet', LONG.toString('base64url')],
    ['no padding', LONG.toString('base64').replace(/=+$/, '')],
    [
      'a space in the middle',
      `${LONG.toString('base64').slice(0, 2_001)} ${LONG.toString('base64').slice(2_001)}`,
    ],
  ];

  it.each(longVariants)(
    'decodes a long value (%s) like the whole-value decoder at any split',
    (_name, value) => {
      // Prepare
      const expected = decodeBase64Data(value)!;
      const length = Buffer.byteLength(value);

      // Act + Assess
      expect(expected.equals(LONG)).toBe(true);
      for (let i = 0; i <= length; i += 7) {
        expect(decodeInPieces(value, [i]).equals(LONG)).toBe(true);
        expect(decodeInPieces(value, [i, Math.min(length, i + 64)]).equals(LONG)).toBe(true);
      }
    },
  );

  it.each([
    ['a bad character after a long run', `${'QUJD'.repeat(500)}%RA==`, 'a character outside base64', 2_000],
    ['URL-safe after a long standard run', `${'a+b/'.repeat(100)}${'QUJD'.repeat(100)}-_ab`, 'mixing', -1],
    ['standard after a long URL-safe run', `${'a-b_'.repeat(100)}${'QUJD'.repeat(100)}+/ab`, 'mixing', -1],
    ['data after the padding', `${'QUJD'.repeat(100)}QQ==${'QUJD'.repeat(100)}`, 'after the padding', 404],
  ])('refuses %s at any split, naming the position', (_name, value, problem, position) => {
    // Assess
    expect(decodeBase64Data(value)).toBeUndefined();
    for (let i = 0; i <= value.length; i += 5) {
      expect(() => decodeInPieces(value, [i])).toThrow(problem);
      if (position >= 0) expect(() => decodeInPieces(value, [i])).toThrow(`at character ${position}`);
    }
  });

  // The native path (runs of 1,024 characters or more) must refuse and accept exactly what the byte table
  // does: every byte value that is not of the two alphabets, put anywhere in a long run split anywhere.
  describe('native decoding of long runs', () => {
    const RAW = Buffer.from(Array.from({ length: 3_000 }, (_, i) => (i * 89 + (i >> 5)) & 0xff));
    const TEXT = Buffer.from(RAW.toString('base64'), 'latin1');
    const ALPHABETS = /[A-Za-z0-9+/_-]/;
    const positions = [0, 1, 2, 3, 513, 1_022, 1_023, 1_024, 2_047, TEXT.length - 2, TEXT.length - 1];

    function decodeBytes(bytes: Uint8Array, splits: number[], plain: boolean): Buffer {
      const out: Buffer[] = [];
      const decoder = new Base64StreamDecoder((decoded) => out.push(Buffer.from(decoded)));
      let from = 0;
      for (const at of [...splits, bytes.length]) {
        // A fetch body's chunks are plain Uint8Arrays, not Buffers: both must work.
        const piece = bytes.subarray(from, at);
        decoder.push(plain ? new Uint8Array(piece) : piece);
        from = at;
      }
      decoder.end();
      return Buffer.concat(out);
    }

    it('decodes a plain long value in one piece and at every split to the same bytes', () => {
      // Assess
      expect(decodeBytes(TEXT, [], false).equals(RAW)).toBe(true);
      expect(decodeBytes(TEXT, [], true).equals(RAW)).toBe(true);
      for (let i = 0; i <= TEXT.length; i++) {
        expect(decodeBytes(TEXT, [i], i % 2 === 0).equals(RAW)).toBe(true);
      }
    });

    it('treats every byte value outside the alphabets as the byte table does, wherever it is', () => {
      for (let byte = 0; byte < 256; byte++) {
        const char = String.fromCharCode(byte);
        if (ALPHABETS.test(char)) continue;
        for (const at of positions) {
          // Prepare
          const value = Buffer.from(TEXT);
          value[at] = byte;
          // The reference reads text: a byte above 0x7f is never base64 (nor a line break).
          const expected = byte < 0x80 ? decodeBase64Data(value.toString('latin1')) : undefined;

          // Act + Assess
          for (const splits of [[], [at], [at + 1], [Math.max(0, at - 1_100)]]) {
            for (const plain of [false, true]) {
              if (expected) expect(decodeBytes(value, splits, plain).equals(expected)).toBe(true);
              else expect(() => decodeBytes(value, splits, plain)).toThrow(Base64DataError);
            }
          }
        }
      }
    });

    it('hands a long plain run to the native decoder (so the tests above test it)', () => {
      // Prepare
      const write = vi.spyOn(Buffer.prototype, 'write');

      // Act
      let nativeCalls = 0;
      try {
        decodeBytes(TEXT, [], true);
        decodeBytes(TEXT, [1_500], false);
        nativeCalls = write.mock.calls.filter((call) => call[3] === 'base64').length;
      } finally {
        write.mockRestore();
      }

      // Assess
      expect(nativeCalls).toBe(3);
    });

    it('names the first bad character of a long run, as the byte table does', () => {
      // Prepare
      const value = Buffer.from(TEXT);
      value[1_500] = 0x25;
      value[2_500] = 0x00;

      // Act + Assess
      expect(() => decodeBytes(value, [], false)).toThrow('(byte 0x25) at character 1500');
      expect(() => decodeBytes(value, [1_400], false)).toThrow('(byte 0x25) at character 1500');
    });

    it.each([
      ['a URL-safe character in a standard run', TEXT.toString('latin1').replace(/\+/, '-')],
      // The last one: a split before it leaves it to a run of a value whose alphabet is known.
      ['an underscore in a standard run', TEXT.toString('latin1').replace(/\/([^/]*)$/, '_$1')],
      ['a standard character in a URL-safe run', RAW.toString('base64url').replace(/-/, '+')],
      ['a slash in a URL-safe run', RAW.toString('base64url').replace(/_([^_]*)$/, '/$1')],
      ['a plus in a URL-safe run', RAW.toString('base64url').replace(/-([^-]*)$/, '+$1')],
      ['a minus in a standard run', TEXT.toString('latin1').replace(/\+([^+]*)$/, '-$1')],
      ['a long standard run, then URL-safe characters', `${TEXT.toString('latin1')} a-b_`],
      ['a long URL-safe run, then standard characters', `${RAW.toString('base64url')} a+b/`],
      ['standard, then a URL-safe run', `a+b/${RAW.toString('base64url')}`],
      ['URL-safe, then a standard run', `a-b_${TEXT.toString('latin1')}`],
      ['padding inside a run', `${TEXT.toString('latin1').slice(0, 1_200)}QQ==${TEXT.toString('latin1')}`],
      [
        'one padding character inside a run',
        `${TEXT.toString('latin1').slice(0, 1_202)}=${TEXT.toString('latin1').slice(1_203)}`,
      ],
    ])('refuses %s at any split', (_name, value) => {
      // Prepare
      const bytes = Buffer.from(value, 'latin1');

      // Assess
      expect(decodeBase64Data(value)).toBeUndefined();
      for (let i = 0; i <= bytes.length; i += 13) {
        expect(() => decodeBytes(bytes, [i], false)).toThrow(Base64DataError);
      }
      expect(() => decodeBytes(bytes, [], true)).toThrow(Base64DataError);
    });

    it('decodes long values ending in padding and long URL-safe values at any split', () => {
      for (const length of [2_999, 2_998, 3_000]) {
        // Prepare
        const raw = RAW.subarray(0, length);
        for (const value of [raw.toString('base64'), raw.toString('base64url')]) {
          const bytes = Buffer.from(value, 'latin1');

          // Act + Assess
          for (let i = 0; i <= bytes.length; i += 11) {
            expect(decodeBytes(bytes, [i], false).equals(raw)).toBe(true);
          }
        }
      }
    });
  });

  it('names the position of a bad character but never the value', () => {
    // Act
    const error = (() => {
      try {
        decodeInPieces('QUJD%RA==', [3]);
      } catch (e) {
        return e as Error;
      }
    })();

    // Assess
    expect(error?.message).toBe('a character outside base64 (byte 0x25) at character 4');
  });
});
