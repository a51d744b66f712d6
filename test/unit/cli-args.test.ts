import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { closest, describeArgsError, editDistance, wholeNumber } from '../../shared/args';

const OPTIONS = {
  product: { type: 'string' },
  'customer-reference': { type: 'string' },
  once: { type: 'boolean' },
} as const;

/** The error `parseArgs` throws for `args` (strict, positionals allowed as in `idv`). */
function parseError(args: string[], allowPositionals = true): unknown {
  try {
    parseArgs({ args, options: OPTIONS, strict: true, allowPositionals });
  } catch (error) {
    return error;
  }
  throw new Error('parseArgs accepted the arguments');
}

describe('describeArgsError', () => {
  it.each([
    [['--prodcut', 'X'], "unknown flag --prodcut for 'secure-link create' (did you mean --product?)"],
    [
      ['--customer-refrence', 'r'],
      "unknown flag --customer-refrence for 'secure-link create' (did you mean --customer-reference?)",
    ],
    [['--frobnicate'], "unknown flag --frobnicate for 'secure-link create'"],
    [['-x'], "unknown flag -x for 'secure-link create'"],
    [['--product'], "--product needs a value for 'secure-link create'"],
    [
      ['--product', '--once'],
      `--product needs a value for 'secure-link create' (for one starting with "-", write --product=VALUE)`,
    ],
    [['--once=yes'], "--once takes no value for 'secure-link create'"],
  ])('%j → %s', (args, message) => {
    // Act
    const text = describeArgsError(parseError(args), OPTIONS, 'secure-link create');

    // Assess
    expect(text).toBe(message);
    expect(text).not.toContain('To specify');
  });

  it('names an unexpected argument, and leaves out the command when none is given', () => {
    // Act
    const text = describeArgsError(parseError(['extra'], false), OPTIONS);

    // Assess
    expect(text).toBe('unexpected argument "extra"');
  });

  it('keeps only the first line of an error it does not know', () => {
    // Act
    const text = describeArgsError(new Error('something odd\nparser advice'), OPTIONS);

    // Assess
    expect(text).toBe('something odd');
  });
});

describe('closest and editDistance', () => {
  it('counts a swap of neighbours once and suggests only within distance 2', () => {
    // Assess
    expect(editDistance('prodcut', 'product')).toBe(1);
    expect(editDistance('port', 'prt')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(closest('prot', ['port', 'once'])).toBe('port');
    expect(closest('IDV_STANDRAD', ['IDV_LITE', 'IDV_STANDARD'])).toBe('IDV_STANDARD');
    expect(closest('verbose', ['port', 'once'])).toBeUndefined();
  });
});

describe('wholeNumber', () => {
  it.each([
    ['99999', 'problem'],
    ['-1', 'problem'],
    ['', 'problem'],
    ['0x10', 'problem'],
    ['1e3', 'problem'],
    ['3.5', 'problem'],
    ['65535', 65535],
    ['0', 0],
  ])('--port %j → %s', (value, expected) => {
    // Act
    const parsed = wholeNumber('port', value, 0, 65535);

    // Assess
    if (expected === 'problem') {
      expect(parsed).toEqual({ problem: '--port must be a whole number from 0 to 65535' });
    } else {
      expect(parsed).toEqual({ value: expected });
    }
  });

  it('is undefined when the flag is absent', () => {
    // Assess
    expect(wholeNumber('port', undefined, 0, 65535)).toEqual({ value: undefined });
  });
});
