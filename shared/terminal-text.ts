/**
 * Text from a service, an event or a user made safe for a terminal and a spreadsheet. A value printed
 * raw can carry escape sequences (`ESC ]0;…BEL` retitles the window, `ESC [2J` clears the screen, the C1
 * `U+009B` is a one-character CSI) or reorder what a reader sees (bidirectional overrides); a CSV cell
 * whose first non-blank character is `=`, `+`, `-` or `@`, or that starts with a tab or a CR, is run as a
 * formula by a spreadsheet (OWASP, "CSV Injection").
 *
 * {@link safeText} is the one function every output format goes through (`idv`'s JSON answers, its
 * tables and CSV, the `npm start` screen): the same characters are unsafe in each, only the way they
 * are written differs — `\x1b` in a table or CSV cell, `\u001b` in JSON, so JSON stays JSON.
 */

/** C0 controls, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The same set in serialized JSON, line feed excepted: `JSON.stringify` writes every C0 control inside a
 * string as an escape, so a raw line feed there is the indentation, never data.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE_IN_JSON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * What makes a spreadsheet read a cell as a formula: `=`, `+`, `-` or `@` after any blanks (spreadsheets
 * trim them), or a leading tab or CR.
 */
const FORMULA_START = /^[\s\u00a0\u3000\ufeff]*[=+\-@\uff1d\uff0b\uff0d\uff20]|^[\t\r]/;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Where text is printed: a terminal (plain text, tables), a CSV cell, or serialized JSON. */
export type TextSink = 'terminal' | 'csv' | 'json';

/**
 * `text` safe for `sink`, the one function of every output format:
 * - `terminal`: every unsafe character written as an escape (`\x1b`, `\n`, `\u202e`), so printing it shows
 *   the character instead of obeying it. Other text, including non-Latin letters, is unchanged.
 * - `csv`: the same, then a leading `'` when a spreadsheet would read the cell as a formula, leading
 *   blanks included (` =3+3`).
 * - `json`: `text` is serialized JSON (`JSON.stringify`'s output); every unsafe character left raw in it
 *   (DEL, C1, bidirectional controls) becomes a `\uXXXX` escape, so it parses to the same value.
 */
export function safeText(text: string, sink: TextSink): string {
  if (sink === 'json')
    return text.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const escaped = text.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
  return sink === 'csv' && FORMULA_START.test(text) ? `'${escaped}` : escaped;
}

/** Text for a terminal: {@link safeText} with the `terminal` sink. */
export function escapeControls(text: string): string {
  return safeText(text, 'terminal');
}

/** `value` as JSON (`JSON.stringify` with `indent`) with no raw control or bidi character: {@link safeText}. */
export function safeJson(value: unknown, indent?: number): string {
  return safeText(JSON.stringify(value, null, indent), 'json');
}

/** Lines of `text` each through {@link escapeControls}: the line breaks stay, every other control is shown. */
export function escapeControlsByLine(text: string): string {
  return text.split('\n').map(escapeControls).join('\n');
}
