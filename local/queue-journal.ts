import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { messageResultId } from '../shared/erasure/queue-purge';
import { writeFileAtomic } from './atomic-file';

/** The queue journal's file name in the data directory. */
export const QUEUE_JOURNAL = 'queue-journal.jsonl';

/**
 * A durable local queue. The SQS emulator (fauxqs) keeps its queues in memory, so a local run killed
 * with SIGKILL would lose every message not yet processed — and a result the service already handed out
 * has no poll record left to find it again. The journal makes the queues durable without changing the
 * emulator: fauxqs reports every message it takes (`published`), deletes after processing (`consumed`)
 * and moves to a DLQ (`dlq`, followed by a `published` on the DLQ) to a spy; each report is appended to
 * `<data-dir>/queue-journal.jsonl` before the request is answered. At the next start every message that
 * was taken and never consumed — waiting, in flight, or in the DLQ — is put back into its queue with its
 * message id, and the journal is rewritten to just those. Processing is idempotent per resultId, so a
 * message that was being processed at the crash is simply processed again.
 */

/** One line of the journal. */
type JournalEntry = { op: 'put'; q: string; id: string; body: string } | { op: 'del'; q: string; id: string };

/** What fauxqs hands its spy (`SqsQueue.enqueue`, `deleteMessage`, `dequeue`). */
interface SpyMessage {
  service: string;
  queueName: string;
  messageId: string;
  body: string;
  status: string;
}

/** A spy as fauxqs calls it. */
interface Spy {
  addMessage(message: SpyMessage): void;
}

/** The parts of a fauxqs queue the journal uses. */
interface JournaledQueue {
  spy?: Spy | undefined;
  enqueue(message: object): void;
}

/** The parts of fauxqs's store the journal uses. */
export interface JournaledStore {
  getQueueByName(name: string): JournaledQueue | undefined;
}

/** Builds a fauxqs message (`SqsStore.createMessage`). */
export type MessageFactory = (body: string) => { messageId: string };

/** The messages a journal holds that were taken and never consumed, per queue name, in order. */
export function pendingMessages(text: string): Map<string, Map<string, string>> {
  const queues = new Map<string, Map<string, string>>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let entry: JournalEntry;
    try {
      entry = JSON.parse(line) as JournalEntry;
    } catch {
      // A line torn by a crash mid-write: its request was never answered, so its sender retries.
      continue;
    }
    const queue = queues.get(entry.q) ?? new Map<string, string>();
    queues.set(entry.q, queue);
    if (entry.op === 'put') queue.set(entry.id, entry.body);
    else queue.delete(entry.id);
  }
  return queues;
}

/** The journal of one data directory. */
export class QueueJournal {
  readonly #file: string;

  constructor(file: string) {
    this.#file = file;
  }

  /** The spy to set on the store before any queue exists (fauxqs copies it into each new queue). */
  readonly spy: Spy = {
    addMessage: (message: SpyMessage): void => {
      const entry: JournalEntry | undefined =
        message.status === 'published'
          ? { op: 'put', q: message.queueName, id: message.messageId, body: message.body }
          : message.status === 'consumed' || message.status === 'dlq'
            ? { op: 'del', q: message.queueName, id: message.messageId }
            : undefined;
      if (entry) appendFileSync(this.#file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    },
  };

  /**
   * Puts every pending message of the journal back into its queue (which must exist by now) and
   * rewrites the journal to just them. Returns how many were restored, per queue name.
   */
  restore(store: JournaledStore, createMessage: MessageFactory): Record<string, number> {
    const pending = existsSync(this.#file) ? pendingMessages(readFileSync(this.#file, 'utf8')) : new Map();
    const restored: Record<string, number> = {};
    const lines: string[] = [];
    for (const [name, messages] of pending as Map<string, Map<string, string>>) {
      const queue = store.getQueueByName(name);
      if (!queue || messages.size === 0) continue;
      // Not through the spy: the journal is rewritten below with exactly these entries.
      const spy = queue.spy;
      queue.spy = undefined;
      try {
        for (const [id, body] of messages) {
          const message = createMessage(body);
          message.messageId = id;
          queue.enqueue(message);
          lines.push(JSON.stringify({ op: 'put', q: name, id, body } satisfies JournalEntry));
        }
      } finally {
        queue.spy = spy;
      }
      restored[name] = messages.size;
    }
    writeFileAtomic(this.#file, lines.map((line) => `${line}\n`).join(''));
    return restored;
  }
}

/** Rewrites of the journal an erasure attempts before it gives up (a running `npm start` keeps appending). */
const MAX_REWRITES = 5;

/**
 * Rewrites the journal `file` without the messages of `resultIds` (an erasure, docs/erasure.md,
 * "How it runs"): every `put` line whose body names one of them (in the results queue or the DLQ) and the
 * `del` lines of the same message ids, so a restart brings none of them back and no line keeps the
 * polling record's fields. The file is rewritten to a temporary file and renamed over the old one only if
 * it did not grow meanwhile (a running `npm start` appends to it); else the rewrite starts again. Returns
 * the number of lines removed.
 */
export function dropJournalMessages(file: string, resultIds: ReadonlySet<string>): number {
  for (let attempt = 1; attempt <= MAX_REWRITES; attempt++) {
    if (!existsSync(file)) return 0;
    const before = statSync(file).size;
    const lines = readFileSync(file, 'utf8').split('\n');
    const kept = keptLines(lines, resultIds);
    if (kept.length === lines.length) return 0;
    if (!writeFileAtomic(file, kept.join('\n'), { changed: () => statSync(file).size !== before })) continue;
    return lines.length - kept.length;
  }
  throw new Error(
    `${file} kept changing while it was rewritten (${MAX_REWRITES} attempts): run the erasure again`,
  );
}

/** How many lines of the journal `file` name a message of `resultIds` (what {@link dropJournalMessages} drops). */
export function journalMessageLines(file: string, resultIds: ReadonlySet<string>): number {
  if (!existsSync(file)) return 0;
  const lines = readFileSync(file, 'utf8').split('\n');
  return lines.length - keptLines(lines, resultIds).length;
}

/** The lines of a journal that are not about a message of `resultIds` (its `put` and its `del`). */
function keptLines(lines: readonly string[], resultIds: ReadonlySet<string>): string[] {
  const dropped = new Set<string>();
  for (const line of lines) {
    const entry = journalEntry(line);
    if (entry?.op === 'put' && resultIds.has(messageResultId(entry.body) ?? '')) dropped.add(entry.id);
  }
  if (dropped.size === 0) return [...lines];
  return lines.filter((line) => {
    const entry = journalEntry(line);
    return !(entry && dropped.has(entry.id));
  });
}

function journalEntry(line: string): JournalEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    return JSON.parse(line) as JournalEntry;
  } catch {
    return undefined;
  }
}
