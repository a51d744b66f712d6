/**
 * Service and user values cannot drive the terminal or a spreadsheet: table and CSV output and the
 * `npm start` screen show control characters as escapes, JSON writes them as `\uXXXX` (and stays JSON),
 * CSV neutralises cells a spreadsheet would run as formulas, leading blanks included
 * (bin/cli/output-format.ts, local/run-report.ts, shared/terminal-text.ts).
 */
import { describe, expect, it } from 'vitest';
import { formatRows, toCsv, toTable } from '../../bin/cli/output-format';
import { escapedLines, formatEventLine } from '../../local/run-report';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { escapeControls, escapeControlsByLine, safeJson, safeText } from '../../shared/terminal-text';

/** A window title, a cleared screen, a C1 CSI, a bell and a right-to-left override. */
const HOSTILE = 'ref\u001b]0;pwned\u0007\u001b[2J\u009b31m\u007f\u202eend';
/** No C0, DEL, C1 or bidi control left. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('escapeControls', () => {
  it('writes every control character as an escape and leaves other text alone', () => {
    // Act
    const text = escapeControls(HOSTILE);

    // Assess
    expect(text).toBe('ref\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x7f\\u202eend');
    expect(escapeControls('Zoë 山田 ✔ tab\there')).toBe('Zoë 山田 ✔ tab\\there');
  });

  it('keeps the line breaks of a plain-text report and escapes the rest', () => {
    // Assess
    expect(escapeControlsByLine(`Top reject reasons:\n  3  ${HOSTILE}\n`)).toBe(
      'Top reject reasons:\n  3  ref\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x7f\\u202eend\n',
    );
  });
});

describe('table output', () => {
  it('shows escape sequences in values and column names as text', () => {
    // Act
    const table = toTable(
      ['customer_reference', `x\u001b[2J`],
      [{ customer_reference: HOSTILE, 'x\u001b[2J': 1 }],
    );

    // Assess
    expect(table.split('\n').filter((line) => CONTROL.test(line))).toEqual([]);
    expect(table).toContain('ref\\x1b]0;pwned\\x07\\x1b[2J');
  });
});

describe('CSV output', () => {
  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1+2', "'+1+2"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\\t=1"],
    ['\r=1', "'\\r=1"],
    [' =3+3', "' =3+3"],
    ['\u00a0\u00a0+1', "'\u00a0\u00a0+1"],
    ['  -2', "'  -2"],
    ['a=1', 'a=1'],
    ['plain', 'plain'],
  ])('neutralises %j as a text cell', (value, cell) => {
    // Act
    const csv = toCsv(['ref'], [{ ref: value }]);

    // Assess
    expect(csv).toBe(`ref\n${cell}\n`);
  });

  it('writes control and bidi characters as escapes, a line break included', () => {
    // Act
    const csv = toCsv(['ref', `x\u001b[2J`], [{ ref: HOSTILE, 'x\u001b[2J': 'a\nb\u2066c' }]);

    // Assess
    expect(csv.replace(/\n/g, '')).not.toMatch(CONTROL);
    expect(csv).toBe('ref,x\\x1b[2J\nref\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x7f\\u202eend,a\\nb\\u2066c\n');
  });

  it('keeps numbers, negative ones included, as numbers', () => {
    // Assess
    expect(toCsv(['n'], [{ n: -3 }])).toBe('n\n-3\n');
  });
});

describe('JSON output', () => {
  it('writes every control and bidi character as \\uXXXX and stays the same JSON', () => {
    // Prepare
    const value = { ref: HOSTILE, [`k\u009b`]: ['\u2066x\u2069', '\u202a\u202b\u202c\u202d'], n: 1 };

    // Act
    const rows = formatRows('json', ['ref'], [{ ref: HOSTILE }]);
    const answer = safeJson(value, 2);

    // Assess
    for (const text of [rows, answer]) expect(text.replace(/\n/g, '')).not.toMatch(CONTROL);
    expect(JSON.parse(answer)).toEqual(value);
    expect(JSON.parse(rows)).toEqual([{ ref: HOSTILE }]);
    expect(answer).toContain('ref\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u007f\\u202eend');
  });

  it('is one function for every format (safeText)', () => {
    // Assess
    expect(safeText(HOSTILE, 'terminal')).toBe(escapeControls(HOSTILE));
    expect(safeText(` =${HOSTILE}`, 'csv')).toBe(`' =${escapeControls(HOSTILE)}`);
    expect(safeText(JSON.stringify(HOSTILE), 'json')).toBe(
      '"ref\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u007f\\u202eend"',
    );
  });
});

describe('the npm start screen', () => {
  it('prints a service value of an event line with its control characters escaped', () => {
    // Act
    const line = formatEventLine({
      id: 'e',
      time: '2026-01-01T00:00:00.000Z',
      source: EVENT_SOURCE,
      'detail-type': DETAIL_TYPES.resultStored,
      detail: { resultId: 'r-1', product: 'IDV_STANDARD', result: 'APPROVED', transactionId: HOSTILE },
      eventBusName: 'bus',
      resources: [],
    });

    // Assess
    expect(line).not.toMatch(CONTROL);
    expect(line).toContain('tx=ref\\x1b]0;pwned');
  });

  it('escapes every line the run prints, on stdout and stderr', () => {
    // Prepare
    const printed: string[] = [];
    const io = escapedLines({
      out: (line: string) => printed.push(line),
      err: (line: string) => printed.push(line),
    });

    // Act
    io.out(`✖ to DLQ ${HOSTILE}`);
    io.err(HOSTILE);

    // Assess
    expect(printed.filter((line) => CONTROL.test(line))).toEqual([]);
    expect(printed[0]).toContain('✖ to DLQ ref\\x1b');
  });
});
