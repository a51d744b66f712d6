/**
 * `idv simulator trigger OUTCOME [--product P]` (like `stripe trigger`): the real `idv` process creates
 * one secure link on an in-process simulator and completes it through the link's hosted flow; the
 * result is then stored with that outcome. It refuses a base URL that is not the simulator, and an
 * unknown OUTCOME or product is a usage error (exit 2) with a suggestion.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { runIdv } from '../support/cli';
import { callSim, completedResult, SIM_CLIENT, tokenFor } from '../support/simulator-http';

let sim: RunningSimulator;
let env: Record<string, string>;

beforeAll(async () => {
  // Scopes enforced as in `npm run simulator`; links wait for a browser, so only the trigger completes them.
  sim = await startSimulator({ ...SIM_CLIENT, seed: 31, enforceScopes: true, linksAwaitBrowser: true });
  env = {
    IDV_BASE_URL: sim.url,
    IDV_CLIENT_ID: SIM_CLIENT.clientId,
    IDV_CLIENT_SECRET: SIM_CLIENT.clientSecret,
  };
});
afterAll(() => sim.close());

describe('idv simulator trigger', () => {
  it('overturn: changes a completed transaction to DISAPPROVED in both shapes', async () => {
    // Prepare
    const first = await runIdv(['simulator', 'trigger', 'APPROVED'], { env });
    const { transactionId, resultId } = first.json<Record<string, string>>();

    // Act
    const same = await runIdv(['simulator', 'trigger', 'overturn', transactionId!], { env });
    const fresh = await runIdv(
      ['simulator', 'trigger', 'overturn', transactionId!, '--shape', 'new-result', '--to', 'approved'],
      { env },
    );
    const wrong = await runIdv(['simulator', 'trigger', 'overturn', transactionId!, '--shape', 'sideways'], {
      env,
    });

    // Assess
    expect(same.code).toBe(0);
    expect(same.json<Record<string, string>>()).toMatchObject({
      shape: 'same-result',
      resultId,
      previousResultId: resultId,
      previousResult: 'APPROVED',
      result: 'DISAPPROVED',
    });
    expect(fresh.code).toBe(0);
    const freshOut = fresh.json<Record<string, string>>();
    expect(freshOut).toMatchObject({
      shape: 'new-result',
      previousResult: 'DISAPPROVED',
      result: 'APPROVED',
    });
    expect(freshOut.resultId).not.toBe(resultId);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--shape must be one of new-result, same-result');
  }, 60_000);

  it('creates and completes one transaction with the outcome and product asked for', async () => {
    // Act
    const run = await runIdv(['simulator', 'trigger', 'approved_eu', '--product', 'RTW_STANDARD'], { env });

    // Assess
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.json<Record<string, string>>();
    expect(out).toMatchObject({ product: 'RTW_STANDARD', outcome: 'APPROVED_EU', result: 'APPROVED' });
    const token = await tokenFor(sim);
    const poll = await callSim(sim, token, 'GET', PATHS.poll);
    expect(poll.body.results).toContainEqual(
      expect.objectContaining({
        resultId: out.resultId,
        transactionId: out.transactionId,
        product: 'RTW_STANDARD',
      }),
    );
    const doc = await completedResult(sim, token, out.transactionId!);
    expect(doc.identity?.data?.documentType).toBe('PASSPORT');
    expect(doc.rightToWork).toBeDefined();
  }, 60_000);

  it('forces what mock-test never produces: a HIT with its reason, an UNKNOWN result, a FAILED message', async () => {
    // Act
    const hit = await runIdv(
      [
        'simulator',
        'trigger',
        'DISAPPROVED',
        '--product',
        'RTW_PREMIUM',
        '--checks',
        'lostAndStolen=HIT,sanctionList=NOT_EXECUTED',
      ],
      { env },
    );
    const unknown = await runIdv(
      [
        'simulator',
        'trigger',
        'unknown',
        '--communication',
        'FAILED',
        '--document-validation',
        'font=NOT_APPLICABLE',
      ],
      { env },
    );

    // Assess
    expect([hit.code, unknown.code], hit.stderr + unknown.stderr).toEqual([0, 0]);
    const token = await tokenFor(sim);
    const hitDoc = await completedResult(sim, token, hit.json<{ transactionId: string }>().transactionId);
    expect(hitDoc.result).toBe('DISAPPROVED');
    expect(hitDoc.messages).toEqual(['DOCUMENT_REPORTED_LOST_OR_STOLEN']);
    expect(hitDoc.identity?.verifications?.lostAndStolen).toEqual({
      verificationResult: 'HIT',
      messages: ['DOCUMENT_REPORTED_LOST_OR_STOLEN'],
    });
    expect(hitDoc.identity?.verifications?.sanctionList?.verificationResult).toBe('NOT_EXECUTED');
    const out = unknown.json<{ transactionId: string; result: string; communicationsResponse: unknown }>();
    expect(out.result).toBe('UNKNOWN');
    expect(out.communicationsResponse).toEqual([{ communicationMode: 'MODE_EMAIL', status: 'FAILED' }]);
    const unknownDoc = await completedResult(sim, token, out.transactionId);
    expect(unknownDoc.identity?.documentValidation?.font).toBe('NOT_APPLICABLE');
  }, 90_000);

  it('--local finds the simulator of the running npm start in its data directory', async () => {
    // Prepare: the stack file a live run leaves (this test process stands in for it)
    const dataDir = await mkdtemp(join(tmpdir(), 'idv-trigger-'));
    await writeFile(
      join(dataDir, 'stack.json'),
      JSON.stringify({ pid: process.pid, simulator: { url: sim.url, ...SIM_CLIENT } }),
      { mode: 0o600 },
    );

    // Act
    const run = await runIdv(['simulator', 'trigger', 'APPROVED', '--local', '--data-dir', dataDir], {
      env: {},
    });
    await rm(dataDir, { recursive: true, force: true });

    // Assess
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.json<{ result: string }>().result).toBe('APPROVED');
  }, 60_000);

  it('refuses a base URL that is not the simulator, before creating anything', async () => {
    // Prepare
    const paths: string[] = [];
    const service: Server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"code":5,"message":"NotFound","details":[]}');
    });
    await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;

    // Act
    const run = await runIdv(['simulator', 'trigger', 'APPROVED'], { env: { ...env, IDV_BASE_URL: url } });
    await new Promise((r) => service.close(r));

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not the simulator');
    expect(paths).toEqual(['/__sim/stats']);
  }, 60_000);

  it.each([
    [['simulator', 'trigger', 'APROVED'], 'did you mean APPROVED?'],
    [['simulator', 'trigger'], 'missing OUTCOME'],
    [['simulator', 'trigger', 'APPROVED', '--product', 'IDV_PREMUIM'], 'did you mean IDV_PREMIUM?'],
    [['simulator', 'trigger', 'APPROVED', '--product', 'FACE_LINK'], '--product must be one of'],
    [['simulator', 'trigger', 'APPROVED', '--checks', 'lostAndStolen=HIT'], 'use OUTCOME DISAPPROVED'],
    [['simulator', 'trigger', 'APPROVED', '--checks', 'lostAndStole=HIT'], 'did you mean lostAndStolen?'],
    [['simulator', 'trigger', 'APPROVED', '--local', '--data-dir', '/nonexistent'], 'no running npm start'],
  ])(
    '%j is a usage error: %s',
    async (args, text) => {
      // Act
      const run = await runIdv(args, { env });

      // Assess
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(text);
    },
    60_000,
  );
});
