/**
 * The simulator's overturn control (simulator/README.md, "Overturned verdicts"), over HTTP: a completed
 * APPROVED transaction is changed to DISAPPROVED in both shapes — a new resultId for the same transaction,
 * and the same resultId announced again with a later `completed` and a changed body — each with its
 * polling record and result webhook.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

const CLIENT = { clientId: 'overturn-client', clientSecret: 'overturn-secret' };

let sims: RunningSimulator[] = [];
let servers: Server[] = [];

afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  sims = [];
  servers = [];
});

/** A webhook receiver keeping the bodies it got. */
async function receiver(): Promise<{ url: string; bodies: Record<string, unknown>[] }> {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => {
      data += chunk;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(data));
      res.writeHead(202).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
}

async function setup() {
  const hook = await receiver();
  const sim = await startSimulator({ ...CLIENT, seed: 7, resultWebhookUrl: hook.url });
  sims.push(sim);
  const tokenAnswer = await fetch(`${sim.url}${PATHS.oauthToken}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString('base64')}`,
    },
    body: JSON.stringify({ scopes: ['productapi.poll.read'] }),
  });
  const token = ((await tokenAnswer.json()) as { accessToken: string }).accessToken;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${sim.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const link = await call('POST', PATHS.secureLink, { product: 'IDV_STANDARD' }, { 'mock-test': 'APPROVED' });
  const transactionId = link.body.transactionId as string;
  const [firstId] = sim.control.resultIdsOf(transactionId);
  return { sim, hook, call, transactionId, firstId: firstId! };
}

describe('simulator overturn', () => {
  it('same-result: the resultId is announced again (poll record, webhook) with a later completed and a changed body', async () => {
    // Prepare: the first result fetched (its polling record gone), as a pipeline would.
    const { sim, hook, call, transactionId, firstId } = await setup();
    const before = await call('GET', PATHS.poll);
    const [record] = before.body.results as Record<string, string>[];
    expect((await call('GET', PATHS.result(firstId))).body.result).toBe('APPROVED');
    expect((await call('GET', PATHS.poll)).body.results).toEqual([]);

    // Act
    const answer = await call('POST', '/__sim/overturn', { transactionId, shape: 'same-result' });
    await sim.control.webhooksIdle();

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      transactionId,
      shape: 'same-result',
      resultId: firstId,
      previousResultId: firstId,
      result: 'DISAPPROVED',
      previousResult: 'APPROVED',
    });
    const poll = (await call('GET', PATHS.poll)).body.results as Record<string, string>[];
    expect(poll).toEqual([{ ...record, completed: answer.body.completed }]);
    expect(Date.parse(poll[0]!.completed!)).toBeGreaterThan(Date.parse(record!.completed!));
    const changed = await call('GET', PATHS.result(firstId));
    expect(changed.body).toMatchObject({
      transactionId,
      result: 'DISAPPROVED',
      identity: { result: 'DISAPPROVED' },
    });
    expect(changed.body.messages).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(hook.bodies.map((b) => [b.resultId, b.completed])).toEqual([
      [firstId, record!.completed],
      [firstId, answer.body.completed],
    ]);
    expect(sim.control.resultIdsOf(transactionId)).toEqual([firstId]);
  });

  it('new-result: a second resultId for the transaction, with its own poll record and webhook; the first stays', async () => {
    // Prepare
    const { sim, hook, call, transactionId, firstId } = await setup();

    // Act: in process this time.
    const outcome = sim.control.overturn({ transactionId, shape: 'new-result', outcome: 'DISAPPROVED' });
    await sim.control.webhooksIdle();

    // Assess
    expect(outcome.resultId).not.toBe(firstId);
    expect(outcome).toMatchObject({
      previousResultId: firstId,
      result: 'DISAPPROVED',
      previousResult: 'APPROVED',
    });
    expect(sim.control.resultIdsOf(transactionId)).toEqual([firstId, outcome.resultId]);
    const poll = (await call('GET', PATHS.poll)).body.results as Record<string, string>[];
    expect(poll.map((r) => [r.resultId, r.transactionId])).toEqual([
      [firstId, transactionId],
      [outcome.resultId, transactionId],
    ]);
    expect((await call('GET', PATHS.result(firstId))).body.result).toBe('APPROVED');
    expect((await call('GET', PATHS.result(outcome.resultId))).body).toMatchObject({
      transactionId,
      result: 'DISAPPROVED',
    });
    expect(hook.bodies.map((b) => b.resultId)).toEqual([firstId, outcome.resultId]);
  });

  it('refuses what it cannot overturn, naming the problem', async () => {
    // Prepare
    const { call, transactionId } = await setup();
    const open = await call('POST', PATHS.secureLink, { product: 'IDV_STANDARD' });

    // Act
    const answers = await Promise.all([
      call('POST', '/__sim/overturn', { transactionId: 'no-such-tx' }),
      call('POST', '/__sim/overturn', { transactionId: open.body.transactionId }),
      call('POST', '/__sim/overturn', { transactionId, shape: 'sideways' }),
      call('POST', '/__sim/overturn', { transactionId, outcome: 'MAYBE' }),
    ]);

    // Assess
    expect(answers.map((a) => a.status)).toEqual([404, 409, 400, 400]);
    expect(JSON.stringify(answers[2]!.body)).toContain('shape must be one of new-result, same-result');
    expect(JSON.stringify(answers[3]!.body)).toContain('outcome must be one of');
  });
});
