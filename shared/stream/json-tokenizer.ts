/**
 * A byte-level streaming JSON tokenizer that hands every string over in pieces (docs/pipeline.md,
 * "Streaming parser", says why it is our own): strings arrive as unescaped UTF-8 byte slices between
 * `stringStart` and `stringEnd`, so a 100 MB base64 value never becomes one JS string. Keys, numbers,
 * booleans and null are small and come whole. Input is bytes in chunks of any size, split anywhere.
 */
import { PipelineError } from '../errors';

/** What the tokenizer reports, in document order. */
export interface JsonHandler {
  startObject(): void;
  endObject(): void;
  startArray(): void;
  endArray(): void;
  key(name: string): void;
  scalar(value: number | boolean | null): void;
  stringStart(): void;
  /** Unescaped UTF-8 bytes of the current string value; valid only during the call. */
  stringPiece(bytes: Uint8Array): void;
  stringEnd(): void;
}

/** The body is not JSON: `offset` is the byte where that became certain. Never holds the body. */
export class JsonSyntaxError extends PipelineError {
  override readonly name = 'JsonSyntaxError';
  constructor(
    readonly problem: string,
    readonly offset: number,
  ) {
    super(`${problem} at byte ${offset}`);
  }
}

/** Longest key kept: keys are assembled whole, so a huge one would defeat the bounded memory. */
const MAX_KEY_BYTES = 64 * 1024;
/** Longest number literal. */
const MAX_NUMBER_CHARS = 512;

enum Expect {
  /** A value (document start, after `:`, after `,` in an array). */
  Value,
  /** A value or `]` (right after `[`). */
  ValueOrEnd,
  /** A key or `}` (right after `{`). */
  KeyOrEnd,
  /** A key (after `,` in an object). */
  Key,
  Colon,
  /** `,` or the closing bracket of the current container. */
  CommaOrEnd,
  Done,
}

enum Mode {
  Structure,
  String,
  /** After a backslash. */
  Escape,
  /** Inside `\uXXXX`. */
  Unicode,
  Number,
  Literal,
}

const BOM = [0xef, 0xbb, 0xbf];
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ESCAPES: Record<number, number> = {
  34: 0x22,
  92: 0x5c,
  47: 0x2f,
  98: 8,
  102: 12,
  110: 10,
  114: 13,
  116: 9,
};

/** Push tokenizer: `write` chunks, then `end`. Throws `JsonSyntaxError` at the first byte that breaks JSON. */
export class JsonTokenizer {
  readonly #h: JsonHandler;
  #expect = Expect.Value;
  #mode = Mode.Structure;
  /** Container stack: true for objects. */
  readonly #stack: boolean[] = [];
  #isKey = false;
  #keyParts: Buffer[] = [];
  #keyBytes = 0;
  #literal = '';
  #unicode = '';
  #highSurrogate = 0;
  #offset = 0;
  /** Bytes of a leading byte order mark seen. */
  #bom = 0;

  constructor(handler: JsonHandler) {
    this.#h = handler;
  }

  /** Bytes read so far. */
  get offset(): number {
    return this.#offset;
  }

  /** True once the top-level value is complete. */
  get done(): boolean {
    return this.#expect === Expect.Done && this.#mode === Mode.Structure;
  }

  write(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    // A UTF-8 byte order mark in front of JSON, which some servers send, is skipped (split or not).
    while (this.#bom < 3 && i < n && this.#offset + i === this.#bom && chunk[i] === BOM[this.#bom]) {
      this.#bom++;
      i++;
    }
    if (this.#bom > 0 && this.#bom < 3 && i < n) this.#fail('an incomplete byte order mark', i);
    while (i < n) {
      switch (this.#mode) {
        case Mode.String:
          i = this.#string(chunk, i);
          break;
        case Mode.Escape:
          i = this.#escape(chunk, i);
          break;
        case Mode.Unicode:
          i = this.#unicodeDigits(chunk, i);
          break;
        case Mode.Number:
        case Mode.Literal:
          i = this.#word(chunk, i);
          break;
        default:
          i = this.#structure(chunk, i);
      }
    }
    this.#offset += n;
  }

  /** The input is complete: throws if the JSON is not. */
  end(): void {
    if (this.#mode === Mode.Number || this.#mode === Mode.Literal) this.#finishWord();
    if (this.#expect !== Expect.Done || this.#mode !== Mode.Structure) {
      throw new JsonSyntaxError('the JSON ends before it is complete', this.#offset);
    }
  }

  #fail(problem: string, chunkIndex: number): never {
    throw new JsonSyntaxError(problem, this.#offset + chunkIndex);
  }

  #structure(c: Uint8Array, start: number): number {
    let i = start;
    const n = c.length;
    while (i < n) {
      const b = c[i]!;
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
        i++;
        continue;
      }
      switch (this.#expect) {
        case Expect.Done:
          return this.#fail('unexpected data after the JSON value', i);
        case Expect.Colon:
          if (b !== 0x3a) this.#fail('expected ":"', i);
          this.#expect = Expect.Value;
          i++;
          continue;
        case Expect.CommaOrEnd:
          if (b === 0x2c) {
            this.#expect = this.#stack[this.#stack.length - 1] ? Expect.Key : Expect.Value;
            i++;
            continue;
          }
          if (b === 0x7d || b === 0x5d) {
            this.#close(b, i);
            i++;
            continue;
          }
          return this.#fail('expected "," or a closing bracket', i);
        case Expect.KeyOrEnd:
        case Expect.Key:
          if (b === 0x7d && this.#expect === Expect.KeyOrEnd) {
            this.#close(b, i);
            i++;
            continue;
          }
          if (b !== QUOTE) this.#fail('expected a key', i);
          this.#isKey = true;
          this.#mode = Mode.String;
          return i + 1;
        default:
          // Expect.Value / ValueOrEnd
          if (b === 0x5d && this.#expect === Expect.ValueOrEnd) {
            this.#close(b, i);
            i++;
            continue;
          }
          return this.#valueStart(i, b);
      }
    }
    return i;
  }

  #valueStart(i: number, b: number): number {
    if (b === 0x7b) {
      this.#stack.push(true);
      this.#expect = Expect.KeyOrEnd;
      this.#h.startObject();
      return i + 1;
    }
    if (b === 0x5b) {
      this.#stack.push(false);
      this.#expect = Expect.ValueOrEnd;
      this.#h.startArray();
      return i + 1;
    }
    if (b === QUOTE) {
      this.#isKey = false;
      this.#mode = Mode.String;
      this.#h.stringStart();
      return i + 1;
    }
    if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
      this.#mode = Mode.Number;
      this.#literal = '';
      return i;
    }
    if (b === 0x74 || b === 0x66 || b === 0x6e) {
      this.#mode = Mode.Literal;
      this.#literal = '';
      return i;
    }
    return this.#fail('unexpected character', i);
  }

  #close(b: number, i: number): void {
    const isObject = this.#stack.pop();
    if (isObject === undefined || isObject !== (b === 0x7d)) this.#fail('mismatched closing bracket', i);
    if (isObject) this.#h.endObject();
    else this.#h.endArray();
    this.#afterValue();
  }

  #afterValue(): void {
    this.#expect = this.#stack.length === 0 ? Expect.Done : Expect.CommaOrEnd;
  }

  #string(c: Uint8Array, start: number): number {
    // memchr-speed scans: a long base64 value is a few native searches per chunk. Raw control characters
    // (invalid JSON) are let through: tolerant reading, and the base64 decoder still refuses them in data.
    const buffer = Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    const n = c.length;
    const quote = buffer.indexOf(QUOTE, start);
    const backslash = buffer.indexOf(BACKSLASH, start);
    let i = quote === -1 ? n : quote;
    if (backslash !== -1 && backslash < i) i = backslash;
    if (i > start) this.#piece(c.subarray(start, i));
    if (i === n) return i;
    if (c[i] === BACKSLASH) {
      this.#mode = Mode.Escape;
      return i + 1;
    }
    this.#flushSurrogate();
    this.#mode = Mode.Structure;
    if (this.#isKey) {
      const name = Buffer.concat(this.#keyParts, this.#keyBytes).toString('utf8');
      this.#keyParts = [];
      this.#keyBytes = 0;
      this.#h.key(name);
      this.#expect = Expect.Colon;
    } else {
      this.#h.stringEnd();
      this.#afterValue();
    }
    return i + 1;
  }

  #piece(bytes: Uint8Array): void {
    if (this.#highSurrogate && bytes.length > 0) this.#flushSurrogate();
    if (this.#isKey) {
      this.#keyBytes += bytes.length;
      if (this.#keyBytes > MAX_KEY_BYTES) this.#fail(`a key longer than ${MAX_KEY_BYTES} bytes`, 0);
      this.#keyParts.push(Buffer.from(bytes));
    } else {
      this.#h.stringPiece(bytes);
    }
  }

  #escape(c: Uint8Array, i: number): number {
    const b = c[i]!;
    if (b === 0x75) {
      this.#mode = Mode.Unicode;
      this.#unicode = '';
      return i + 1;
    }
    const value = ESCAPES[b];
    if (value === undefined) this.#fail('an invalid escape sequence', i);
    this.#mode = Mode.String;
    this.#piece(Uint8Array.of(value));
    return i + 1;
  }

  #unicodeDigits(c: Uint8Array, start: number): number {
    let i = start;
    while (i < c.length && this.#unicode.length < 4) {
      const ch = String.fromCharCode(c[i]!);
      if (!/[0-9a-fA-F]/.test(ch)) this.#fail('an invalid \\u escape', i);
      this.#unicode += ch;
      i++;
    }
    if (this.#unicode.length < 4) return i;
    const code = Number.parseInt(this.#unicode, 16);
    this.#mode = Mode.String;
    if (code >= 0xd800 && code <= 0xdbff) {
      this.#flushSurrogate();
      this.#highSurrogate = code;
      return i;
    }
    if (code >= 0xdc00 && code <= 0xdfff && this.#highSurrogate) {
      const high = this.#highSurrogate;
      this.#highSurrogate = 0;
      this.#piece(Buffer.from(String.fromCharCode(high, code), 'utf8'));
      return i;
    }
    this.#piece(Buffer.from(String.fromCharCode(code), 'utf8'));
    return i;
  }

  /** A lone high surrogate becomes U+FFFD, as `JSON.parse` followed by UTF-8 encoding would give. */
  #flushSurrogate(): void {
    if (!this.#highSurrogate) return;
    this.#highSurrogate = 0;
    const bytes = Buffer.from('\ufffd', 'utf8');
    if (this.#isKey) this.#keyParts.push(bytes);
    else this.#h.stringPiece(bytes);
  }

  #word(c: Uint8Array, start: number): number {
    let i = start;
    while (i < c.length) {
      const b = c[i]!;
      const inWord =
        this.#mode === Mode.Number
          ? (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45
          : b >= 0x61 && b <= 0x7a;
      if (!inWord) break;
      i++;
    }
    this.#literal += Buffer.from(c.subarray(start, i)).toString('latin1');
    if (this.#literal.length > MAX_NUMBER_CHARS) this.#fail('a number or literal too long', i);
    if (i < c.length) {
      this.#finishWord(i);
    }
    return i;
  }

  #finishWord(at = 0): void {
    const text = this.#literal;
    this.#mode = Mode.Structure;
    this.#literal = '';
    let value: number | boolean | null;
    if (text === 'true') value = true;
    else if (text === 'false') value = false;
    else if (text === 'null') value = null;
    else if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) value = Number(text);
    else this.#fail('an invalid number or literal', at);
    this.#h.scalar(value);
    this.#afterValue();
  }
}
