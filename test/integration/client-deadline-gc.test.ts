/**
 * The deadline of a streamed result holds on every Node the project runs on, GC or not: against a body
 * dripping one byte every 300 ms, a read with a 2 s deadline ends with a timed-out ConnectionError near the
 * deadline and the service sees the socket closed. And a body left unread across GCs (fetch-result opens
 * it, then claims the publication, then reads) is still read whole: fetch cancels the body of a Response
 * it finds unreachable, which an unread body was before the client locked it at once. Run in a child
 * process with `--expose-gc`, once on the system `node` and once on the project's own
 * `node_modules/.bin/node` when it is installed.
 */
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dripAnswer,
  type HostileService,
  jsonAnswer,
  startHostileService,
} from '../../bench/support/hostile-service';
import { ROOT } from '../support/run-process';

const DEADLINE_MS = 2_000;

/** The first `node` on PATH outside any node_modules, then the usual system places. */
function systemNode(): string | undefined {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((d) => d && !d.includes('node_modules'));
  const candidates = [...dirs.map((d) => join(d, 'node')), '/usr/local/bin/node', '/usr/bin/node'];
  return candidates.find((c) => existsSync(c));
}

const bundled = join(ROOT, 'node_modules', '.bin', 'node');
const nodes = [
  ['system node', systemNode()],
  ['project node', existsSync(bundled) ? bundled : undefined],
].filter((entry): entry is [string, string] => entry[1] !== undefined);
// The same binary twice (a PATH that leads to the project's node) is run once.
const distinct = nodes.filter(
  ([, bin], i) => nodes.findIndex(([, b]) => realpathSync(b) === realpathSync(bin)) === i,
);

function runChild(node: string, url: string, unreadMs = 0): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      node,
      [
        '--expose-gc',
        '--import',
        'tsx',
        join('test', 'support', 'stream-deadline-child.ts'),
        url,
        String(DEADLINE_MS),
        String(unreadMs),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    // A read that never ends is the failure this test looks for: stop it well past the bound.
    const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS + 15_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch {
        reject(new Error(`child printed no outcome (stderr: ${stderr.slice(0, 500)})`));
      }
    });
  });
}

describe('streamed result deadline after a GC (child process, --expose-gc)', () => {
  let service: HostileService;

  beforeAll(async () => {
    service = await startHostileService({ any: () => dripAnswer(300) });
  });
  afterAll(() => service.close());

  it.each(distinct)(
    '%s: the read ends at the deadline with a timeout and the socket closed',
    async (_label, node) => {
      // Prepare
      const closedBefore = service.stats.closedEarly;

      // Act
      const outcome = await runChild(node, service.url);

      // Assess
      process.stderr.write(`deadline after GC: ${JSON.stringify(outcome)}\n`);
      expect(outcome).toMatchObject({ name: 'ConnectionError', timedOut: true });
      expect(outcome['elapsedMs']).toBeLessThan(DEADLINE_MS + 3_000);
      await expect.poll(() => service.stats.closedEarly, { timeout: 2_000 }).toBeGreaterThan(closedBefore);
    },
    30_000,
  );
});

describe('a streamed result left unread across GCs (child process, --expose-gc)', () => {
  const BODY = JSON.stringify({ resultId: 'r-drip', padding: 'x'.repeat(64 * 1024) });
  let service: HostileService;

  beforeAll(async () => {
    service = await startHostileService({ any: () => jsonAnswer(200, BODY) });
  });
  afterAll(() => service.close());

  it.each(distinct)(
    '%s: is read whole after 1 s unread and five GCs',
    async (_label, node) => {
      // Act: a GC every 200 ms while the body waits, longer than any claim's round trip.
      const outcome = await runChild(node, service.url, 1_000);

      // Assess
      expect(outcome).toMatchObject({ name: 'completed', bytes: Buffer.byteLength(BODY) });
    },
    30_000,
  );
});
