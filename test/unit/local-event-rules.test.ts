import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalRuleSet, loadRuleFiles, ruleMarks } from '../../local/event-rules';
import { parseStartArgs } from '../../local/start-args';
import { RuleDocumentError } from '../../shared/events/rule-document';

let dir: string;
const write = (name: string, value: unknown) =>
  writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
const event = (result: string, product = 'IDV_STANDARD') => ({
  source: 'idv.pipeline',
  'detail-type': 'VerificationResultStored',
  detail: { resultId: `r-${result}`, result, product },
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'idv-rules-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadRuleFiles', () => {
  it('reads a bare pattern (named after the file) and a rule object with a JSON-string EventPattern', () => {
    // Prepare
    write('disapproved.json', { detail: { result: ['DISAPPROVED'] } });
    write('rtw.json', { Name: 'right-to-work', EventPattern: '{"detail":{"product":[{"prefix":"RTW_"}]}}' });

    // Act
    const rules = loadRuleFiles(['disapproved.json', 'rtw.json'], join(dir, 'data'), dir);

    // Assess
    expect(rules.map((rule) => [rule.name, rule.outputFile])).toEqual([
      ['disapproved', join(dir, 'data', 'rules', 'disapproved.jsonl')],
      ['right-to-work', join(dir, 'data', 'rules', 'right-to-work.jsonl')],
    ]);
  });

  it.each([
    ['missing.json', undefined, /--rule missing.json: no such file/],
    ['broken.json', '{"detail": ', /--rule broken.json: not valid JSON/],
    [
      'bad.json',
      { detail: { result: 'DISAPPROVED' } },
      /--rule bad.json: Event pattern is not valid\. Reason: .* at detail\.result/,
    ],
    [
      'named.json',
      { Name: 'no spaces allowed', EventPattern: { source: ['x'] } },
      /rule name "no spaces allowed"/,
    ],
  ])('refuses %s naming the file and the problem', (file, content, message) => {
    if (content !== undefined) write(file, content);

    expect(() => loadRuleFiles([file], dir, dir)).toThrow(RuleDocumentError);
    expect(() => loadRuleFiles([file], dir, dir)).toThrow(message);
  });

  it('refuses two rules with one name', () => {
    write('a.json', { Name: 'same', EventPattern: { source: ['x'] } });
    write('b.json', { Name: 'same', EventPattern: { source: ['y'] } });

    expect(() => loadRuleFiles(['a.json', 'b.json'], dir, dir)).toThrow(/a second rule named "same"/);
  });
});

describe('LocalRuleSet', () => {
  it('appends each matching event to its rule’s file and names the rules matched', () => {
    // Prepare
    write('disapproved.json', { detail: { result: ['DISAPPROVED'] } });
    write('rtw.json', { detail: { product: [{ prefix: 'RTW_' }] } });
    const set = new LocalRuleSet(loadRuleFiles(['disapproved.json', 'rtw.json'], join(dir, 'data'), dir));

    // Act
    const matched = [
      set.apply(event('DISAPPROVED', 'RTW_PREMIUM')),
      set.apply(event('APPROVED')),
      set.apply(event('DISAPPROVED')),
    ];

    // Assess
    expect(matched).toEqual([['disapproved', 'rtw'], [], ['disapproved']]);
    expect(ruleMarks(matched[0]!)).toBe('  → disapproved, rtw');
    expect(ruleMarks([])).toBe('');
    const lines = readFileSync(join(dir, 'data', 'rules', 'disapproved.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((line) => JSON.parse(line).detail.resultId)).toEqual(['r-DISAPPROVED', 'r-DISAPPROVED']);
    expect(set.counts()).toEqual({ disapproved: 2, rtw: 1 });
  });
});

describe('npm start --rule', () => {
  it('is repeatable and defaults to no rules', () => {
    expect(parseStartArgs(['--rule', 'a.json', '--rule', 'b.json'])).toMatchObject({
      kind: 'run',
      options: { ruleFiles: ['a.json', 'b.json'] },
    });
    expect(parseStartArgs([])).toMatchObject({ kind: 'run', options: { ruleFiles: [] } });
  });
});
