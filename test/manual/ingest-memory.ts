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

/**
 * Every attack as a generator of its body, in pieces of any size. Repeated pieces are made once: the
 * harness itself must not make garbage that the figures would then count.
 */
const ATTACKS: Record<string, () => Generator<Buffer>> = {
  /** One 50 MB string that is not blob data. */
  *string50mb() {
    yield Buffer.from('{"result":"APPROVED","note":"');
    const piece = Buffer.alloc(CHUNK, 0x61);
    for (let i = 0; i < 50 * 16; i++) yield piece;
    yield Buffer.from('"}');
  },
  /** 5 million reason codes (95 MB). */
  *reasons5m() {
    yield Buffer.from('{"result":"DECLINED","messages":["FACE_MISMATCH_17"');
    const piece = Buffer.from(',"FACE_MISMATCH_17"'.repeat(5000));
    for (let i = 0; i < 1000; i++) yield piece;
    yield Buffer.from(']}');
  },
  /** 2 million keys in one object (27 MB). */
  *keys2m() {
    yield Buffer.from('{"result":"APPROVED","metadata":{"k":0');
    for (let i = 0; i < 2000; i++) {
      yield Buffer.from(Array.from({ length: 1000 }, (_, j) => `,"k${i * 1000 + j}":0`).join(''));
    }
    yield Buffer.from('}}');
  },
  /** 100,000 arrays nested. */
  *deep100k() {
    yield Buffer.from(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  },
  /** 1 GB of small objects: the value ceiling's worst case. */
  *objects1gb() {
    yield Buffer.from('{"items":[{}');
    const piece = Buffer.from(',{"a":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}'.repeat(2000));
    for (let sent = 0; sent < GB; sent += piece.length) yield piece;
    yield Buffer.from(']}');
  },
  /** 1 GB of whitespace between two fields: valid JSON, accepted. */
  *whitespace1gb() {
    yield Buffer.from('{"result":"APPROVED",');
    const spaces = Buffer.alloc(CHUNK, 0x20);
    for (let sent = 0; sent < GB; sent += CHUNK) yield spaces;
    yield Buffer.from('"transactionId":"t"}');
  },
  /** 1 GB of tiny files (about 48,000 of 16 KiB each): past the object ceiling. */
  *files1gb() {
    yield Buffer.from('{"result":"APPROVED","files":[{}');
    const data = Buffer.alloc(16 * 1024, 0x25).toString('base64');
    const entry = Buffer.from(`,{"documentType":"OTHER","data":"${data}"}`);
    for (let sent = 0; sent < GB; sent += entry.length) yield entry;
    yield Buffer.from(']}');
  },
  /** 20,000 files of 16 KiB (440 MB): the object ceiling, accepted. */
  *files20k() {
    yield Buffer.from('{"result":"APPROVED","files":[{}');
    const data = Buffer.alloc(16 * 1024, 0x25).toString('base64');
    const entry = Buffer.from(`,{"documentType":"OTHER","data":"${data}"}`);
    for (let i = 0; i < 20_000; i++) yield entry;
    yield Buffer.from(']}');
  },
  /** The largest document every ceiling lets through at once, nearly. */
  *atCeilings() {
    yield Buffer.from('{"result":"APPROVED","notes":[""');
    const note = Buffer.from(`,"${'n'.repeat(60_000)}"`);
    for (let i = 0; i < 60; i++) yield note;
    yield Buffer.from('],"metadata":{"k":0');
    for (let i = 0; i < 99; i++) {
      yield Buffer.from(Array.from({ length: 1000 }, (_, j) => `,"k${i * 1000 + j}":1.5`).join(''));
    }
    yield Buffer.from('}}');
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
  /** The attack's text in fresh chunks of 64 KiB, as a socket hands them over. */
  async function* body(): AsyncIterable<Uint8Array> {
    let chunk = Buffer.allocUnsafe(CHUNK);
    let filled = 0;
    for (const bytes of ATTACKS[name]!()) {
      for (let at = 0; at < bytes.length; ) {
        const n = bytes.copy(chunk, filled, at);
        at += n;
        filled += n;
        if (filled === CHUNK) {
          bodyBytes += CHUNK;
          yield chunk;
          chunk = Buffer.allocUnsafe(CHUNK);
          filled = 0;
        }
      }
    }
    if (filled > 0) {
      bodyBytes += filled;
      yield chunk.subarray(0, filled);
    }
  }
  const target = {
    putSmall: async () => {},
    startLarge: () => ({
      space: () => undefined,
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
