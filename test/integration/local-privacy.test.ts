/**
 * The local run is private to its user (docs/local-run.md, "Who can reach the local run"): a probe
 * running as another user (uid 65534) tries every way into a running `npm start` that holds stored
 * results, and gets nothing. Needs root (to start a process as another uid); skipped otherwise.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StackFile } from '../../local/stack-file';
import { DETAIL_TYPES } from '../../shared/events/names';
import { ROOT } from '../support/run-process';

const OTHER_USER = 65534;
const asRoot = process.getuid?.() === 0;

/** Every file and directory under `path`. */
function walk(path: string): string[] {
  return readdirSync(path).flatMap((name) => {
    const child = join(path, name);
    return statSync(child).isDirectory() ? [child, ...walk(child)] : [child];
  });
}

function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  return vi.waitFor(() => expect(condition()).toBe(true), { timeout: timeoutMs, interval: 100 });
}

describe.skipIf(!asRoot)('a local run and another user of the machine', () => {
  let dataDir: string;
  let probeDir: string;
  let child: ChildProcess;
  let stderr = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-local-privacy-'));
    probeDir = mkdtempSync(join(tmpdir(), 'idv-probe-'));
    chmodSync(probeDir, 0o755);
    copyFileSync(join(ROOT, 'test/support/other-user-probe.mjs'), join(probeDir, 'probe.mjs'));
    chmodSync(join(probeDir, 'probe.mjs'), 0o644);
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bin/start.ts',
        '--data-dir',
        dataDir,
        '--port',
        '0',
        '--demo',
        '2',
        '--completion-delay-ms',
        '0',
      ],
      { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' } },
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const events = join(dataDir, 'events.jsonl');
    await until(
      () =>
        existsSync(events) &&
        readFileSync(events, 'utf8').split(DETAIL_TYPES.resultStored).length > 1 &&
        existsSync(join(dataDir, 'stack.json')),
    );
  }, 90_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.on('close', resolve));
      child.kill('SIGINT');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(probeDir, { recursive: true, force: true });
  });

  it('reads no result, item, secret, event or message, through any endpoint, socket or file', async () => {
    // Prepare: what the owner can read (the probe must not see any of it).
    const stack = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
    const s3 = new S3Client({
      region: stack.region,
      endpoint: stack.endpoints.s3,
      credentials: stack.credentials,
      forcePathStyle: true,
    });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: stack.resources.bucketName }));
    const objectKey = listed
      .Contents!.map((object) => object.Key!)
      .find((key) => key.endsWith('result.json'))!;
    const object = await s3.send(
      new GetObjectCommand({ Bucket: stack.resources.bucketName, Key: objectKey }),
    );
    const resultJson = await object.Body!.transformToString();
    const resultId =
      (JSON.parse(resultJson) as { resultId?: string }).resultId ?? objectKey.split('/').at(-2);
    s3.destroy();
    const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as {
      versions: Record<string, { secretString?: string }>;
    }[];
    const secretValues = secrets
      .flatMap((secret) => Object.values(secret.versions).map((version) => version.secretString ?? ''))
      .filter((value) => value.length > 8);
    const files = walk(dataDir);
    const ownerOnly = [dataDir, ...files].filter(
      (path) => (statSync(path).mode & 0o077) !== 0 && !statSync(path).isSymbolicLink(),
    );

    // Act
    const probe = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const run = spawn(
        process.execPath,
        [
          join(probeDir, 'probe.mjs'),
          JSON.stringify({ ...stack, root: ROOT, objectKey, dataDir, files, pid: child.pid, resultId }),
        ],
        { uid: OTHER_USER, gid: OTHER_USER, cwd: probeDir, env: { PATH: process.env.PATH!, HOME: probeDir } },
      );
      let out = '';
      let err = '';
      run.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      run.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      run.on('close', (code) => resolve({ code, stdout: out, stderr: err }));
    });

    // Assess
    expect(probe.code, probe.stderr).toBe(0);
    const report = JSON.parse(probe.stdout) as {
      uid: number;
      results: { name: string; outcome: string; status?: number; code?: string }[];
    };
    expect(report.uid).toBe(OTHER_USER);
    expect(report.results.length).toBeGreaterThan(40);
    expect(report.results.filter((result) => result.name.startsWith('simulator'))).toHaveLength(6);
    expect(report.results.filter((result) => result.outcome !== 'refused')).toEqual([]);
    for (const result of report.results) {
      // Refused by the front (403), or not reachable at all (a directory or socket of the owner's); the
      // simulator also says 401 (credentials or token) and 404 (a control route without its secret).
      const allowed = result.name.startsWith('simulator') ? [401, 403, 404] : [403, 'EACCES', 'ENOENT'];
      expect(allowed, JSON.stringify(result)).toContain(result.status ?? result.code);
    }
    for (const secret of [
      ...secretValues,
      stack.credentials.secretAccessKey,
      stack.credentials.accessKeyId,
      stack.simulator!.clientSecret,
      stack.simulator!.controlSecret,
    ]) {
      expect(probe.stdout).not.toContain(secret);
    }
    expect(probe.stdout).not.toContain(resultJson.slice(0, 60));
    expect(ownerOnly).toEqual([]);
    expect(resultJson.length).toBeGreaterThan(60);
    expect(secretValues.length).toBeGreaterThanOrEqual(3);
    expect(stderr).not.toMatch(/unexpected failure/);
    // The owner still gets in, with the run's own credentials from the 0600 stack file.
    const sim = stack.simulator!;
    const token = await fetch(`${sim.url}/api/v2/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${sim.clientId}:${sim.clientSecret}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: '{"scopes":["results:read"]}',
    });
    expect(token.status).toBe(200);
  }, 60_000);
});
