/**
 * The local run's own files that name results, beyond the emulators: the event log (`events.jsonl`, the
 * local EventBridge's archive and the source the analytics projection is backfilled from), the rule
 * outputs (`rules/*.jsonl`) and the trace journal (`trace.jsonl`). An erasure drops every line that
 * names the result, so neither a replay nor a backfill can bring its row back; the
 * `VerificationResultErased` event stays (it is the proof). Each file is rewritten
 * to a temporary file and renamed over the old one; a line a running `npm start` appends in between is
 * lost with the old file (a local tool's trade-off, see docs/local-run.md).
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DETAIL_TYPES } from '../shared/events/names';
import { TRACE_JOURNAL } from './console-journal';

/** The local files an erasure rewrites. */
export function localJournalFiles(dataDir: string): string[] {
  const rulesDir = join(dataDir, 'rules');
  const rules = existsSync(rulesDir)
    ? readdirSync(rulesDir)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => join(rulesDir, name))
    : [];
  return [join(dataDir, 'events.jsonl'), join(dataDir, TRACE_JOURNAL), ...rules].filter((file) =>
    existsSync(file),
  );
}

/**
 * Lines of the local journals that name `resultId` (as a whole JSON string, so `res-1` does not match
 * `res-10`); with `remove`, the files are rewritten without them. Returns the count.
 */
export function scrubLocalJournals(dataDir: string, resultId: string, remove: boolean): number {
  const needle = JSON.stringify(resultId);
  // The erasure's own event is the proof, not a trace of the result: it stays.
  const proof = `"detail-type":${JSON.stringify(DETAIL_TYPES.resultErased)}`;
  let count = 0;
  for (const file of localJournalFiles(dataDir)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const kept = lines.filter((line) => !line.includes(needle) || line.includes(proof));
    const dropped = lines.length - kept.length;
    if (dropped === 0) continue;
    count += dropped;
    if (!remove) continue;
    const temporary = `${file}.${process.pid}.erase.tmp`;
    writeFileSync(temporary, kept.join('\n'), { mode: 0o600 });
    renameSync(temporary, file);
  }
  return count;
}
