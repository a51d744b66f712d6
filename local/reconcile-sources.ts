/**
 * The local run's record of what was enqueued, for `idv results reconcile --local`: the queue journal
 * (`queue-journal.jsonl`: every message fauxqs took, per queue, and whether it was consumed or is still
 * waiting — in the results queue or in the DLQ) and the trace journal (`trace.jsonl`: every result a
 * delivery was received for). Both are read line by line as streams, so a long run's journals cost no
 * more memory than their distinct ids. Torn lines (a crash mid-write) are skipped.
 */
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseQueueMessage } from '../shared/pipeline/messages';
import { TRACE_JOURNAL } from './console-journal';
import { QUEUE_JOURNAL } from './queue-journal';

/** What the local journals say about the queues. */
export interface LocalQueueFacts {
  /** Every resultId a message was taken for, or a delivery received for. */
  readonly enqueued: Set<string>;
  /** Per queue name, the resultIds with a message still waiting there (or in flight): none consumed it. */
  readonly pending: Map<string, Set<string>>;
  /** The journals read (file names in the data directory). */
  readonly sources: string[];
}

/** The queue name in an SQS queue URL (its last path segment). */
export function queueNameOf(url: string): string {
  return new URL(url).pathname.split('/').filter(Boolean).at(-1) ?? '';
}

/**
 * Reads both journals of `dataDir`. Read them before the local emulators are started on the directory:
 * a start rewrites the queue journal to the messages still pending (`QueueJournal.restore`).
 */
export async function localQueueFacts(dataDir: string): Promise<LocalQueueFacts> {
  const enqueued = new Set<string>();
  const sources: string[] = [];
  // Per queue, the messages taken and not consumed: messageId → resultId.
  const pending = new Map<string, Map<string, string>>();
  const queueJournal = join(dataDir, QUEUE_JOURNAL);
  if (existsSync(queueJournal)) {
    sources.push(QUEUE_JOURNAL);
    await eachJsonLine(queueJournal, (entry) => {
      const { op, q, id, body } = entry as { op?: unknown; q?: unknown; id?: unknown; body?: unknown };
      if (typeof q !== 'string' || typeof id !== 'string') return;
      const queue = pending.get(q) ?? new Map<string, string>();
      pending.set(q, queue);
      if (op === 'del') {
        queue.delete(id);
        return;
      }
      if (op !== 'put' || typeof body !== 'string') return;
      const resultId = resultIdOf(body);
      if (resultId === undefined) return;
      enqueued.add(resultId);
      queue.set(id, resultId);
    });
  }
  const traceJournal = join(dataDir, TRACE_JOURNAL);
  if (existsSync(traceJournal)) {
    sources.push(TRACE_JOURNAL);
    await eachJsonLine(traceJournal, (line) => {
      const resultId = (line as { resultId?: unknown }).resultId;
      if (typeof resultId === 'string') enqueued.add(resultId);
    });
  }
  const byQueue = new Map([...pending].map(([name, messages]) => [name, new Set(messages.values())]));
  return { enqueued, pending: byQueue, sources };
}

/** The resultId of a result message body; undefined for uploads and bodies that are not messages. */
function resultIdOf(body: string): string | undefined {
  try {
    const message = parseQueueMessage(body);
    return message.kind === 'upload' ? undefined : message.resultId;
  } catch {
    return undefined;
  }
}

/** Visits each line of `file` that is a JSON object; a blank, torn or other line is passed over. */
async function eachJsonLine(file: string, visit: (value: object) => void): Promise<void> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (value && typeof value === 'object') visit(value);
  }
}
