/**
 * Ids and links a neighbour cannot guess (simulator/link-access.ts, simulator/prng.ts): every id comes
 * from the CSPRNG, even with a seed (which keeps only content repeatable), and a secure link's hosted
 * routes answer only with the key its printed link carries. A client holding every id of a link (its
 * secureId, transactionId, resultId), but not the key, gets 404 on every link route, reads nothing and
 * decides nothing: also as another user of the machine (uid 65534, when the test runs as root).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { callSim, completedResult, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const OTHER_USER = 65534;
const asRoot = process.getuid?.() === 0;

let sim: RunningSimulator;
let token: string;

beforeAll(async () => {
  sim = await startSimulator({ ...SIM_CLIENT, seed: 7, linksAwaitBrowser: true });
  token = await tokenFor(sim);
});
afterAll(async () => {
  await sim.close();
});

/** A link waiting for its end user, with every id a neighbour might have seen. */
async function waitingLink(customerReference: string) {
  const created = await callSim(sim, token, 'POST', PATHS.secureLink, {
    product: 'IDV_STANDARD',
    customerReference,
    disableCommunication: true,
    communicationModes: ['MODE_WHATSAPP'],
    whatsappPhoneNumber: '+31600000000',
  });
  expect(created.status).toBe(200);
  return {
    secureId: created.body.secureId as string,
    transactionId: created.body.transactionId as string,
    link: created.body.link as string,
    whatsapp: created.body.whatsappRedirectUrl as string,
  };
}

/** Every hosted route of a link, as someone who knows its ids but not its key would try them. */
function guesses(ids: { secureId: string; transactionId: string }, link: string): [string, string][] {
  const key = new URL(link).pathname.split('/').at(-1)!;
  const wrongKey = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
  return [ids.secureId, ids.transactionId].flatMap((id): [string, string][] => [
    ['GET', `/link/${id}`],
    ['POST', `/link/${id}/complete`],
    ['GET', `/link/${id}/${wrongKey}`],
    ['POST', `/link/${id}/${wrongKey}/complete`],
    ['GET', `/whatsapp/${id}`],
    ['GET', `/whatsapp/${id}/${wrongKey}`],
  ]);
}

describe('ids', () => {
  it('are random UUIDs even with a seed, while the seed still repeats the content', async () => {
    // Prepare: a second simulator with the same seed, the same request sequence
    const twin = await startSimulator({ ...SIM_CLIENT, seed: 7, linksAwaitBrowser: true });
    try {
      const twinToken = await tokenFor(twin);
      const links = await Promise.all([
        callSim(sim, token, 'POST', PATHS.secureLink, {
          product: 'IDV_STANDARD',
          disableCommunication: true,
        }),
        callSim(twin, twinToken, 'POST', PATHS.secureLink, {
          product: 'IDV_STANDARD',
          disableCommunication: true,
        }),
      ]);

      // Act
      const [a, b] = links.map((l) => l.body);
      const resultA = sim.control.completeTransaction(a!.transactionId as string);
      const resultB = twin.control.completeTransaction(b!.transactionId as string);
      const docA = await completedResult(sim, token, a!.transactionId as string);
      const docB = await completedResult(twin, twinToken, b!.transactionId as string);

      // Assess: every id differs and is a v4 UUID; the content is the seed's
      for (const id of [a!.secureId, a!.transactionId, resultA, b!.secureId, b!.transactionId, resultB]) {
        expect(id).toMatch(UUID);
      }
      expect(a!.secureId).not.toBe(b!.secureId);
      expect(a!.transactionId).not.toBe(b!.transactionId);
      expect(resultA).not.toBe(resultB);
      expect(a!.link).not.toBe(b!.link);
      expect(docA.result).toBe(docB.result);
      expect(docA.identity?.data).toEqual(docB.identity?.data);
    } finally {
      await twin.close();
    }
  });
});

describe('a link without its key', () => {
  it('answers 404 on every link route to a client that knows every id, and decides nothing', async () => {
    // Prepare
    const ids = await waitingLink('neighbour-1');

    // Act
    const answers = await Promise.all(
      guesses(ids, ids.link).map(async ([method, path]) => {
        const res = await fetch(`${sim.url}${path}`, {
          method,
          redirect: 'manual',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          ...(method === 'POST'
            ? { body: JSON.stringify({ action: 'outcome', outcome: 'DISAPPROVED' }) }
            : {}),
        });
        const text = await res.text();
        return {
          path,
          status: res.status,
          leaks: text.includes(ids.transactionId) || text.includes('neighbour-1'),
        };
      }),
    );

    // Assess: 404 everywhere, nothing of the link shown, still waiting for its owner's end user
    expect(answers.filter((a) => a.status !== 404 || a.leaks)).toEqual([]);
    expect(sim.control.resultIdsOf(ids.transactionId)).toEqual([]);
    const page = await fetch(ids.link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('neighbour-1');
    expect((await fetch(ids.whatsapp)).status).toBe(200);
  });

  it.skipIf(!asRoot)('answers 404 to another user of the machine (uid 65534) holding every id', async () => {
    // Prepare
    const ids = await waitingLink('neighbour-2');
    const probe = `
      const { base, guesses } = JSON.parse(process.argv[1]);
      const out = [];
      for (const [method, path] of guesses) {
        const res = await fetch(base + path, { method, redirect: 'manual',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          ...(method === 'POST' ? { body: JSON.stringify({ action: 'outcome', outcome: 'DISAPPROVED' }) } : {}) });
        out.push({ path, status: res.status, text: (await res.text()).slice(0, 2000) });
      }
      console.log(JSON.stringify({ uid: process.getuid(), out }));`;

    // Act
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          probe,
          JSON.stringify({ base: sim.url, guesses: guesses(ids, ids.link) }),
        ],
        { uid: OTHER_USER, gid: OTHER_USER, cwd: '/', env: { PATH: process.env.PATH! } },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.on('close', (code) => resolve({ code, stdout }));
    });

    // Assess
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { uid: number; out: { status: number; text: string }[] };
    expect(report.uid).toBe(OTHER_USER);
    expect(report.out).toHaveLength(12);
    expect(report.out.filter((a) => a.status !== 404 || a.text.includes('neighbour-2'))).toEqual([]);
    expect(sim.control.resultIdsOf(ids.transactionId)).toEqual([]);
  });

  it('completes with its key, and a completed link shows its result only with the key', async () => {
    // Prepare
    const ids = await waitingLink('owner-3');

    // Act
    const done = await fetch(`${ids.link}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ action: 'outcome', outcome: 'APPROVED' }),
    });
    const { resultId } = (await done.json()) as { resultId: string };
    const withKey = await (await fetch(ids.link)).text();
    const withoutKey = await fetch(`${sim.url}/link/${ids.secureId}`);

    // Assess
    expect(done.status).toBe(200);
    expect(withKey).toContain(resultId);
    expect(withoutKey.status).toBe(404);
    expect(await withoutKey.text()).not.toContain(resultId);
  });
});
