import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli/main';
import type { CliIo } from '../../bin/cli/types';

/** An in-memory io in `cwd`; no service and no AWS is ever reached by these usage errors. */
function fakeIo(cwd = '/nonexistent') {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: {},
    cwd,
    fetch: (async () => {
      throw new Error('no request expected');
    }) as typeof fetch,
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

describe('idv flag errors', () => {
  it.each([
    [
      ['secure-link', 'create', '--prodcut', 'IDV_STANDARD'],
      "unknown flag --prodcut for 'secure-link create' (did you mean --product?)",
    ],
    [['secure-link', 'create', '--product'], "--product needs a value for 'secure-link create'"],
    [['results', 'list', '--local=yes'], "--local takes no value for 'results list'"],
    [['results', 'list', '--base-url', 'http://x'], "unknown flag --base-url for 'results list'"],
  ])('%j: exit 2, %s, no parser advice', async (argv, message) => {
    // Prepare
    const fake = fakeIo();

    // Act
    const code = await runCli(argv, fake.io);

    // Assess
    expect(code).toBe(2);
    expect(fake.stderr()).toContain(`idv: ${message}\n`);
    expect(fake.stderr()).not.toContain('To specify');
  });
});

describe('idv results and dlq help', () => {
  it('lists no service connection flags for results and dlq, and lower-case summaries like the rest', async () => {
    // Prepare
    const results = fakeIo();
    const dlq = fakeIo();
    const all = fakeIo();

    // Act
    await runCli(['results', '--help'], results.io);
    await runCli(['dlq', '--help'], dlq.io);
    await runCli(['--help'], all.io);

    // Assess
    expect(results.stdout()).toContain('results list');
    expect(results.stdout()).not.toContain('--base-url');
    expect(dlq.stdout()).toContain('dlq redrive');
    expect(dlq.stdout()).not.toContain('--base-url');
    // The full list still names them, for the commands that call the service.
    expect(all.stdout()).toContain('--base-url');
    const summaries = all
      .stdout()
      .split('\n')
      .filter((line) => /^ {2}[a-z]/.test(line))
      .map((line) => line.trim().split(/\s{2,}/)[1] ?? '');
    expect(summaries.length).toBeGreaterThan(10);
    for (const summary of summaries) expect(summary, summary).toMatch(/^[a-z]/);
  });
});

describe('idv results list filters', () => {
  it.each([
    [
      ['--product', 'IDV_STANDRAD'],
      '--product must be one of FACE_LINK, IDV_LITE, IDV_STANDARD, IDV_PREMIUM, RTW_STANDARD, RTW_PREMIUM (did you mean IDV_STANDARD?)',
    ],
    [
      ['--result', 'APROVED'],
      '--result must be one of UNKNOWN, APPROVED, DISAPPROVED, TECHNICAL_REJECT, UNAVAILABLE (did you mean APPROVED?)',
    ],
    [['--product', 'idv_standard'], '(did you mean IDV_STANDARD?)'],
    [['--since', '5'], '--since must be yyyy-MM-dd or an ISO timestamp (got "5")'],
    [['--since', 'March 5'], '--since must be yyyy-MM-dd or an ISO timestamp'],
    [['--until', '2026-02-30'], '--until must be yyyy-MM-dd or an ISO timestamp (got "2026-02-30")'],
    [['--until', '2026-13-01T00:00Z'], '--until must be yyyy-MM-dd or an ISO timestamp'],
  ])('refuses %j before opening any store: exit 2, %s', async (flags, message) => {
    // Prepare: --local on a directory without data would be a usage error of its own, checked later.
    const fake = fakeIo();

    // Act
    const code = await runCli(['results', 'list', '--local', ...flags], fake.io);

    // Assess
    expect(code).toBe(2);
    expect(fake.stderr()).toContain(message);
    expect(fake.stderr()).toContain('Run "idv results list --help"');
  });
});

describe('idv --local without local data', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'idv-no-local-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [['results', 'list', '--local'], '.local'],
    [['results', 'get', 'r-1', '--local'], '.local'],
    [['results', 'by-transaction', 't-1', '--local', '--data-dir', 'misspelt'], 'misspelt'],
    [['dlq', 'redrive', '--local'], '.local'],
  ])('%j in a directory without it: exit 2, says what to do, creates nothing', async (argv, name) => {
    // Prepare: like running `npx idv` from docs/ instead of the repository root.
    const fake = fakeIo(dir);

    // Act
    const code = await runCli(argv, fake.io);

    // Assess
    expect(code).toBe(2);
    expect(fake.stderr()).toContain(
      `idv: no local data at ${join(dir, name)}: run \`npm start\` first (in the repository root), or pass --data-dir`,
    );
    expect(existsSync(join(dir, name))).toBe(false);
    expect(fake.stdout()).toBe('');
  });
});
