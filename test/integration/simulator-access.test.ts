/**
 * The simulator answers only its own origin on its own loopback name (simulator/access.ts): a rebound
 * `Host` or another site's `Origin` gets 403 on every route, control routes included, and the simulator
 * of `npm start` (a control secret) hides `/__sim/*` from whoever lacks that secret.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_SECRET_HEADER } from '../../simulator/access';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

let open: RunningSimulator;
let owned: RunningSimulator;
const SECRET = 'per-run-control-secret';

beforeAll(async () => {
  open = await startSimulator({ clientId: 'demo', clientSecret: 'demo-secret' });
  owned = await startSimulator({ clientId: 'run-id', clientSecret: 'run-secret', controlSecret: SECRET });
});
afterAll(async () => {
  await open.close();
  await owned.close();
});

/** One raw request (node:http, so that Host can be forged as a rebinding browser would send it). */
function send(
  sim: RunningSimulator,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: sim.port, path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('simulator access', () => {
  it('answers its own origin on a loopback name', async () => {
    // Act
    const plain = await send(open, '/__sim/stats');
    const named = await send(open, '/__sim/stats', { headers: { host: `localhost:${open.port}` } });
    const sameOrigin = await send(open, '/__sim/stats', { headers: { origin: open.url } });

    // Assess
    expect([plain, named, sameOrigin]).toEqual([200, 200, 200]);
  });

  it.each([
    ['a rebound Host on a control route', '/__sim/stats', { host: 'evil.example:4010' }],
    ['a rebound Host on the API', '/api/v2/poll', { host: 'evil.example' }],
    ['another site as Origin', '/__sim/stats', { origin: 'http://evil.example' }],
    ['an opaque Origin', '/__sim/stats', { origin: 'null' }],
  ])('refuses %s with 403', async (_, path, headers) => {
    // Assess
    expect(await send(open, path, { headers })).toBe(403);
  });

  it('refuses a cross-origin text/plain POST that would jump the clock, and the clock stays', async () => {
    // Prepare
    const before = (await (await fetch(`${open.url}/__sim/stats`)).json()) as Record<string, unknown>;

    // Act
    const status = await send(open, '/__sim/advance', {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
      body: '{"ms":3000000000}',
    });

    // Assess
    expect(status).toBe(403);
    const after = (await (await fetch(`${open.url}/__sim/stats`)).json()) as Record<string, unknown>;
    expect(after).toEqual(before);
  });

  it('hides the control routes of a simulator with a control secret from requests without it', async () => {
    // Act
    const without = await send(owned, '/__sim/stats');
    const wrong = await send(owned, '/__sim/stats', { headers: { [CONTROL_SECRET_HEADER]: 'guess' } });
    const right = await send(owned, '/__sim/stats', { headers: { [CONTROL_SECRET_HEADER]: SECRET } });

    // Assess
    expect([without, wrong, right]).toEqual([404, 404, 200]);
  });
});
