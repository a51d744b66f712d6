/**
 * Text from a service, an event or a user made safe for a terminal and a spreadsheet. A value printed
 * raw can carry escape sequences (`ESC ]0;…BEL` retitles the window, `ESC [2J` clears the screen) or
 * reorder what a reader sees (bidirectional overrides); a CSV cell that starts with `=`, `+`, `-`, `@`, a
 * tab or a CR is run as a formula by a spreadsheet (OWASP, "CSV Injection").
 */

/** C0 controls, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * `text` with every control character written as an escape (`\x1b`, `\n`, `\u202e`), so printing it
 * shows the character instead of obeying it. Other text, including non-Latin letters, is unchanged.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

/** Characters that make a spreadsheet read a cell as a formula when they come first. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** `cell` with a leading `'` when a spreadsheet would read it as a formula (OWASP's neutralisation). */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** Lines of `text` each through {@link escapeControls}: the line breaks stay, every other control is shown. */
export function escapeControlsByLine(text: string): string {
  return text.split('\n').map(escapeControls).join('\n');
}
