import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../simulator/server';

const CLIENT = { clientId: 'life-client', clientSecret: 'life-secret' };
const DAY = 86_400_000;

let sims: RunningSimulator[] = [];
let receivers: Server[] = [];

afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await Promise.all(receivers.map((r) => new Promise((resolve) => r.close(resolve))));
  sims = [];
  receivers = [];
});

async function start(
  options: Partial<SimulatorOptions> = {},
): Promise<{ sim: RunningSimulator; token: string }> {
  const sim = await startSimulator({ ...CLIENT, seed: 5, completionDelayMs: 60_000, ...options });
  sims.push(sim);
  return { sim, token: await freshToken(sim) };
}

/** A new access token (tokens expire after an hour of virtual time). */
async function freshToken(sim: RunningSimulator): Promise<string> {
  const res = await fetch(`${sim.url}${PATHS.oauthToken}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString('base64')}`,
    },
    body: JSON.stringify({ scopes: ['productapi.poll.read'] }),
  });
  return ((await res.json()) as { accessToken: string }).accessToken;
}

async function get(sim: RunningSimulator, token: string, path: string) {
  const res = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function post(sim: RunningSimulator, token: string, path: string, body: unknown, headers = {}) {
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A webhook receiver that answers 500 to the first `failFirst` deliveries, then 200. */
async function receiver(
  failFirst: number,
): Promise<{ url: string; bodies: unknown[]; attempts: () => number }> {
  const bodies: unknown[] = [];
  let attempts = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (c) => {
      data += c;
    });
    req.on('end', () => {
      attempts++;
      if (attempts <= failFirst) {
        res.writeHead(500).end();
        return;
      }
      bodies.push(JSON.parse(data));
      res.writeHead(202).end();
    });
  });
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    attempts: () => attempts,
  };
}

describe('simulator lifecycle (§3)', () => {
  it('poll record → result fetch removes it → result kept until retention → everything gone', async () => {
    // Prepare
    const { sim, token } = await start({ retentionMs: 10 * DAY });
    const link = await post(sim, token, PATHS.secureLink, { product: 'IDV_LITE', customerReference: 'cr-1' });
    const transactionId = link.body.transactionId as string;

    // Act
    const before = await get(sim, token, PATHS.poll);
    sim.control.advanceTime(60_000);
    const poll = await get(sim, token, PATHS.poll);
    const [record] = poll.body.results as Record<string, string>[];
    const first = await get(sim, token, PATHS.result(record!.resultId!));
    const pollAfter = await get(sim, token, PATHS.poll);
    sim.control.advanceTime(9 * DAY);
    const stillThere = await get(sim, await freshToken(sim), PATHS.result(record!.resultId!));
    sim.control.advanceTime(1 * DAY);
    const gone = await get(sim, await freshToken(sim), PATHS.result(record!.resultId!));

    // Assess
    expect(before.body.results).toEqual([]);
    expect(record).toEqual({
      resultId: expect.any(String),
      transactionId,
      product: 'IDV_LITE',
      customerReference: 'cr-1',
      completed: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      userId: 'api-user',
    });
    expect(first.status).toBe(200);
    expect(first.body.transactionId).toBe(transactionId);
    expect(pollAfter.body.results).toEqual([]);
    expect(stillThere.status).toBe(200);
    expect(gone.status).toBe(404);
    expect(sim.control.resultIdsOf(transactionId)).toEqual([record!.resultId]);
    expect(sim.control.stats().resultFetches).toEqual({ [record!.resultId!]: 2 });
  });

  it('removes an unretrieved poll record and result when retention ends', async () => {
    // Prepare
    const { sim, token } = await start({ retentionMs: DAY });
    await post(sim, token, PATHS.secureLink, { product: 'IDV_LITE' }, { 'mock-test': 'APPROVED' });

    // Act
    const before = await get(sim, token, PATHS.poll);
    sim.control.advanceTime(DAY);
    const after = await get(sim, await freshToken(sim), PATHS.poll);

    // Assess
    expect((before.body.results as unknown[]).length).toBe(1);
    expect(after.body.results).toEqual([]);
  });

  it('completes pending transactions on demand, in-process and over /__sim', async () => {
    // Prepare
    const { sim, token } = await start();
    await post(sim, token, PATHS.secureLink, { product: 'IDV_LITE' });
    await post(sim, token, PATHS.secureLink, { product: 'RTW_STANDARD' });

    // Act
    const res = await fetch(`${sim.url}/__sim/complete`, { method: 'POST' });
    const stats = (await (await fetch(`${sim.url}/__sim/stats`)).json()) as Record<string, unknown>;

    // Assess
    expect(await res.json()).toEqual({ completed: 2 });
    expect(stats).toMatchObject({ transactions: 2, pending: 0, completed: 2, pollRecords: 2 });
  });

  it('completes transactions without mock-test after the configured delay with a seeded outcome mix', async () => {
    // Prepare
    const run = async () => {
      const { sim, token } = await start({ seed: 1234, completionDelayMs: 50 });
      for (let i = 0; i < 12; i++) await post(sim, token, PATHS.secureLink, { product: 'IDV_STANDARD' });
      const poll = await vi.waitFor(async () => {
        const answer = await get(sim, token, PATHS.poll);
        expect(answer.body.results).toHaveLength(12);
        return answer;
      }, 10_000);
      const outcomes: string[] = [];
      for (const r of poll.body.results as { resultId: string }[]) {
        outcomes.push((await get(sim, token, PATHS.result(r.resultId))).body.result as string);
      }
      return outcomes;
    };

    // Act
    const a = await run();
    const b = await run();

    // Assess
    expect(a).toHaveLength(12);
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThan(1);
  });

  it('serves a FaceLink package exactly once', async () => {
    // Prepare
    const { sim, token } = await start();
    const premium = await post(sim, token, PATHS.secureLink, { product: 'IDV_PREMIUM' });
    const faceLink = await post(sim, token, PATHS.secureLink, {
      product: 'FACE_LINK',
      linkedTransactionId: premium.body.transactionId,
    });
    const transactionId = faceLink.body.transactionId as string;
    const viaHttp = await fetch(`${sim.url}/__sim/facelink-token?transactionId=${transactionId}`);
    const { token: acceptToken } = (await viaHttp.json()) as { token: string };

    // Act
    const first = await post(sim, token, PATHS.faceLinkPackage, { token: acceptToken });
    const second = await post(sim, token, PATHS.faceLinkPackage, { token: acceptToken });

    // Assess
    expect(acceptToken).toBe(sim.control.faceLinkToken(transactionId) ?? acceptToken);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ packageData: expect.any(String), transactionId });
    expect(second.status).toBe(404);
    expect(sim.control.faceLinkToken(transactionId)).toBeUndefined();
  });

  it('rejects a FaceLink without a premium original transaction', async () => {
    // Prepare
    const { sim, token } = await start();

    // Act
    const r = await post(sim, token, PATHS.secureLink, {
      product: 'FACE_LINK',
      linkedTransactionId: 'unknown',
    });

    // Assess
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('linkedTransactionId');
  });
});

describe('simulator webhooks', () => {
  it('delivers the result and upload webhooks and retries a failed delivery', async () => {
    // Prepare
    const results = await receiver(1);
    const uploads = await receiver(0);
    const { sim, token } = await start({
      resultWebhookUrl: results.url,
      uploadWebhookUrl: uploads.url,
      webhookRetry: { initialDelayMs: 20 },
    });
    const link = await post(sim, token, PATHS.secureLink, {
      product: 'IDV_STANDARD',
      customerReference: 'wh-1',
    });

    // Act
    sim.control.completePending();
    await sim.control.webhooksIdle();

    // Assess
    const transactionId = link.body.transactionId as string;
    const [resultId] = sim.control.resultIdsOf(transactionId);
    expect(results.attempts()).toBe(2);
    expect(results.bodies).toEqual([
      {
        resultId,
        transactionId,
        customerReference: 'wh-1',
        product: 'IDV_STANDARD',
        completed: expect.any(String),
      },
    ]);
    expect(uploads.bodies).toEqual([
      {
        transactionId,
        secureId: link.body.secureId,
        customerReference: 'wh-1',
        uploadedAt: expect.any(String),
      },
    ]);
    expect(sim.control.stats().webhooks).toMatchObject({ sent: 2, failed: 1, gaveUp: 0, pending: 0 });
  });

  it('gives up after the bounded number of attempts', async () => {
    // Prepare
    const results = await receiver(100);
    const { sim, token } = await start({
      resultWebhookUrl: results.url,
      webhookRetry: { maxAttempts: 3, initialDelayMs: 10 },
    });

    // Act
    await post(sim, token, PATHS.secureLink, { product: 'IDV_LITE' }, { 'mock-test': 'APPROVED' });
    await sim.control.webhooksIdle();

    // Assess
    expect(results.attempts()).toBe(3);
    expect(sim.control.stats().webhooks).toMatchObject({ sent: 0, failed: 3, gaveUp: 1 });
  });

  it.each([
    ['resultWebhookUrl', 'localhost:8080/hook'],
    ['uploadWebhookUrl', 'ftp://127.0.0.1/hook'],
  ])('refuses to start with %s %s instead of dropping every delivery silently', async (name, url) => {
    // Act
    const started = startSimulator({ ...CLIENT, [name]: url });

    // Assess
    await expect(started).rejects.toThrow(`${name} must be an http:// or https:// URL`);
  });
});

describe('simulator faults', () => {
  async function statuses(seed: number): Promise<(number | string)[]> {
    const { sim, token } = await start({ seed });
    await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      body: JSON.stringify({
        serverErrorRate: 0.25,
        rateLimitRate: 0.2,
        retryAfterSeconds: 7,
        dropRate: 0.1,
        truncateRate: 0.1,
      }),
    });
    const out: (number | string)[] = [];
    for (let i = 0; i < 30; i++) {
      try {
        const res = await fetch(`${sim.url}${PATHS.poll}`, { headers: { authorization: `Bearer ${token}` } });
        const text = await res.text();
        JSON.parse(text);
        out.push(res.status === 429 ? `429:${res.headers.get('retry-after')}` : res.status);
      } catch {
        out.push('broken');
      }
    }
    return out;
  }

  it('repeats the same faults for the same seed, incl. 429 Retry-After, drops and truncation', async () => {
    // Act
    const a = await statuses(77);
    const b = await statuses(77);

    // Assess
    expect(a).toEqual(b);
    expect(a).toContain(200);
    expect(a).toContain('429:7');
    expect(a).toContain('broken');
    expect(a.some((s) => typeof s === 'number' && s >= 500)).toBe(true);
  });

  it('never faults the /__sim controls and delays slow requests', async () => {
    // Prepare
    const { sim, token } = await start({
      faults: { slowRate: 1, slowMs: 150, serverErrorRate: 1, paths: ['/api/v2/reasons'] },
    });

    // Act
    const stats = await fetch(`${sim.url}/__sim/stats`);
    const t0 = Date.now();
    const slow = await get(sim, token, PATHS.reasons);
    const elapsed = Date.now() - t0;
    const poll = await get(sim, token, PATHS.poll);

    // Assess
    expect(stats.status).toBe(200);
    expect(slow.status).toBeGreaterThanOrEqual(500);
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(poll.status).toBe(200);
  });
});

describe('simulator result faults (one transaction, a number of fetches)', () => {
  it('serves the first fetches of a transaction named by customerReference with data that is not base64, then the result as it is', async () => {
    // Prepare
    const { sim, token } = await start();
    const set = await fetch(`${sim.url}/__sim/result-faults`, {
      method: 'POST',
      body: JSON.stringify({ customerReference: 'cr-broken', kind: 'dataNotBase64', fetches: 2 }),
    });
    await post(sim, token, PATHS.secureLink, { product: 'IDV_LITE' }, { 'mock-test': 'APPROVED' });
    const link = await post(
      sim,
      token,
      PATHS.secureLink,
      { product: 'IDV_LITE', customerReference: 'cr-broken' },
      { 'mock-test': 'APPROVED' },
    );
    const [other] = (await get(sim, token, PATHS.poll)).body.results as { resultId: string }[];
    const [resultId] = sim.control.resultIdsOf(link.body.transactionId as string);

    // Act
    const untouched = await get(sim, token, PATHS.result(other!.resultId));
    const fetched = [];
    for (let i = 0; i < 3; i++) fetched.push(await get(sim, token, PATHS.result(resultId!)));

    // Assess
    expect(set.status).toBe(200);
    const isBase64 = (body: Record<string, unknown>) =>
      ((body.images as { data: string }[]) ?? []).every((image) => /^[A-Za-z0-9+/]*={0,2}$/.test(image.data));
    expect(isBase64(untouched.body)).toBe(true);
    expect(fetched.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(fetched.map((answer) => isBase64(answer.body))).toEqual([false, false, true]);
    expect(fetched[2]!.body.result).toBe(fetched[0]!.body.result);
  });

  it('answers 503 to the first fetches of a transaction named by id and keeps its poll record until served', async () => {
    // Prepare
    const { sim, token } = await start();
    const link = await post(
      sim,
      token,
      PATHS.secureLink,
      { product: 'IDV_LITE' },
      { 'mock-test': 'APPROVED' },
    );
    const transactionId = link.body.transactionId as string;
    sim.control.setResultFault({ transactionId, kind: 'unavailable', fetches: 1 });
    const [resultId] = sim.control.resultIdsOf(transactionId);

    // Act
    const first = await get(sim, token, PATHS.result(resultId!));
    const listed = (await get(sim, token, PATHS.poll)).body.results as unknown[];
    const second = await get(sim, token, PATHS.result(resultId!));

    // Assess
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ message: 'Unavailable' });
    expect(listed).toHaveLength(1);
    expect(second.status).toBe(200);
  });

  it('refuses a result fault without one target, a known kind or a count', async () => {
    // Prepare
    const { sim } = await start();
    const send = (body: unknown) =>
      fetch(`${sim.url}/__sim/result-faults`, { method: 'POST', body: JSON.stringify(body) });

    // Act
    const answers = await Promise.all([
      send({ kind: 'unavailable', fetches: 1 }),
      send({ transactionId: 't', customerReference: 'c', kind: 'unavailable', fetches: 1 }),
      send({ transactionId: 't', kind: 'slow', fetches: 1 }),
      send({ transactionId: 't', kind: 'unavailable', fetches: -1 }),
    ]);

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400]);
  });
});
