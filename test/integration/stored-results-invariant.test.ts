/**
 * The invariant of issue 20, point 2, over every body the streaming tests use (real simulator results,
 * the streaming fixtures, every document attack and the duplicate-key attacks): a result fetch-result
 * reports stored reads back as `idv results get --out` reads it (`downloadResult`, which checks each
 * object's SHA-256 against its `ObjectRef`), its `objectCount` is the number of its objects, and the
 * objects under its prefix are exactly those the item and result.json name. A result it refuses leaves
 * no item and no event. Real ResultStore on the emulators (s3rver, dynalite).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../shared/client/errors';
import { type FetchResultDeps, processMessage } from '../../shared/pipeline/fetch-result';
import { downloadResult, getResult, objectRefs, withFullDocument } from '../../shared/queries/results';
import { resultIdKeyPart, resultJsonKey } from '../../shared/store/keys';
import { DOCUMENT_LIMITS } from '../../shared/stream/result-ingest';
import { buildResult, type ResultInput } from '../../simulator/results';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { FakePublisher, memoryLogger } from '../support/pipeline-fakes';

const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
const jpeg = (bytes: number, fill: number) => Buffer.concat([JPEG_HEAD, Buffer.alloc(bytes - 4, fill)]);
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(300, 9),
]);
const b64 = (bytes: Buffer) => bytes.toString('base64');

const simulator = (input: Partial<ResultInput>): string =>
  JSON.stringify(
    buildResult({
      seed: 7,
      transactionId: 'tx-inv',
      product: 'IDV_STANDARD',
      outcome: 'APPROVED',
      sections: { identity: true },
      completedAt: Date.UTC(2026, 0, 15),
      ...input,
    }),
  );

/** Every body, by resultId. */
const BODIES: Record<string, string> = {
  // Real results, as the simulator builds them.
  'sim-identity': simulator({}),
  'sim-face': simulator({ seed: 8, sections: { identity: true, faceVerify: true, faceLink: true } }),
  'sim-declined': simulator({
    seed: 9,
    outcome: 'DISAPPROVED',
    sections: { identity: true, faceVerify: true },
  }),
  // The streaming fixtures: a multipart blob and dialects of base64, an empty and a null data.
  large: JSON.stringify({
    result: 'APPROVED',
    images: [
      {
        data: b64(jpeg(6 * 1024 * 1024, 1)).replace(/(.{76})/g, '$1\n'),
        documentType: 'PASSPORT',
        pageType: 'FRONT',
      },
      { data: `data:image/png;base64,${PNG.toString('base64url')}`, documentType: 'LIVE', pageType: 'ANY' },
      { data: '', documentType: 'LIVE' },
      { data: null },
    ],
    files: [{ data: b64(Buffer.from('%PDF-1.4 report')), documentType: 'REPORT' }],
  }),
  'same-names': JSON.stringify({
    images: [
      { documentType: 'PASSPORT', pageType: 'FRONT', data: b64(jpeg(500, 2)) },
      { documentType: 'PASSPORT', pageType: 'FRONT', data: b64(jpeg(600, 3)) },
      { documentType: 'Jan Jansen', pageType: '../../x', data: b64(jpeg(700, 4)) },
    ],
  }),
  // The attack: `images` twice, a 6 MiB PASSPORT/FRONT first, a 104-byte one second.
  'dup-images': `{"result":"APPROVED","images":[{"data":"${b64(jpeg(6 * 1024 * 1024, 5))}","documentType":"PASSPORT","pageType":"FRONT"}],"images":[{"data":"${b64(jpeg(104, 6))}","documentType":"PASSPORT","pageType":"FRONT"}]}`,
  'dup-data': `{"images":[{"data":"${b64(jpeg(300, 7))}","documentType":"PASSPORT","data":"${b64(jpeg(200, 8))}"}]}`,
  'dup-type': `{"images":[{"data":"${b64(jpeg(300, 7))}","documentType":"PASSPORT","documentType":"ID_CARD"}]}`,
  'dup-section': `{"result":"APPROVED","identity":{"result":"APPROVED","result":"DISAPPROVED"}}`,
  'dup-root': `{"result":"DISAPPROVED","result":"APPROVED"}`,
  // The document attacks, small.
  'long-string': `{"result":"APPROVED","note":"${'a'.repeat(DOCUMENT_LIMITS.stringBytes + 1)}"}`,
  'many-values': `{"messages":[${Array(DOCUMENT_LIMITS.values).fill('"A"').join(',')}]}`,
  'many-keys': `{"m":{${Array.from({ length: DOCUMENT_LIMITS.keys + 1 }, (_, i) => `"k${i}":0`).join(',')}}}`,
  deep: `{"a":${'['.repeat(100_000)}`,
  // Other refusals: nothing of them may be announced either.
  'bad-base64': `{"images":[{"data":"${b64(jpeg(300, 1))}","documentType":"LIVE"},{"data":"%%%"}]}`,
  'not-image': `{"images":[{"data":"${b64(Buffer.from('%PDF-1.4'))}"}]}`,
  'not-object': '[{"result":"APPROVED"}]',
  'not-json': '<html>error</html>',
};

const STORED = ['sim-identity', 'sim-face', 'sim-declined', 'large', 'same-names'];

let local: LocalStore;
let dir: string;

beforeAll(async () => {
  local = await startLocalStore('idv-inv', { ingest: { smallLimit: 1024 * 1024, concurrency: 2 } });
  dir = await mkdtemp(join(tmpdir(), 'idv-inv-'));
}, 60_000);

afterAll(async () => {
  await local?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function deps(publisher: FakePublisher): FetchResultDeps {
  return {
    // The body in chunks of 7 KiB: every token may be split.
    source: {
      getResultStream: async (resultId) => {
        const text = BODIES[resultId];
        if (text === undefined) throw new NotFoundError('service answered 404', { status: 404 });
        const bytes = Buffer.from(text);
        return (async function* () {
          for (let at = 0; at < bytes.length; at += 7 * 1024) yield bytes.subarray(at, at + 7 * 1024);
        })();
      },
    },
    store: local.store,
    publications: local.publications,
    publisher,
    environment: 'staging',
    retentionDays: 7,
    logger: memoryLogger().logger,
  };
}

describe('every result announced as stored reads back with every checksum matching', () => {
  it.each(Object.keys(BODIES))(
    '%s',
    async (resultId) => {
      // Prepare
      const publisher = new FakePublisher();

      // Act
      const outcome = await processMessage({ resultId, source: 'poll' }, deps(publisher)).catch(
        (error: { reason?: string }) => `refused ${error.reason}`,
      );

      // Assess
      const queries = { dynamo: local.dynamo, s3: local.s3, tableName: local.resources.tableName };
      const item = await getResult(queries, resultId);
      // The simulator's bodies share one transaction: after the first, each is stored as its next version.
      if (outcome !== 'stored' && outcome !== 'changed') {
        expect(STORED).not.toContain(resultId);
        expect(item).toBeUndefined();
        expect(publisher.stored).toEqual([]);
        return;
      }
      const full = await withFullDocument(queries, item!);
      const files = await downloadResult(queries, full, join(dir, resultId));
      const refs = full.objects ?? [];
      expect(files).toHaveLength(refs.length + 1);
      expect(item!.objectCount).toBe(refs.length);
      expect(publisher.stored[0]!.storage.objectCount).toBe(refs.length);
      expect(objectRefs(full.document!)).toEqual(refs);
      const listed = await local.s3.send(
        new ListObjectsV2Command({
          Bucket: local.resources.bucketName,
          Prefix: `results/${resultIdKeyPart(resultId)}/`,
        }),
      );
      const keys = (listed.Contents ?? []).map((o) => o.Key!).filter((k) => k !== resultJsonKey(resultId));
      expect(keys.sort()).toEqual(refs.map((r) => r.key).sort());
      expect(STORED).toContain(resultId);
    },
    60_000,
  );
});
