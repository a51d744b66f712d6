/**
 * A verdict overturned after it was stored, end to end on the local run (`npm start` against the
 * simulator; docs/changed-verdicts.md): two transactions are approved and stored, then the
 * simulator's manual review disapproves each, one in each shape (the same resultId announced again with a
 * later `completed`; a new resultId for the transaction). The run stores each as version 2 with the
 * history, announces `VerificationResultChanged` once, shows it in `idv results get|by-transaction` and in
 * the analytics rows; `idv results erase --transaction-id` then removes every version, and no file of the
 * data directory holds the transactions' planted markers (customer reference, the person's name) in any
 * form.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IdvClient } from '../../shared/client';
import { DETAIL_TYPES } from '../../shared/events/names';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { runIdvInProcess } from '../support/cli';
import { eventValidators } from '../support/pipeline-fakes';
import { FORM_NAMES, formsOf } from '../support/planted-markers';
import { startLocalRun } from '../support/run-process';

const credentials = { clientId: 'overturn-client', clientSecret: 'overturn-secret' };

interface LoggedEvent {
  'detail-type': string;
  detail: Record<string, unknown>;
}

/** Every file under `dir`, with its path relative to `dir`. */
function files(dir: string, base = dir): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, base);
    return [{ path: path.slice(base.length + 1), bytes: readFileSync(path) }];
  });
}

/** `file (form)` for each place of `dir` holding `marker` raw, in hex or in base64 (or in a file name). */
function scan(dir: string, marker: string): string[] {
  const forms = formsOf(marker);
  return files(dir).flatMap((file) => {
    const hit = forms.findIndex((form) => file.bytes.includes(form) || file.path.includes(form.toString()));
    return hit >= 0 ? [`${file.path} (${FORM_NAMES[hit]})`] : [];
  });
}

describe('npm start: an APPROVED transaction overturned to DISAPPROVED, in both shapes', () => {
  let service: RunningSimulator;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-local-overturn-'));
    service = await startSimulator({ ...credentials, seed: 23 });
  });

  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const idv = async (args: string[]) => {
    const run = await runIdvInProcess([...args, '--local', '--data-dir', dataDir]);
    expect(run.code, run.err).toBe(0);
    return JSON.parse(run.out);
  };
  const events = (): LoggedEvent[] =>
    readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
  const ofType = (type: string, transactionId: string) =>
    events().filter((e) => e['detail-type'] === type && e.detail['transactionId'] === transactionId);

  it('stores version 2 with the history, announces the change, projects it, and erases every version', async () => {
    // Prepare: the run polls every second; two approved transactions, each with a marker reference.
    const run = await startLocalRun(
      [
        '--port',
        '0',
        '--service-url',
        service.url,
        '--client-id',
        credentials.clientId,
        '--data-dir',
        dataDir,
        '--poll-interval',
        '1',
      ],
      { IDV_CLIENT_SECRET: credentials.clientSecret },
    );
    const client = new IdvClient({ baseUrl: service.url, environment: 'staging', credentials });
    const same = await client.createSecureLink(
      { product: 'IDV_STANDARD', disableCommunication: true, customerReference: 'ovt-same-Qz7Kx3' },
      { mockTest: 'APPROVED' },
    );
    const fresh = await client.createSecureLink(
      { product: 'IDV_STANDARD', disableCommunication: true, customerReference: 'ovt-new-Wp4Tn8' },
      { mockTest: 'APPROVED' },
    );
    const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 60_000, interval: 200 });
    try {
      await waitFor(() => {
        expect(ofType(DETAIL_TYPES.resultStored, same.transactionId)).toHaveLength(1);
        expect(ofType(DETAIL_TYPES.resultStored, fresh.transactionId)).toHaveLength(1);
      });
      const [firstSame] = service.control.resultIdsOf(same.transactionId);
      const [firstNew] = service.control.resultIdsOf(fresh.transactionId);

      // Act: the review overturns both, one in each shape.
      const overturnedSame = service.control.overturn({ transactionId: same.transactionId });
      const overturnedNew = service.control.overturn({
        transactionId: fresh.transactionId,
        shape: 'new-result',
      });
      await waitFor(() => {
        expect(ofType(DETAIL_TYPES.resultChanged, same.transactionId)).toHaveLength(1);
        expect(ofType(DETAIL_TYPES.resultChanged, fresh.transactionId)).toHaveLength(1);
      });

      // Assess: the events.
      const validate = eventValidators()[DETAIL_TYPES.resultChanged];
      const [changedSame] = ofType(DETAIL_TYPES.resultChanged, same.transactionId);
      const [changedNew] = ofType(DETAIL_TYPES.resultChanged, fresh.transactionId);
      expect(changedSame!.detail).toMatchObject({
        resultId: firstSame,
        previousResultId: firstSame,
        version: 2,
        previousVersion: 1,
        result: 'DISAPPROVED',
        previousResult: 'APPROVED',
        sections: { identity: 'DISAPPROVED' },
        previousSections: { identity: 'APPROVED' },
        completed: overturnedSame.completed,
      });
      expect(changedNew!.detail).toMatchObject({
        resultId: overturnedNew.resultId,
        previousResultId: firstNew,
        version: 2,
        result: 'DISAPPROVED',
        previousResult: 'APPROVED',
      });
      expect(validate(changedSame!.detail)).toBe(true);
      expect(validate(changedNew!.detail)).toBe(true);
      // No second Stored for the resultId announced again; a Stored for the new one.
      expect(ofType(DETAIL_TYPES.resultStored, same.transactionId)).toHaveLength(1);
      expect(ofType(DETAIL_TYPES.resultStored, fresh.transactionId).map((e) => e.detail['resultId'])).toEqual(
        [firstNew, overturnedNew.resultId],
      );

      // Assess: the stored history, through the CLI.
      const item = await idv(['results', 'get', firstSame!]);
      expect(item).toMatchObject({ version: 2, result: 'DISAPPROVED', completed: overturnedSame.completed });
      expect(item.versions.map((v: { version: number; result: string }) => [v.version, v.result])).toEqual([
        [1, 'APPROVED'],
        [2, 'DISAPPROVED'],
      ]);
      const byTransaction = await idv(['results', 'by-transaction', fresh.transactionId]);
      expect(
        byTransaction.map((r: { resultId: string; version?: number; result: string }) => [
          r.resultId,
          r.version ?? 1,
          r.result,
        ]),
      ).toEqual([
        [firstNew, 1, 'APPROVED'],
        [overturnedNew.resultId, 2, 'DISAPPROVED'],
      ]);

      // Assess: the analytics rows — the saved query lists both changes, one row per version.
      const overturned = await idv(['analytics', 'query', '--saved', 'overturned-verdicts']);
      expect(
        overturned
          .filter((r: { transaction_id: string }) =>
            [same.transactionId, fresh.transactionId].includes(r.transaction_id),
          )
          .map((r: Record<string, unknown>) => [
            r['transaction_id'],
            r['result_id'],
            r['version'],
            r['from_result'],
            r['to_result'],
          ])
          .sort(),
      ).toEqual(
        [
          [same.transactionId, firstSame, 2, 'APPROVED', 'DISAPPROVED'],
          [fresh.transactionId, overturnedNew.resultId, 2, 'APPROVED', 'DISAPPROVED'],
        ].sort(),
      );
      const latest = await idv([
        'analytics',
        'query',
        `SELECT result_id, version, result FROM results WHERE transaction_id = '${same.transactionId}'`,
      ]);
      expect(latest).toEqual([{ result_id: firstSame, version: 2, result: 'DISAPPROVED' }]);

      // The markers every copy of the result data holds: the references and the person's name.
      const name = (await client.getResult(firstSame!)).identity?.data?.name?.fullname;
      expect(typeof name).toBe('string');
      const markers = ['ovt-same-Qz7Kx3', 'ovt-new-Wp4Tn8', String(name)];
      expect(scan(dataDir, 'ovt-same-Qz7Kx3').length).toBeGreaterThan(0);

      // Act: erase one transaction, and the other by the resultId of its new version (which takes both).
      const erased = [
        await idv([
          'results',
          'erase',
          '--transaction-id',
          same.transactionId,
          '--principal',
          'overturn-test',
        ]),
        await idv([
          'results',
          'erase',
          '--result-id',
          overturnedNew.resultId,
          '--principal',
          'overturn-test',
        ]),
      ];

      // Assess: every version reported and gone.
      expect(erased[0].erased.map((e: { erasedResultId: string }) => e.erasedResultId)).toEqual([firstSame]);
      expect(erased[0].erased[0].versions).toEqual([
        { version: 1, resultId: firstSame, objectsPrefix: `results/${firstSame}/` },
        { version: 2, resultId: firstSame, objectsPrefix: `results/${firstSame}/versions/2/` },
      ]);
      expect(erased[1].erased.map((e: { erasedResultId: string }) => e.erasedResultId).sort()).toEqual(
        [firstNew, overturnedNew.resultId].sort(),
      );
      for (const resultId of [firstSame!, firstNew!, overturnedNew.resultId]) {
        const [plan] = (await idv(['results', 'erase', '--result-id', resultId, '--dry-run'])).results;
        expect(plan).toMatchObject({ objects: { keys: [] }, analyticsRows: [], erased: { state: 'ERASED' } });
      }
      run.child.kill('SIGINT');
      await run.exited;
      for (const marker of markers) expect(scan(dataDir, marker), marker).toEqual([]);
    } finally {
      run.child.kill('SIGINT');
      await run.exited;
    }
  }, 240_000);
});
