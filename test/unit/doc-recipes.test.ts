/**
 * Every shell recipe of the documentation is accounted for (test/support/doc-recipes.ts): each command of
 * a fenced `sh` block in any Markdown file is run by test/integration/docs-recipes.test.ts, has its flags
 * checked here (a benchmark), or is listed as not offline with its reason. A new command that is none of
 * these fails here, so the docs cannot rot silently.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_FLAGS, bundleOptionsFromValues } from '../../bench/bundles';
import { cliStartOptions } from '../../bench/cli-start';
import { fetchOptionsFromValues } from '../../bench/fetch-result';
import { FETCH_FLAGS, parseBenchArgs } from '../../bench/support/args';
import { RUN_FLAGS, runOptionsFromValues } from '../../bench/support/run-args';
import {
  allRecipeBlocks,
  classify,
  commandParts,
  NOT_OFFLINE,
  recipeBlocks,
  shellWords,
  withoutAssignments,
  withoutOptionalParts,
} from '../support/doc-recipes';

const commands = allRecipeBlocks().flatMap((block) =>
  block.commands.flatMap((command) =>
    commandParts(command.text).map((part) => ({ where: `${command.file}:${command.line}`, part })),
  ),
);

describe('the documentation recipes', () => {
  it('finds the fenced shell commands of the README, docs/ and the other READMEs', () => {
    // Assess
    const files = new Set(commands.map((c) => c.where.split(':')[0]));
    for (const file of ['README.md', 'docs/local-run.md', 'bin/cli/README.md', 'simulator/README.md']) {
      expect(files).toContain(file);
    }
    expect(commands.length).toBeGreaterThan(50);
  });

  it('runs every command, checks its flags or names why it cannot run offline', () => {
    // Act
    const unclassified = commands.filter((c) => classify(c.part).kind === 'unclassified');

    // Assess: add a rule to test/support/doc-recipes.ts (runnable, or NOT_OFFLINE with its reason).
    expect(unclassified.map((c) => `${c.where}: ${c.part}`)).toEqual([]);
  });

  it('keeps no excuse that no recipe needs', () => {
    // Act
    const unused = NOT_OFFLINE.filter(
      (rule) =>
        !commands.some(
          (c) =>
            classify(c.part).kind === 'not-offline' &&
            (rule.pattern.test(c.part) || rule.pattern.test(withoutAssignments(c.part))),
        ),
    );

    // Assess
    expect(unused.map((rule) => String(rule.pattern))).toEqual([]);
  });

  it('documents only benchmark command lines their parser accepts', () => {
    // Prepare
    const benches = commands.filter((c) => classify(c.part).kind === 'bench-flags');

    // Act
    const refused = benches.filter(({ part }) => {
      const [runner, , ...rest] = shellWords(withoutAssignments(part), {});
      // `npm run bench -- ARGS` or `npx tsx bench/NAME.ts ARGS`
      const script = runner === 'npm' ? 'bench/run.ts' : rest[0];
      const argv = runner === 'npm' ? rest.slice(rest[1] === '--' ? 2 : 1) : rest.slice(1);
      let parsed: { kind: string };
      if (script === 'bench/run.ts') {
        // `npm run bench -- NAME` is `--only NAME` (bench/run.ts).
        const words = argv;
        const first = words[0];
        const benchArgv = first !== undefined && !first.startsWith('-') ? ['--only', ...words] : words;
        parsed = parseBenchArgs(benchArgv, RUN_FLAGS, runOptionsFromValues);
      } else if (script === 'bench/fetch-result.ts') {
        parsed = parseBenchArgs(argv, FETCH_FLAGS, fetchOptionsFromValues);
      } else if (script === 'bench/bundles.ts') {
        parsed = parseBenchArgs(argv, BUNDLE_FLAGS, bundleOptionsFromValues);
      } else if (script === 'bench/cli-start.ts') {
        parsed = cliStartOptions(argv);
      } else {
        parsed = { kind: 'no parser' };
      }
      return parsed.kind !== 'run';
    });

    // Assess
    expect(benches.length).toBeGreaterThan(5);
    expect(refused.map((c) => `${c.where}: ${c.part}`)).toEqual([]);
  });
});

describe('reading a recipe', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idv-recipes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('joins continuation lines, drops comment lines and keeps each trailing comment apart', () => {
    // Prepare
    writeFileSync(
      join(dir, 'doc.md'),
      [
        'text',
        '```sh',
        '# a comment line',
        'npx idv results get RESULT_ID --local   # the item',
        'IDV_BASE_URL=http://127.0.0.1:4010 \\',
        '  npx idv poll "a # not a comment"',
        '```',
        '```json',
        '{"not": "a command"}',
        '```',
      ].join('\n'),
    );

    // Act
    const blocks = recipeBlocks('doc.md', dir);

    // Assess
    expect(blocks).toEqual([
      {
        file: 'doc.md',
        line: 2,
        commands: [
          { file: 'doc.md', line: 4, text: 'npx idv results get RESULT_ID --local', comment: 'the item' },
          {
            file: 'doc.md',
            line: 5,
            text: 'IDV_BASE_URL=http://127.0.0.1:4010 npx idv poll "a # not a comment"',
            comment: '',
          },
        ],
      },
    ]);
  });

  it('splits an && list outside quotes only, and drops the optional parts of a synopsis', () => {
    // Assess
    expect(commandParts('npm ci && npm start')).toEqual(['npm ci', 'npm start']);
    expect(commandParts(`aws x --query "a && b"`)).toEqual([`aws x --query "a && b"`]);
    expect(withoutOptionalParts('npx idv results list --local [--since D] [--format table|csv]')).toBe(
      'npx idv results list --local',
    );
  });

  it('splits words as a shell does, expanding variables outside single quotes', () => {
    // Assess
    expect(shellWords(`curl -s "$URL/x?id=F" '$URL' \${URL}/y a\\ b`, { URL: 'http://h' })).toEqual([
      'curl',
      '-s',
      'http://h/x?id=F',
      '$URL',
      'http://h/y',
      'a b',
    ]);
  });

  it('tells an idv command on AWS from a local one', () => {
    // Assess
    expect(classify('npx idv results list --local')).toEqual({ kind: 'run', runner: 'idv' });
    expect(classify('npx idv results list --stack IdvPipeline-staging').kind).toBe('not-offline');
    expect(classify('IDV_BASE_URL=http://127.0.0.1:4010 npx idv poll')).toEqual({
      kind: 'run',
      runner: 'idv',
    });
    expect(classify('S=$(node -p 1)')).toEqual({ kind: 'run', runner: 'shell' });
    expect(classify('make love')).toEqual({ kind: 'unclassified' });
  });
});
