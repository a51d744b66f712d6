/**
 * Every output format is safe, through every command that prints service data (shared/terminal-text.ts,
 * bin/cli/output-format.ts): a stored result whose customer reference and transaction id carry a window
 * retitle, a screen clear, a C1 CSI, DEL, bidi overrides and isolates, and a formula behind a blank, is
 * printed by `results list` (JSON, table, CSV), `results get`, `results by-reference`, `results trace`,
 * `analytics query` (JSON, table, CSV) and `events tail --local`. No output holds a raw C0/C1 control or
 * bidi character (line feeds between lines aside), JSON stays JSON with the same value, and the CSV cell
 * is neutralised.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { augustList, runIdvInProcess } from '../support/cli';
import { putStoredResult, startLocalStore } from '../support/local-store';
import { ROOT } from '../support/run-process';

/** A window title, a cleared screen, a C1 CSI, a bell, DEL, a right-to-left override and an isolate. */
const HOSTILE = 'ref\u001b]0;pwned\u0007\u001b[2J\u009b31m\u007f\u202e\u2066end\u2069\u202a\u202d';
/** The customer reference: a formula behind a blank, then the controls. */
const REFERENCE = ` =3+3${HOSTILE}`;
const RESULT_ID = 'res-hostile-1';
/** Any raw C0 (line feed excepted), DEL, C1 or bidi control. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const dataDir = mkdtempSync(join(tmpdir(), 'idv-hostile-output-'));

beforeAll(async () => {
  const local = await startLocalStore('idv-local', { dataDir });
  try {
    await putStoredResult(
      local,
      { resultId: RESULT_ID, product: 'IDV_STANDARD', completed: '2026-08-10T12:00:00Z' },
      { transactionId: `tx-${HOSTILE}`, customerReference: REFERENCE, result: 'APPROVED' },
    );
  } finally {
    await local.close();
  }
  // An event line as the local bus records it, carrying the same values.
  appendFileSync(
    join(dataDir, 'events.jsonl'),
    `${JSON.stringify({ 'detail-type': 'VerificationResultStored', detail: { resultId: RESULT_ID, customerReference: REFERENCE } })}\n`,
  );
}, 120_000);

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const local = ['--local', '--data-dir', dataDir];

/** `idv events tail --local --from-start` until its first line, then Ctrl-C. */
function tailFirstLine(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/idv.mjs', 'events', 'tail', '--from-start', ...local], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) child.kill('SIGINT');
    });
    child.on('exit', () => resolve(out));
    child.on('error', reject);
  });
}

describe('service data in every output format', () => {
  it('prints no raw control or bidi character, keeps JSON valid, neutralises the CSV formula', async () => {
    // Act: one after the other (each --local command opens the emulators' files).
    const printed: Record<string, string> = {};
    const run = async (name: string, ...args: string[]) => {
      const answer = await runIdvInProcess(args);
      expect(answer.code, `${name}: ${answer.err}`).toBe(0);
      printed[name] = answer.out;
    };
    for (const format of ['json', 'table', 'csv'])
      await run(`results list ${format}`, ...augustList(format), ...local);
    await run('results get', 'results', 'get', RESULT_ID, ...local);
    await run('results by-reference', 'results', 'by-reference', REFERENCE, ...local);
    await run('results trace', 'results', 'trace', RESULT_ID, ...local);
    const sql = `SELECT ${sqlText(REFERENCE)} AS ref, ${sqlText(`tx-${HOSTILE}`)} AS tx`;
    for (const format of ['json', 'table', 'csv'])
      await run(`analytics query ${format}`, 'analytics', 'query', '--format', format, ...local, sql);
    printed['events tail'] = await tailFirstLine();

    // Assess
    for (const [name, text] of Object.entries(printed)) {
      expect(text.length, name).toBeGreaterThan(0);
      expect(RAW.test(text), `${name}: ${JSON.stringify(text)}`).toBe(false);
    }
    expect(JSON.parse(printed['results list json']!)).toEqual([
      expect.objectContaining({ resultId: RESULT_ID, customerReference: REFERENCE }),
    ]);
    expect(JSON.parse(printed['analytics query json']!)).toEqual([{ ref: REFERENCE, tx: `tx-${HOSTILE}` }]);
    expect(JSON.parse(printed['events tail']!).detail.customerReference).toBe(REFERENCE);
    expect(printed['results get']).toContain(RESULT_ID);
    expect(printed['results by-reference']).toContain(RESULT_ID);
    for (const name of ['results list csv', 'analytics query csv'])
      expect(printed[name], name).toContain("' =3+3ref\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x7f\\u202e");
    expect(printed['results list table']).toContain('=3+3ref\\x1b]0;pwned');
  }, 180_000);
});

/** `text` as a SQL string literal (DuckDB: quotes doubled; controls through chr()). */
function sqlText(text: string): string {
  return [...text]
    .map((c) =>
      c.charCodeAt(0) < 0x20 || c.charCodeAt(0) >= 0x7f
        ? `chr(${c.codePointAt(0)})`
        : `'${c.replace(/'/g, "''")}'`,
    )
    .join(' || ');
}
