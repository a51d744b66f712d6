/**
 * Service and user values cannot drive the terminal or a spreadsheet: table output and the `npm start`
 * screen show control characters as escapes, CSV neutralises cells a spreadsheet would run as formulas
 * (bin/cli/output-format.ts, local/run-report.ts, shared/terminal-text.ts).
 */
import { describe, expect, it } from 'vitest';
import { toCsv, toTable } from '../../bin/cli/output-format';
import { escapedLines, formatEventLine } from '../../local/run-report';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../shared/events/names';
import { escapeControls, escapeControlsByLine } from '../../shared/terminal-text';

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
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ['plain', 'plain'],
  ])('neutralises %j as a text cell', (value, cell) => {
    // Act
    const csv = toCsv(['ref'], [{ ref: value }]);

    // Assess
    expect(csv).toBe(`ref\n${cell}\n`);
  });

  it('keeps numbers, negative ones included, as numbers', () => {
    // Assess
    expect(toCsv(['n'], [{ n: -3 }])).toBe('n\n-3\n');
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
