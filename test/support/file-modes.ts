/** Permission bits of what a process left on disk, for the tests that check its files stay private. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every path under `dir` with its permission bits. */
export function modes(dir: string): { path: string; mode: number; dir: boolean }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    const own = { path, mode: stat.mode & 0o777, dir: stat.isDirectory() };
    return stat.isDirectory() ? [own, ...modes(path)] : [own];
  });
}
