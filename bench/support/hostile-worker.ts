/**
 * Child of the hostile-service suite: one cold "container" running the real handlers, bundled as CDK
 * bundles them and run by plain Node (the size bench's `size-worker.ts` does the same for fetch-result
 * only; this one also runs the poll). Requests (IPC):
 *
 * - `{ type: 'handle', resultId, hints, invocationMs, gcEveryMs }`: one SQS event with one message to
 *   fetch-result;
 * - `{ type: 'poll', invocationMs }`: one scheduled poll.
 *
 * Each answer carries the wall time and the kernel's peak RSS (VmHWM) of the request, the peak reset
 * just before it starts (`/proc/self/clear_refs`, 5), as Lambda's "Max Memory Used" sees it. Just before
 * the work starts the worker also sends `{ type: 'started', rssBefore }` on its own, so the parent can
 * still give a figure when the worker is killed or runs out of memory.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../../local/lambda-context';
import { scheduledEvent } from '../../local/scheduler';
import { serveParent } from './child';

/** Memory and time of one request. */
export interface HostileMeasured {
  type: 'measured';
  ms: number;
  rssBefore: number;
  hwm: number;
  /** fetch-result: records reported as failed (`batchItemFailures`). */
  failed?: number;
  /** poll: what it threw (name, and the message for the planted-string search). */
  error?: { name: string; message: string };
}

function status(field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN) * 1024;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function measure(
  gcEveryMs: number | undefined,
  work: () => Promise<Partial<HostileMeasured>>,
): Promise<HostileMeasured> {
  writeFileSync('/proc/self/clear_refs', '5');
  const rssBefore = status('VmRSS');
  process.send?.({ type: 'started', rssBefore });
  const collector = gcEveryMs && gc ? setInterval(() => gc(), gcEveryMs) : undefined;
  const started = performance.now();
  try {
    const outcome = await work();
    return { type: 'measured', ms: performance.now() - started, rssBefore, hwm: status('VmHWM'), ...outcome };
  } finally {
    if (collector) clearInterval(collector);
  }
}

function sqsEvent(resultId: string, hints: Record<string, string>): SQSEvent {
  const now = String(Date.now());
  return {
    Records: [
      {
        messageId: `hostile-${resultId}-${now}`,
        receiptHandle: `hostile-${resultId}`,
        body: JSON.stringify({ resultId, source: 'poll', ...hints }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: now,
          SenderId: 'hostile',
          ApproximateFirstReceiveTimestamp: now,
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:hostile',
        awsRegion: process.env.AWS_REGION ?? 'eu-west-1',
      },
    ],
  };
}

const region = process.env.AWS_REGION ?? 'eu-west-1';

await serveParent(
  async () => ({ rss: status('VmRSS') }),
  async (message) => {
    const invocationMs = Number(message.invocationMs ?? 90_000);
    const gcEveryMs = message.gcEveryMs === undefined ? undefined : Number(message.gcEveryMs);
    if (message.type === 'handle') {
      // Imported on first use, after the environment is set, like a cold start (not measured).
      const { handler } = await import('../../functions/fetch-result/handler');
      const event = sqsEvent(String(message.resultId), (message.hints ?? {}) as Record<string, string>);
      return (await measure(gcEveryMs, async () => {
        const response = await handler(event, lambdaContext('hostile-fetch-result', region, invocationMs));
        return { failed: response.batchItemFailures.length };
      })) as unknown as Record<string, unknown>;
    }
    if (message.type === 'poll') {
      const { handler } = await import('../../functions/poll/handler');
      return (await measure(gcEveryMs, async () => {
        try {
          await handler(
            scheduledEvent('hostile-poll', region),
            lambdaContext('hostile-poll', region, invocationMs),
          );
          return {};
        } catch (error) {
          const { name, message: text } = error instanceof Error ? error : new Error(String(error));
          return { error: { name, message: text.slice(0, 4000) } };
        }
      })) as unknown as Record<string, unknown>;
    }
    throw new Error(`unknown request ${String(message.type)}`);
  },
);
