/**
 * Watches the local DLQ so that a move is a visible line of `npm start` and the console can list it: its
 * depth is read every `intervalMs` (GetQueueAttributes, which changes nothing), and only when the depth
 * changed are its messages looked at (`peekDlq`, which adds one to each message's receive count).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type DlqEntry, peekDlq } from '../shared/queries/dlq';
import { queueDepth } from './sqs-event-source';

/** Options of {@link startDlqWatch}. */
export interface DlqWatchOptions {
  sqs: SQSClient;
  dlqUrl: string;
  /** @default 1000 */
  intervalMs?: number;
  /** Each message seen in the DLQ for the first time; `earlier`: it was there when the watch started. */
  onMove: (entry: DlqEntry, earlier: boolean) => void;
}

/** A running watch. */
export interface DlqWatch {
  /** The DLQ's messages as last seen. */
  entries(): DlqEntry[];
  /** Reads the DLQ again now, whatever its depth (after the check in progress). */
  check(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts watching; the first check runs at once. */
export function startDlqWatch(options: DlqWatchOptions): DlqWatch {
  const known = new Set<string>();
  let current: DlqEntry[] = [];
  let lastDepth = 0;
  let running = true;
  let first = true;
  let pending: Promise<void> = Promise.resolve();
  const check = async (): Promise<void> => {
    const depth = await queueDepth(options.sqs, options.dlqUrl);
    const total = depth.visible + depth.inFlight + depth.delayed;
    if (total === 0) current = [];
    else if (total !== lastDepth) {
      current = await peekDlq({ sqs: options.sqs, dlqUrl: options.dlqUrl, max: 1000 });
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
