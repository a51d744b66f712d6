/**
 * Peak memory of the streamed result ingest under hostile document shapes, run by hand:
 * `npx tsx test/manual/ingest-memory.ts [attack…]`. Each attack runs in its own child process (capped at
 * `--max-old-space-size=200`, as in a 256 MB function) that generates the body in 64 KiB chunks as it is
 * read, stores it the way `ResultStore.storeResult` does (ingest, then `result.json` serialised, then the
 * item built) into a target that drops the blobs, and prints the kernel's peak RSS (VmHWM) before and
 * after. The figures are quoted in docs/pipeline.md ("Bad input").
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CHUNK = 64 * 1024;
const GB = 1024 * 1024 * 1024;

/** Every attack as a generator of its body text, in pieces of any size. */
const ATTACKS: Record<string, () => Generator<string>> = {
  /** One 50 MB string that is not blob data. */
  *string50mb() {
    yield '{"result":"APPROVED","note":"';
    for (let i = 0; i < 50 * 16; i++) yield 'a'.repeat(CHUNK);
    yield '"}';
  },
  /** 5 million reason codes (95 MB). */
  *reasons5m() {
    yield '{"result":"DECLINED","messages":[';
    const piece = Array(5000).fill('"FACE_MISMATCH_17"').join(',');
    for (let i = 0; i < 1000; i++) yield (i ? ',' : '') + piece;
    yield ']}';
  },
  /** 2 million keys in one object (27 MB). */
  *keys2m() {
    yield '{"result":"APPROVED","metadata":{';
    for (let i = 0; i < 2000; i++) {
      yield Array.from({ length: 1000 }, (_, j) => `${i || j ? ',' : ''}"k${i * 1000 + j}":0`).join('');
    }
    yield '}}';
  },
  /** 100,000 arrays nested. */
  *deep100k() {
    yield '{"a":';
    yield '['.repeat(100_000);
    yield ']'.repeat(100_000);
    yield '}';
  },
  /** 1 GB of small objects: the value ceiling's worst case. */
  *objects1gb() {
    yield '{"items":[';
    const piece = Array(2000).fill('{"a":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}').join(',');
    for (let sent = 0, i = 0; sent < GB; sent += piece.length + 1, i++) yield (i ? ',' : '') + piece;
    yield ']}';
  },
  /** 1 GB of whitespace between two fields: valid JSON, accepted. */
  *whitespace1gb() {
    yield '{"result":"APPROVED",';
    const spaces = ' '.repeat(CHUNK);
    for (let sent = 0; sent < GB; sent += CHUNK) yield spaces;
    yield '"transactionId":"t"}';
  },
  /** 1 GB of tiny files (about 48,000 of 16 KiB each): accepted, each written. */
  *files1gb() {
    yield '{"result":"APPROVED","files":[';
    const data = Buffer.alloc(16 * 1024, 0x25).toString('base64');
    const entry = `{"documentType":"OTHER","data":"${data}"}`;
    for (let sent = 0, i = 0; sent < GB; sent += entry.length + 1, i++) yield (i ? ',' : '') + entry;
    yield ']}';
  },
  /** The largest document every ceiling lets through at once, nearly. */
  *atCeilings() {
    yield '{"result":"APPROVED","notes":[';
    const note = `"${'n'.repeat(60_000)}"`;
    for (let i = 0; i < 60; i++) yield (i ? ',' : '') + note;
    yield '],"metadata":{';
    for (let i = 0; i < 99; i++) {
      yield Array.from({ length: 1000 }, (_, j) => `${i || j ? ',' : ''}"k${i * 1000 + j}":1.5`).join('');
    }
    yield '}}';
  },
};

function status(): { hwm: number; rss: number } {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kb = (name: string) => Number(text.match(new RegExp(`${name}:\\s+(\\d+) kB`))?.[1]);
  return { hwm: Math.round(kb('VmHWM') / 1024), rss: Math.round(kb('VmRSS') / 1024) };
}

async function child(name: string): Promise<void> {
  const { ingestResult } = await import('../../shared/stream/result-ingest');
  const { resultBlobNames } = await import('../../shared/store/keys');
  const { buildStoredItem } = await import('../../shared/store/item');
  let bodyBytes = 0;
  async function* body(): AsyncIterable<Uint8Array> {
    let pending: Buffer[] = [];
    let size = 0;
    for (const text of ATTACKS[name]!()) {
      pending.push(Buffer.from(text));
      size += pending[pending.length - 1]!.length;
      while (size >= CHUNK) {
        const all = Buffer.concat(pending);
        yield all.subarray(0, CHUNK);
        bodyBytes += CHUNK;
        pending = [all.subarray(CHUNK)];
        size = all.length - CHUNK;
      }
    }
    if (size > 0) {
      bodyBytes += size;
      yield Buffer.concat(pending);
    }
  }
  const target = {
    putSmall: async () => {},
    startLarge: () => ({
      write: () => true,
      drained: async () => {},
      finish: async () => {},
      abort: async () => {},
    }),
    promote: async () => {},
    discard: async () => {},
  };
  const before = status();
  const started = performance.now();
  let outcome: string;
  try {
    const ingested = await ingestResult(body(), target, resultBlobNames('r'));
    const json = Buffer.from(JSON.stringify(ingested.document));
    const item = buildStoredItem({
      hints: { resultId: 'r' },
      document: ingested.document,
      stored: { resultKey: 'k', objects: ingested.objects, documentBytes: json.length },
      bucket: 'b',
      storedAt: new Date().toISOString(),
      retentionDays: 1,
    });
    outcome = `stored (${ingested.objects.length} objects, result.json ${json.length} B, item ${item.status})`;
  } catch (error) {
    outcome = `refused: ${(error as { reason?: string }).reason ?? (error as Error).name}`;
  }
  const after = status();
  console.log(
    JSON.stringify({
      attack: name,
      bodyMB: Math.round(bodyBytes / 1048576),
      outcome,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      hwmBeforeMB: before.hwm,
      hwmAfterMB: after.hwm,
      growthMB: after.hwm - before.hwm,
    }),
  );
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!);
} else {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(ATTACKS);
  for (const name of names) {
    const run = spawnSync(
      process.execPath,
      ['--max-old-space-size=200', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', name],
      { encoding: 'utf8' },
    );
    process.stdout.write(
      run.stdout || `${JSON.stringify({ attack: name, exit: run.status, signal: run.signal })}\n`,
    );
    if (run.status !== 0) process.stderr.write(run.stderr.slice(-2000));
  }
}
