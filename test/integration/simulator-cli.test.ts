import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { waitForMatch } from '../support/wait';

const children: ChildProcess[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Runs `tsx simulator/main.ts` with `args`; resolves with the child and a reader of its output. */
function runCli(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/main.ts', ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => {
    stdout += c;
  });
  child.stderr!.on('data', (c) => {
    stderr += c;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = (re: RegExp): Promise<RegExpExecArray> =>
    waitForMatch(() => stdout, re, { timeoutMs: 30_000, intervalMs: 50, ended: exited });
  return { child, exited, waitFor, output: () => ({ stdout, stderr }) };
}

describe('simulator CLI', () => {
  it('starts, prints its URL, serves requests and stops on SIGTERM', async () => {
    // Prepare
    const cli = runCli([
      '--port',
      '0',
      '--client-id',
      'cli-id',
      '--client-secret',
      'cli-secret',
      '--seed',
      '9',
    ]);

    // Act
    const [, url] = await cli.waitFor(/Simulator listening on (http:\/\/127\.0\.0\.1:\d+) \(staging\)/);
    const res = await fetch(`${url}${PATHS.oauthToken}`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('cli-id:cli-secret').toString('base64')}` },
      body: JSON.stringify({ scopes: ['productapi.poll.read'] }),
    });
    cli.child.kill('SIGTERM');
    const code = await cli.exited;

    // Assess
    expect(res.status).toBe(200);
    expect(code).toBe(0);
    expect(cli.output().stdout).toContain('seed 9');
  });

  it('fails clearly with a non-zero exit when the port is taken', async () => {
    // Prepare
    const blocker = createServer();
    servers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;

    // Act
    const cli = runCli(['--port', String(port), '--client-id', 'a', '--client-secret', 'b']);
    const code = await cli.exited;

    // Assess
    expect(code).not.toBe(0);
    expect(cli.output().stderr).toContain(`port ${port}`);
    expect(cli.output().stderr).toContain('or --port 0 for a free one');
    expect(cli.output().stderr).toContain('already in use');
  });

  it('requires client credentials and prints help', async () => {
    // Act
    const missing = runCli(['--port', '0']);
    const help = runCli(['--help']);
    const [missingCode, helpCode] = await Promise.all([missing.exited, help.exited]);

    // Assess
    expect(missingCode).not.toBe(0);
    expect(missing.output().stderr).toContain('--client-id');
    expect(helpCode).toBe(0);
    expect(help.output().stdout).toContain('--fault-429');
  });

  it('enforces scopes by default, --ignore-scopes turns that off, and refuses an unknown --outcome', async () => {
    // Prepare
    const start = async (extra: string[]) => {
      const cli = runCli(['--client-id', 'cli-id', '--client-secret', 'cli-secret', ...extra]);
      const [, url] = await cli.waitFor(/Simulator listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const token = await fetch(`${url}${PATHS.oauthToken}`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('cli-id:cli-secret').toString('base64')}` },
        body: JSON.stringify({ scopes: ['productapi.poll.read'] }),
      });
      const { accessToken } = (await token.json()) as { accessToken: string };
      const link = await fetch(`${url}${PATHS.secureLink}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ product: 'IDV_LITE' }),
      });
      cli.child.kill('SIGTERM');
      await cli.exited;
      return link.status;
    };

    // Act
    const enforced = await start([]);
    const ignored = await start([
      '--ignore-scopes',
      '--outcome',
      'DISAPPROVED',
      '--no-driving-license-check',
    ]);
    const bad = runCli(['--client-id', 'a', '--client-secret', 'b', '--outcome', 'MAYBE']);
    const badCode = await bad.exited;

    // Assess
    expect(enforced).toBe(403);
    expect(ignored).toBe(200);
    expect(badCode).toBe(2);
    expect(bad.output().stderr).toContain('--outcome must be one of');
  });
});
