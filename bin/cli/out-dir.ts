/**
 * `--out DIR` of `service result get` and `results get`: the folder receives a result's images and
 * `result.json`, personal data. The files are written owner-only (0600, the folder 0700); a folder
 * inside a git work tree that git does not ignore gets a warning, so no one commits an identity document.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CliIo } from './types';

/** The root of the git work tree holding `dir` (the nearest folder with `.git`), or undefined. */
export function gitWorkTreeOf(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** Whether git ignores `dir` in `root` (`git check-ignore`); false when git cannot say. */
function ignoredByGit(root: string, dir: string): boolean {
  // A trailing slash: the folder may not exist yet, and `/result/` patterns match folders only.
  const check = spawnSync('git', ['-C', root, 'check-ignore', '-q', '--', `${dir}/`], {
    stdio: 'ignore',
    timeout: 5000,
  });
  return check.status === 0;
}

/** Warns on stderr when `dir` is inside a git work tree and not ignored there. */
export function warnIfCommittable(dir: string, io: CliIo): void {
  const root = gitWorkTreeOf(dir);
  if (root === undefined || ignoredByGit(root, dir)) return;
  io.stderr(
    `idv: warning: --out ${dir} is inside the git work tree ${root} and not ignored: the result's images ` +
      'and result.json hold personal data; add the folder to .gitignore or write outside the repository\n',
  );
}
