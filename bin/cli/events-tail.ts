/**
 * `idv events tail`: print the pipeline's events as they are published, one JSON line each, until Ctrl-C.
 * Locally it follows `<data-dir>/events.jsonl`. On AWS it makes a temporary rule on the bus that sends
 * every event to a temporary queue (readable only by that rule), reads the queue, and on exit — Ctrl-C
 * included — removes the target, the rule and the queue; what it could not remove it names on stderr.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DeleteRuleCommand,
  type EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { createEventBridgeClient, createSqsClient } from '../../shared/aws-clients';
import { ENV } from '../../shared/config';
import { EVENT_SOURCE } from '../../shared/events/names';
import { safeJson, safeText } from '../../shared/terminal-text';
import { UsageError } from './errors';
import { str } from './flags';
import type { CliCommand, CommandContext } from './types';

/** Options of {@link tailAwsEvents}. */
export interface AwsTailOptions {
  events: EventBridgeClient;
  sqs: SQSClient;
  busName: string;
  /** Each event as EventBridge delivered it (the JSON text). */
  onEvent: (json: string) => void;
  /** Ends the tail; the temporary resources are removed before the promise settles. */
  signal: AbortSignal;
  /** Told of each step (created, removed) and of anything left behind. */
  onNote?: (line: string) => void;
  /** @default random */
  suffix?: string;
}

/** What the tail made, for the clean-up. */
interface TailResources {
  ruleName: string;
  queueUrl?: string;
  targetAdded?: boolean;
}

const TARGET_ID = 'idv-tail';

/**
 * Tails the bus through a temporary rule and queue. Every resource is removed in `finally`, in reverse
 * order of creation, whatever ended the tail (the signal, an error of a step); a removal that fails does
 * not stop the others and is reported with the resource's name.
 */
export async function tailAwsEvents(
  options: AwsTailOptions,
): Promise<{ received: number; removed: string[] }> {
  const suffix = options.suffix ?? randomBytes(6).toString('hex');
  const made: TailResources = { ruleName: `idv-tail-${suffix}` };
  const note = options.onNote ?? (() => undefined);
  let received = 0;
  let ruleMade = false;
  let removed: string[] = [];
  try {
    const { RuleArn } = await options.events.send(
      new PutRuleCommand({
        Name: made.ruleName,
        EventBusName: options.busName,
        EventPattern: JSON.stringify({ source: [EVENT_SOURCE] }),
        State: 'ENABLED',
        Description: 'temporary: idv events tail (removed when the tail ends)',
      }),
    );
    ruleMade = true;
    const created = await options.sqs.send(
      new CreateQueueCommand({
        QueueName: made.ruleName,
        Attributes: {
          MessageRetentionPeriod: '600',
          SqsManagedSseEnabled: 'true',
          // Only this rule may send to the queue.
          Policy: JSON.stringify({
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Principal: { Service: 'events.amazonaws.com' },
                Action: 'sqs:SendMessage',
                Resource: '*',
                Condition: { ArnEquals: { 'aws:SourceArn': RuleArn } },
              },
            ],
          }),
        },
      }),
    );
    made.queueUrl = created.QueueUrl!;
    const { Attributes = {} } = await options.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: made.queueUrl, AttributeNames: ['QueueArn'] }),
    );
    await options.events.send(
      new PutTargetsCommand({
        Rule: made.ruleName,
        EventBusName: options.busName,
        Targets: [{ Id: TARGET_ID, Arn: Attributes.QueueArn! }],
      }),
    );
    made.targetAdded = true;
    note(`tailing ${options.busName} through rule ${made.ruleName} (Ctrl-C ends and removes it)`);
    while (!options.signal.aborted) {
      let messages: { Body?: string; ReceiptHandle?: string }[];
      try {
        ({ Messages: messages = [] } = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: made.queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 10,
          }),
          { abortSignal: options.signal },
        ));
      } catch (error) {
        if (options.signal.aborted) break;
        throw error;
      }
      for (const message of messages) {
        received++;
        options.onEvent(message.Body ?? '');
      }
      if (messages.length > 0) {
        await options.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: made.queueUrl,
            Entries: messages.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle!,
            })),
          }),
        );
      }
    }
  } finally {
    removed = await cleanUp(options, made, ruleMade, note);
  }
  return { received, removed };
}

async function cleanUp(
  options: AwsTailOptions,
  made: TailResources,
  ruleMade: boolean,
  note: (line: string) => void,
): Promise<string[]> {
  const removed: string[] = [];
  const attempt = async (what: string, step: () => Promise<unknown>) => {
    try {
      await step();
      removed.push(what);
    } catch (error) {
      note(`could not remove ${what} (${(error as Error).name}): remove it by hand`);
    }
  };
  if (made.targetAdded) {
    await attempt(`target ${TARGET_ID} of rule ${made.ruleName}`, () =>
      options.events.send(
        new RemoveTargetsCommand({ Rule: made.ruleName, EventBusName: options.busName, Ids: [TARGET_ID] }),
      ),
    );
  }
  if (ruleMade) {
    await attempt(`rule ${made.ruleName}`, () =>
      options.events.send(new DeleteRuleCommand({ Name: made.ruleName, EventBusName: options.busName })),
    );
  }
  if (made.queueUrl) {
    const url = made.queueUrl;
    await attempt(`queue ${url}`, () => options.sqs.send(new DeleteQueueCommand({ QueueUrl: url })));
  }
  return removed;
}

/** Options of {@link followFile}. */
export interface FollowOptions {
  file: string;
  /** Print what the file already holds first. @default false (only new lines) */
  fromStart?: boolean;
  onLine: (line: string) => void;
  signal: AbortSignal;
  /** @default 200 */
  intervalMs?: number;
}

/**
 * Follows a JSON-lines file: every complete line appended after the start (or from the start), until the
 * signal. A file that is truncated or replaced (a fresh data directory) is read again from its start.
 */
export async function followFile(options: FollowOptions): Promise<number> {
  let offset = options.fromStart || !existsSync(options.file) ? 0 : statSync(options.file).size;
  let partial = '';
  let lines = 0;
  const readNew = () => {
    if (!existsSync(options.file)) return;
    const size = statSync(options.file).size;
    if (size < offset) {
      offset = 0;
      partial = '';
    }
    if (size === offset) return;
    const buffer = Buffer.alloc(size - offset);
    const fd = openSync(options.file, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, offset);
    } finally {
      closeSync(fd);
    }
    offset = size;
    const text = partial + buffer.toString('utf8');
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (line.trim() === '') continue;
      lines++;
      options.onLine(line);
    }
  };
  while (!options.signal.aborted) {
    readNew();
    await new Promise<void>((resolveWait) => {
      const timer = setTimeout(resolveWait, options.intervalMs ?? 200);
      options.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolveWait();
        },
        { once: true },
      );
    });
  }
  readNew();
  return lines;
}

/** An AbortSignal that fires on Ctrl-C or SIGTERM; `release` removes the handlers. */
function stopSignal(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

export const eventsTailCommand: CliCommand = {
  path: ['events', 'tail'],
  summary: 'print events as they are published, one JSON line each, until Ctrl-C',
  usage: 'events tail [--local [--data-dir DIR] [--from-start] | --stack NAME | --bus NAME]',
  help: `  --local              follow <data-dir>/events.jsonl of the local run
  --data-dir DIR       data directory of the local stack (default .local)
  --from-start         print the events already in the file first (local)
  --bus NAME           ${ENV.eventBusName}      AWS: the bus (default: the deployment's output EventBusName)
On AWS the tail creates a rule idv-tail-<random> on the bus and a queue of the same name that only the
rule can send to; both are removed when the tail ends, Ctrl-C included. Replayed events carry
detail.replay (or EventBridge's replay-name). AWS credentials and region: the standard AWS chain.`,
  options: {
    local: { type: 'boolean' },
    'data-dir': { type: 'string' },
    'from-start': { type: 'boolean' },
    bus: { type: 'string' },
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const stop = stopSignal();
    try {
      if (ctx.values['local'] === true) return await tailLocal(ctx, stop.signal);
      const busName =
        str(ctx, 'bus') ?? ctx.io.env[ENV.eventBusName] ?? (await ctx.deployment())?.EventBusName;
      if (!busName) {
        throw new UsageError(
          `no bus: pass --stack NAME or --outputs-file FILE (output EventBusName) or --bus, or set ${ENV.eventBusName}`,
          'events tail',
        );
      }
      const events = createEventBridgeClient();
      const sqs = createSqsClient();
      try {
        const summary = await tailAwsEvents({
          events,
          sqs,
          busName,
          signal: stop.signal,
          onEvent: (json) => ctx.io.stdout(`${compact(json)}\n`),
          onNote: (line) => ctx.io.stderr(`${line}\n`),
        });
        ctx.io.stderr(`tail ended: ${summary.received} event(s); removed ${summary.removed.join(', ')}\n`);
        return undefined;
      } finally {
        events.destroy();
        sqs.destroy();
      }
    } finally {
      stop.release();
    }
  },
};

async function tailLocal(ctx: CommandContext, signal: AbortSignal): Promise<undefined> {
  const dataDir = resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
  if (!existsSync(dataDir)) {
    throw new UsageError(
      `no local data at ${dataDir}: run \`npm start\` first, or pass --data-dir`,
      'events tail',
    );
  }
  ctx.io.stderr(`following ${join(dataDir, 'events.jsonl')} (Ctrl-C ends)\n`);
  await followFile({
    file: join(dataDir, 'events.jsonl'),
    fromStart: ctx.values['from-start'] === true,
    signal,
    onLine: (line) => ctx.io.stdout(`${safeText(line, 'json')}\n`),
  });
  return undefined;
}

/** One line per event whatever the delivery's formatting. */
function compact(json: string): string {
  try {
    return safeJson(JSON.parse(json));
  } catch {
    return safeText(json.replace(/\s*\n\s*/g, ' '), 'json');
  }
}
