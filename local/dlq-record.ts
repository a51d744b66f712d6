/**
 * The local DLQ as its durable records tell it, without a single receive: the messages come from the
 * queue journal (`queue-journal.jsonl`: every message put into the DLQ and not taken out again, which
 * survives a restart), and the deliveries, the reason and the attempt times from the trace journal
 * (`trace.jsonl`: each failed fetch with its reason code). So looking at the DLQ changes nothing (an SQS
 * receive would add one to each message's receive count), and a restart loses neither the reason nor the
 * times.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DlqEntry, dlqEntry } from '../shared/queries/dlq';
import { readJournal } from './console-journal';
import { LOCAL_DLQ_NAME } from './pipeline-resources';
import { pendingMessages, QUEUE_JOURNAL } from './queue-journal';

/**
 * A DLQ message with what the run recorded of it: `receiveCount` is the deliveries that failed before
 * it reached the DLQ (not SQS's counter, which every look would raise), `reason` and `lastAttemptAt`
 * those of its last failed fetch.
 */
export type RecordedDlqEntry = DlqEntry & { reason?: string; lastAttemptAt?: string };

/** The messages in the local DLQ of `dataDir`, oldest first, from the journals only. */
export function recordedDlq(dataDir: string, dlqName = LOCAL_DLQ_NAME): RecordedDlqEntry[] {
  const file = join(dataDir, QUEUE_JOURNAL);
  if (!existsSync(file)) return [];
  const messages = pendingMessages(readFileSync(file, 'utf8')).get(dlqName);
  if (!messages || messages.size === 0) return [];
  const attempts = attemptsByMessage(dataDir);
  return [...messages].map(([messageId, body]) => {
    const entry = dlqEntry({ MessageId: messageId, Body: body });
    const seen = attempts.get(messageId);
    if (!seen) return { ...entry, receiveCount: 0 };
    return {
      ...entry,
      receiveCount: seen.failed,
      ...(seen.sentAt && { sentAt: seen.sentAt }),
      ...(seen.firstAt && { firstReceiveAt: seen.firstAt }),
      ...(seen.reason && { reason: seen.reason }),
      ...(seen.lastFailedAt && { lastAttemptAt: seen.lastFailedAt }),
    };
  });
}

interface Attempts {
  failed: number;
  sentAt?: string;
  firstAt?: string;
  lastFailedAt?: string;
  reason?: string;
}

/** Per queue message: its announcement, its first fetch, and its failed fetches (count, last reason). */
function attemptsByMessage(dataDir: string): Map<string, Attempts> {
  const attempts = new Map<string, Attempts>();
  for (const line of readJournal(dataDir)) {
    if (!line.messageId) continue;
    const seen = attempts.get(line.messageId) ?? { failed: 0 };
    attempts.set(line.messageId, seen);
    if (line.kind === 'announced' || line.kind === 'redriven') seen.sentAt ??= line.at;
    if (line.kind !== 'fetch') continue;
    seen.firstAt ??= line.at;
    if (line.outcome !== 'failed') continue;
    seen.failed++;
    seen.lastFailedAt = line.at;
    seen.reason = line.reason ?? 'unknown';
  }
  return attempts;
}
