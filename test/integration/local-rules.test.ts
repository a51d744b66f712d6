import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAIL_TYPES } from '../../shared/events/names';
import { run } from '../support/run-process';

const npmStart = (...args: string[]) => run('npm', ['start', '--silent', '--', '--port', '0', ...args]);
const jsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line) => JSON.parse(line) as { id: string; 'detail-type': string; detail: Record<string, unknown> },
    );

describe('npm start --rule', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-local-rules-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('marks and collects exactly the DISAPPROVED events of a demo run (rules/disapproved.json)', async () => {
    // Act: 8 demo transactions include a DISAPPROVED mock-test one; the others vary.
    const result = await npmStart(
      '--demo',
      '8',
      '--exit-when-done',
      '--rule',
      'rules/disapproved.json',
      '--data-dir',
      dataDir,
      '--seed',
      '7',
      '--timeout',
      '120',
    );

    // Assess
    expect(result.code, result.stderr).toBe(0);
    const all = jsonLines(join(dataDir, 'events.jsonl'));
    const expected = all.filter(
      (event) =>
        event['detail-type'] === DETAIL_TYPES.resultStored && event.detail['result'] === 'DISAPPROVED',
    );
    const collected = jsonLines(join(dataDir, 'rules', 'disapproved.jsonl'));
    expect(expected.length).toBeGreaterThan(0);
    expect(collected.map((event) => event.id)).toEqual(expected.map((event) => event.id));
    expect(result.summary).toMatchObject({ exit: 'done', rules: { disapproved: expected.length } });
    const marked = result.stdout.split('\n').filter((line) => line.endsWith('→ disapproved'));
    expect(marked).toHaveLength(expected.length);
    expect(marked.every((line) => line.includes('DISAPPROVED'))).toBe(true);
    expect(result.stdout).toContain(`rule:     disapproved → ${join(dataDir, 'rules', 'disapproved.jsonl')}`);
    // The run's own --timeout bounds it; the test waits that long, and a little more for the exit.
  }, 150_000);

  it('stops before anything runs when a rule file is invalid, naming the file and the path', async () => {
    // Prepare
    const bad = join(dataDir, 'bad-rule.json');
    writeFileSync(bad, JSON.stringify({ detail: { result: 'DISAPPROVED' } }));
    const fresh = join(dataDir, 'never-created');

    // Act
    const result = await npmStart('--once', '--rule', bad, '--data-dir', fresh);

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`--rule ${bad}: Event pattern is not valid. Reason:`);
    expect(result.stderr).toContain('at detail.result');
    expect(existsSync(fresh)).toBe(false);
  });
});
