/**
 * The local run's stores of a result beyond the emulators, as the erasure reaches them: the analytics
 * projection (local/analytics-store.ts) and the local run's own files that name results: the event log (`events.jsonl`, the
 * local EventBridge's archive and the source the analytics projection is backfilled from), the rule
 * outputs (`rules/*.jsonl`), the trace journal (`trace.jsonl`) and the queue journal
 * (`queue-journal.jsonl`, local/queue-journal.ts). An erasure drops every line that
 * names the result, so neither a replay nor a backfill can bring its row back; the
 * `VerificationResultErased` event stays (it is the proof). Each file is rewritten
 * to a temporary file and renamed over the old one; a line a running `npm start` appends in between is
 * lost with the old file (a local tool's trade-off, see docs/local-run.md).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ErasureReaches } from '../shared/erasure/erase-result';
import type { TraceReach } from '../shared/erasure/traces';
import { DETAIL_TYPES } from '../shared/events/names';
import { removeStaleSnapshots, snapshotDirs } from './analytics-snapshots';
import { eraseLocalProjectionResult, findLocalProjectionResult } from './analytics-store';
import { writeFileAtomic } from './atomic-file';
import { TRACE_JOURNAL } from './console-journal';
import { dropJournalMessages, journalMessageLines, QUEUE_JOURNAL } from './queue-journal';

/**
 * What an erasure reaches in the local run beyond the emulators (shared/erasure/erase-result.ts takes
 * them): the analytics projection of the data directory and its journals.
 */
export function localErasureReaches(dataDir: string): ErasureReaches {
  return {
    projection: {
      find: async (resultId) => [
        ...(await findLocalProjectionResult(dataDir, resultId)),
        ...snapshotDirs(dataDir).map((dir) => `${dir} (an analyst's snapshot of the projection)`),
      ],
      remove: async (resultId) => {
        const rows = await eraseLocalProjectionResult(dataDir, resultId);
        // Then the analysts' copies (local/analytics-snapshots.ts): those a crash left go; one a running
        // command holds may hold the row, so the step fails (ERASING, naming the analytics row) until it ends.
        const { live } = removeStaleSnapshots(dataDir);
        if (live.length > 0)
          throw new Error(
            `an analyst command (pid ${live.join(', ')}) holds a snapshot of the projection that may hold the row: let it end (or stop it), then run the erasure again`,
          );
        return rows;
      },
    },
    journals: localJournalReach(dataDir),
  };
}

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
 * `res-10`), per file (its path under `dataDir`); with `remove`, the files are rewritten without them.
 */
export function scrubLocalJournals(
  dataDir: string,
  resultId: string,
  remove: boolean,
): { file: string; lines: number }[] {
  const needle = JSON.stringify(resultId);
  // The erasure's own event is the proof, not a trace of the result: it stays.
  const proof = `"detail-type":${JSON.stringify(DETAIL_TYPES.resultErased)}`;
  const found: { file: string; lines: number }[] = [];
  for (const file of localJournalFiles(dataDir)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const kept = lines.filter((line) => !line.includes(needle) || line.includes(proof));
    const dropped = lines.length - kept.length;
    if (dropped === 0) continue;
    found.push({ file: relative(dataDir, file), lines: dropped });
    if (!remove) continue;
    writeFileAtomic(file, kept.join('\n'));
  }
  return found;
}

/**
 * The local journals as the erasure reaches them (the `local-journals` trace of shared/erasure/traces.ts):
 * `find` names each file with its count of lines, `remove` rewrites the files and counts the lines.
 */
export function localJournalReach(dataDir: string): TraceReach {
  const count = (found: { lines: number }[]) => found.reduce((sum, f) => sum + f.lines, 0);
  const queueJournal = join(dataDir, QUEUE_JOURNAL);
  return {
    find: async (resultId) => {
      const queued = journalMessageLines(queueJournal, new Set([resultId]));
      return [
        ...scrubLocalJournals(dataDir, resultId, false).map((f) => `${f.file}: ${f.lines} line(s)`),
        ...(queued > 0 ? [`${QUEUE_JOURNAL}: ${queued} line(s)`] : []),
      ];
    },
    // The queue journal too: its lines keep a message's body (the polling record's fields), and a restart
    // would put the message back into its queue.
    remove: async (resultId) =>
      count(scrubLocalJournals(dataDir, resultId, true)) +
      dropJournalMessages(queueJournal, new Set([resultId])),
  };
}
