/**
 * The next start finishes an erasure a kill left `ERASING` (local/erasure-resume.ts, called by
 * `npm start` before anything is fetched): on the local stack, an erasure that died at its journals step
 * is found by its record, run again under the principal and selector the record names, and ends `ERASED`
 * with the result's item and objects gone; the start says so in one line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localErasureReaches } from '../../local/erase-local-files';
import { finishUnfinishedErasures } from '../../local/erasure-resume';
import { DEFAULT_COPY_BOUNDS } from '../../shared/erasure/bounds';
import { eraseResult } from '../../shared/erasure/erase-result';
import { ErasureRecords } from '../../shared/store/erasure-record';
import { putStoredResult, startLocalStore } from '../support/local-store';

const RESULT_ID = 'res-resume-1';
const dataDir = mkdtempSync(join(tmpdir(), 'idv-erase-resume-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('an erasure a kill left ERASING', () => {
  it('is finished by the next start, under the principal the record names, with a line', async () => {
    // Prepare: a stored result, and an erasure that died at its journals step.
    const local = await startLocalStore('idv-local', { dataDir });
    const lines: string[] = [];
    try {
      await putStoredResult(
        local,
        { resultId: RESULT_ID },
        { transactionId: 'tx-resume', result: 'APPROVED' },
      );
      const killed = eraseResult(
        {
          dynamo: local.dynamo,
          s3: local.s3,
          tableName: local.resources.tableName,
          bucketName: local.resources.bucketName,
          dialect: 'local',
          reaches: {
            ...localErasureReaches(dataDir),
            journals: {
              find: async () => [],
              remove: async () => {
                throw new Error('killed');
              },
            },
          },
          receipt: { local: true, analytics: false, bounds: DEFAULT_COPY_BOUNDS },
          events: { publish: async () => undefined },
        },
        RESULT_ID,
        { principal: 'dpo-resume', selectedBy: 'transaction-id' },
      );
      await expect(killed).rejects.toThrow('killed');
      const records = new ErasureRecords(local.dynamo, local.resources.tableName);
      expect(await records.get(RESULT_ID)).toMatchObject({ state: 'ERASING', left: expect.any(Array) });

      // Act
      await finishUnfinishedErasures(local.aws, local.resources, dataDir, (line) => lines.push(line));

      // Assess
      expect(lines).toEqual([`↺ finished the erasure of ${RESULT_ID} an earlier run left unfinished`]);
      const record = await records.get(RESULT_ID);
      expect(record).toMatchObject({
        state: 'ERASED',
        principal: 'dpo-resume',
        selectedBy: 'transaction-id',
      });
      expect(record?.left).toBeUndefined();
      expect(await local.store.getItem(RESULT_ID)).toBeUndefined();
      // Nothing left to finish: the next start says nothing.
      await finishUnfinishedErasures(local.aws, local.resources, dataDir, (line) => lines.push(line));
      expect(lines).toHaveLength(1);
    } finally {
      await local.close();
    }
  }, 120_000);
});
