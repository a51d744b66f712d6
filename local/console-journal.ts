/**
 * The local run's trace journal, `<data-dir>/trace.jsonl` (owner-only): one line per step of a result's
 * story as `npm start` sees it — each queue message received (its announcement on the first delivery, and
 * every fetch attempt with its outcome and reason code), each event published, each move to the DLQ. It
 * is the local stand-in for CloudWatch Logs Insights in `idv results trace --local` and the console.
 * Lines hold identifiers, sources, outcomes and reason codes only: never a body or a log's free text.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseQueueMessage } from '../shared/pipeline/messages';
import { reasonCodeOf, type TraceStep } from '../shared/queries/trace';
import type { LocalEvent } from './fake-eventbridge';
import type { RecordOutcome } from './sqs-event-source';

/** The journal's file name in the data directory. */
export const TRACE_JOURNAL = 'trace.jsonl';

/** One line: a step and the result it belongs to (upload messages have none and are not journaled). */
export type JournalLine = TraceStep & { resultId: string; messageId?: string };

/** A DLQ message newly seen by the run. */
export interface DlqMove {
  messageId: string;
  resultId?: string;
  receiveCount: number;
}

/** Writes the journal of one run and remembers the last failure reason of each result. */
export class TraceJournal {
  readonly #file: string;
  /**
   * Reason codes logged for each result's failed deliveries and not yet journaled, oldest first. Records
   * are journaled once their batch is done, and the webhook's and the poll's message of one result may fail
   * in turn in the same batch: each failed record takes the oldest reason, in the batch's order.
   */
  readonly #pendingReasons = new Map<string, string[]>();
  readonly #lastFailure = new Map<string, string>();
  readonly #failedDeliveries = new Map<string, number>();

  constructor(dataDir: string) {
    this.#file = join(dataDir, TRACE_JOURNAL);
  }

  get file(): string {
    return this.#file;
  }

  /**
   * A handler log entry (Powertools fields): only failures are kept, as the reason code of the result's
   * attempt in progress (the attempt itself is journaled by {@link record}).
   */
  log(entry: Record<string, unknown>): void {
    const resultId = typeof entry.resultId === 'string' ? entry.resultId : undefined;
    if (!resultId || typeof entry.message !== 'string' || !entry.message.startsWith('message failed')) return;
    const reason = reasonCodeOf(entry) ?? 'unknown';
    const pending = this.#pendingReasons.get(resultId);
    if (pending) pending.push(reason);
    else this.#pendingReasons.set(resultId, [reason]);
  }

  /** One processed queue record: its announcement (first delivery) and the attempt's outcome. */
  record(outcome: RecordOutcome, at = new Date()): void {
    let resultId: string;
    let source: string;
    try {
      const message = parseQueueMessage(outcome.body);
      if (message.kind === 'upload') return;
      ({ resultId, source } = message);
    } catch {
      return;
    }
    const base = { resultId, messageId: outcome.messageId, from: 'journal' as const };
    if (outcome.receiveCount === 1) {
      this.#append({
        ...base,
        at: new Date(outcome.sentAt).toISOString(),
        kind: source === 'redrive' ? 'redriven' : 'announced',
        source,
      });
    }
    const reason = outcome.failed ? this.#takeReason(resultId) : undefined;
    if (reason) {
      this.#lastFailure.set(resultId, reason);
      this.#failedDeliveries.set(outcome.messageId, outcome.receiveCount);
    } else this.#lastFailure.delete(resultId);
    this.#append({
      ...base,
      at: at.toISOString(),
      kind: 'fetch',
      attempt: outcome.receiveCount,
      outcome: outcome.failed ? 'failed' : 'ok',
      ...(reason && { reason }),
    });
  }

  /** The reason code of the result's last failed attempt in this run, if its last attempt failed. */
  lastFailure(resultId: string): string | undefined {
    return this.#lastFailure.get(resultId);
  }

  /** An event the local bus accepted. */
  event(event: LocalEvent): void {
    const resultId = event.detail.resultId;
    if (typeof resultId !== 'string') return;
    const replay = typeof event.detail.replay === 'string' ? event.detail.replay : undefined;
    this.#append({
      resultId,
      at: event.time,
      kind: replay ? 'replayed' : 'published',
      from: 'journal',
      outcome: event['detail-type'],
      ...(replay && { note: `replay ${replay}` }),
    });
  }

  /** A message that reached the DLQ, with the reason of its last failed attempt. */
  dlq(move: DlqMove, reason: string | undefined, at = new Date()): void {
    if (!move.resultId) return;
    this.#append({
      resultId: move.resultId,
      messageId: move.messageId,
      at: at.toISOString(),
      kind: 'dlq',
      from: 'journal',
      attempt: this.#failedDeliveries.get(move.messageId) ?? move.receiveCount,
      ...(reason && { reason }),
    });
  }

  /** The oldest pending reason of `resultId`'s failures (`unknown` when none was logged). */
  #takeReason(resultId: string): string {
    const pending = this.#pendingReasons.get(resultId);
    const reason = pending?.shift();
    if (pending?.length === 0) this.#pendingReasons.delete(resultId);
    return reason ?? 'unknown';
  }

  #append(line: JournalLine): void {
    appendFileSync(this.#file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
  }
}

/** The journal's lines, all or one result's, in file order (torn or foreign lines are skipped). */
export function readJournal(dataDir: string, resultId?: string): JournalLine[] {
  const file = join(dataDir, TRACE_JOURNAL);
  if (!existsSync(file)) return [];
  const lines: JournalLine[] = [];
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text.trim()) continue;
    try {
      const line = JSON.parse(text) as JournalLine;
      if (typeof line.resultId !== 'string' || typeof line.at !== 'string') continue;
      if (resultId === undefined || line.resultId === resultId) lines.push(line);
    } catch {
      // A line torn by a crash mid-write.
    }
  }
  return lines;
}

/** The trace steps of one result from the journal. */
export function journalSteps(dataDir: string, resultId: string): TraceStep[] {
  return readJournal(dataDir, resultId).map(({ resultId: _r, messageId: _m, ...step }) => step);
}

/** The last failure reason of each result in the journal (for the DLQ listing). */
export function lastFailureReasons(dataDir: string): Map<string, { reason: string; at: string }> {
  const reasons = new Map<string, { reason: string; at: string }>();
  for (const line of readJournal(dataDir)) {
    if (line.kind === 'fetch' && line.outcome === 'failed' && line.reason) {
      reasons.set(line.resultId, { reason: line.reason, at: line.at });
    }
  }
  return reasons;
}
