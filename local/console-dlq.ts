/**
 * Watches the local DLQ so that a move is a visible line of `npm start` and the console can list it: its
 * depth is read every `intervalMs` (GetQueueAttributes, which changes nothing), and only when the depth
 * changed are its messages read — from the run's durable records (`./dlq-record.ts`), never by a receive,
 * so watching changes no receive count and a restart keeps each message's reason.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { queueDepth } from '../shared/pipeline/queue';
import { type RecordedDlqEntry, recordedDlq } from './dlq-record';

/** Options of {@link startDlqWatch}. */
export interface DlqWatchOptions {
  sqs: SQSClient;
  dlqUrl: string;
  /** The data directory whose journals hold the DLQ's messages. */
  dataDir: string;
  /** @default 1000 */
  intervalMs?: number;
  /** Each message seen in the DLQ for the first time; `earlier`: it was there when the watch started. */
  onMove: (entry: RecordedDlqEntry, earlier: boolean) => void;
}

/** A running watch. */
export interface DlqWatch {
  /** The DLQ's messages as last seen. */
  entries(): RecordedDlqEntry[];
  /** Reads the DLQ again now, whatever its depth (after the check in progress). */
  check(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts watching; the first check runs at once. */
export function startDlqWatch(options: DlqWatchOptions): DlqWatch {
  const known = new Set<string>();
  let current: RecordedDlqEntry[] = [];
  let lastDepth = 0;
  let running = true;
  let first = true;
  let pending: Promise<void> = Promise.resolve();
  const check = async (): Promise<void> => {
    const depth = await queueDepth(options.sqs, options.dlqUrl);
    const total = depth.visible + depth.inFlight + depth.delayed;
    if (total === 0) current = [];
    else if (total !== lastDepth) {
      current = recordedDlq(options.dataDir, options.dlqUrl.split('/').at(-1));
      for (const entry of current) {
        if (known.has(entry.messageId)) continue;
        known.add(entry.messageId);
        options.onMove(entry, first);
      }
    }
    first = false;
    lastDepth = total;
  };
  const schedule = (): Promise<void> => {
    pending = pending.then(check).catch(() => undefined);
    return pending;
  };
  const timer = setInterval(() => {
    if (running) void schedule();
  }, options.intervalMs ?? 1000);
  timer.unref();
  void schedule();
  return {
    entries: () => current,
    check: () => {
      lastDepth = -1;
      return schedule();
    },
    stop: async () => {
      running = false;
      clearInterval(timer);
      await pending;
    },
  };
}
