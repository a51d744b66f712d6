/**
 * The DynamoDB emulator (dynalite) keeps its data in LevelDB, which deletes by appending a tombstone: the
 * bytes of a deleted item stay in the log and table files until a compaction rewrites them. An erasure
 * (`idv results erase --local`) must leave nothing behind on disk, so the emulator's directory is
 * compacted whenever the emulators close on a data directory (`local-aws.ts`): every file holding a
 * deleted item is rewritten without it. Measured on a data directory with one planted, then deleted
 * item: before compaction the log file still held it, after it no file did. The tables are rewritten
 * without compression, so what the directory holds can be checked byte by byte.
 */
import { ClassicLevel } from 'classic-level';

/** Compacts the whole key range of the LevelDB database at `path` (closed by its owner first). */
export async function compactDynamoData(path: string): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  // Rewritten tables uncompressed: a byte scan of the directory (the erasure test's) then reads every
  // value as stored; Snappy blocks would hide live and deleted values alike.
  await db.open({ compression: false });
  try {
    await db.compactRange(Buffer.from([0x00]), Buffer.alloc(64, 0xff));
  } finally {
    await db.close();
  }
}
