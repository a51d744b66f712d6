import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';

/** The `ScheduledEvent` an EventBridge schedule rule delivers to its target. */
export function scheduledEvent(ruleName: string, region: string, time = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: time.toISOString(),
    region,
    resources: [`arn:aws:events:${region}:000000000000:rule/${ruleName}`],
    detail: {},
  };
}

/** A running schedule. */
export interface Schedule {
  /** Runs the task now (waiting for a run in progress first); resolves when it has finished. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs `task` at once and then every `intervalMs`, never overlapping itself (a slow run delays the
 * next instead of stacking up, like a rate rule whose target is still busy would at worst). Errors are
 * handed to `onError`; the schedule keeps going.
 */
export function startSchedule(
  intervalMs: number,
  task: () => Promise<void>,
  onError: (error: unknown) => void,
  options: { immediate?: boolean } = {},
): Schedule {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const run = (): Promise<void> => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await task();
      } catch (error) {
        onError(error);
      }
    });
    return running;
  };
  const tick = (): void => {
    void run().then(() => {
      if (!stopped) timer = setTimeout(tick, intervalMs);
    });
  };
  if (options.immediate ?? true) tick();
  else timer = setTimeout(tick, intervalMs);

  return {
    runNow: run,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
