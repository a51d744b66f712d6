/**
 * Nothing is read before it is allowed (simulator/router.ts, simulator/read-body.ts): a request without
 * credentials gets a few KiB of its body read, then its 401 and the connection closed; an authenticated
 * one reads what its route needs (413 above it); `sim.requests` keeps no large body. The memory test
 * measures the resident set of a simulator process of its own (`/proc/PID/status`) while a client without
 * credentials sends 20 bodies of 60 MB at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { DEFAULT_BODY_BYTES, PREAUTH_BODY_BYTES } from '../../simulator/http';
import { generateJpeg } from '../../simulator/images';
import { RECORDED_STRING_CHARS } from '../../simulator/recorded-body';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { ROOT } from '../support/run-process';
import { callSim, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const MB = 1024 * 1024;

/** A figure of `/proc/PID/status` in bytes (`VmRSS`: resident now, `VmHWM`: the peak). */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!kb) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

/**
 * POSTs `total` bytes to `url` without credentials, in 1 MiB writes; with `declare`, a content-length
 * says the size up front, else the body is chunked. Resolves with the status, or the socket's error
 * code when the simulator closed the connection first.
 */
function hostilePost(url: string, total: number, declare: boolean): Promise<number | string> {
  const chunk = Buffer.alloc(MB, 0x20);
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: number | string) => {
      if (!settled) {
        settled = true;
        resolve(outcome);
      }
    };
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(declare ? { 'content-length': total } : {}) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
      res.on('error', () => done(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'));
    req.on('close', () => done('closed'));
    let sent = 0;
    const write = () => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      if (!req.destroyed) req.end();
    };
    write();
  });
}

describe('a simulator process and 20 bodies of 60 MB without credentials', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/simulator-child.ts', JSON.stringify({ ...SIM_CLIENT })],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening (\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`the simulator exited (${code})`)));
    });
  }, 60_000);
  afterAll(() => {
    child.kill('SIGTERM');
  });

  it('grows its resident memory by at most 64 MB, refuses each, and still serves its client', async () => {
    // Prepare: the simulator has served a client once (its code paths are loaded)
    const basic = Buffer.from(`${SIM_CLIENT.clientId}:${SIM_CLIENT.clientSecret}`).toString('base64');
    const tokenRequest = () =>
      fetch(`${url}${PATHS.oauthToken}`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
        body: JSON.stringify({ scopes: ['productapi.poll.read'] }),
      });
    expect((await tokenRequest()).status).toBe(200);
    const pid = child.pid!;
    const before = memoryOf(pid, 'VmRSS');
    const peakBefore = memoryOf(pid, 'VmHWM');

    // Act: half declare their size, half stream it chunked
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        hostilePost(`${url}${i % 2 === 0 ? PATHS.idVerify : PATHS.secureLink}`, 60 * MB, i % 4 < 2),
      ),
    );
    const after = memoryOf(pid, 'VmRSS');
    const peak = memoryOf(pid, 'VmHWM');

    // Assess: refused (401) or cut off, never served; memory bounded; the simulator still answers
    expect(outcomes.filter((o) => o === 200)).toEqual([]);
    expect(outcomes.filter((o) => typeof o === 'number' && o !== 401)).toEqual([]);
    expect(after - before).toBeLessThanOrEqual(64 * MB);
    expect(Math.max(0, peak - peakBefore)).toBeLessThanOrEqual(64 * MB);
    expect((await tokenRequest()).status).toBe(200);
  }, 120_000);
});

describe('body limits in process', () => {
  let sim: RunningSimulator;
  let token: string;

  beforeAll(async () => {
    sim = await startSimulator({ ...SIM_CLIENT, seed: 3 });
    token = await tokenFor(sim);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('answers a small unauthenticated body 401 and a larger one 401 with the connection closed', async () => {
    // Act
    const small = await fetch(`${sim.url}${PATHS.secureLink}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product: 'IDV_STANDARD' }),
    });
    const large = await fetch(`${sim.url}${PATHS.secureLink}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(PREAUTH_BODY_BYTES) }),
    });

    // Assess
    expect(small.status).toBe(401);
    expect(small.headers.get('connection')).not.toBe('close');
    expect(large.status).toBe(401);
    expect(large.headers.get('connection')).toBe('close');
    expect(sim.requests.at(-1)?.body).toBeUndefined();
  });

  it('caps an authenticated body at what its route needs: 413 above it, uploads take images', async () => {
    // Prepare
    const image = generateJpeg(1600, 1200, 5).toString('base64');

    // Act
    const link = await callSim(sim, token, 'POST', PATHS.secureLink, {
      product: 'IDV_STANDARD',
      customerReference: 'x'.repeat(DEFAULT_BODY_BYTES),
    });
    const upload = await callSim(sim, token, 'POST', PATHS.idVerify, {
      product: 'IDV_STANDARD',
      images: [{ type: 'PASSPORT', data: image, customerReference: 'front' }],
    });

    // Assess
    expect(link.status).toBe(413);
    expect(upload.status).toBe(200);
    expect(image.length).toBeGreaterThan(DEFAULT_BODY_BYTES);
  });

  it('records a large body by its shape, its long strings cut to a marker', async () => {
    // Prepare
    const image = generateJpeg(1600, 1200, 6).toString('base64');

    // Act
    await callSim(sim, token, 'POST', PATHS.idVerify, {
      product: 'IDV_STANDARD',
      images: [{ type: 'PASSPORT', data: image, customerReference: 'front' }],
    });

    // Assess
    const recorded = sim.requests.at(-1)!.body as { images: { type: string; data: string }[] };
    expect(recorded.images[0]).toEqual({
      type: 'PASSPORT',
      data: `[${image.length} characters omitted]`,
      customerReference: 'front',
    });
    expect(JSON.stringify(recorded).length).toBeLessThan(RECORDED_STRING_CHARS * 4);
  });
});
