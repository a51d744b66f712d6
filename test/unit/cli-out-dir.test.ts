/**
 * `--out DIR` inside a git work tree warns unless git ignores the folder: a result's images and
 * result.json hold personal data and must not be committed by accident.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitWorkTreeOf, warnIfCommittable } from '../../bin/cli/out-dir';
import type { CliIo } from '../../bin/cli/types';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ioCollecting(): { io: CliIo; err: string[] } {
  const err: string[] = [];
  return { io: { stdout: () => {}, stderr: (t) => err.push(t), env: {}, cwd: '/' }, err };
}

function repository(ignore: string): string {
  const root = mkdtempSync(join(tmpdir(), 'idv-out-'));
  made.push(root);
  spawnSync('git', ['init', '-q', root]);
  writeFileSync(join(root, '.gitignore'), ignore);
  return root;
}

describe('--out inside a git work tree', () => {
  it('warns for a folder git would commit, naming the work tree', () => {
    // Prepare
    const root = repository('/result/\n');
    const { io, err } = ioCollecting();

    // Act
    warnIfCommittable(join(root, 'images', 'tx-1'), io);

    // Assess
    expect(gitWorkTreeOf(join(root, 'images', 'tx-1'))).toBe(root);
    expect(err.join('')).toContain(`inside the git work tree ${root} and not ignored`);
  });

  it('stays quiet for an ignored folder and outside any work tree', () => {
    // Prepare
    const root = repository('/result/\n');
    const outside = mkdtempSync(join(tmpdir(), 'idv-out-plain-'));
    made.push(outside);
    mkdirSync(join(outside, 'r'));
    const { io, err } = ioCollecting();

    // Act
    warnIfCommittable(join(root, 'result'), io);
    warnIfCommittable(join(outside, 'r'), io);

    // Assess
    expect(err).toEqual([]);
  });
});
