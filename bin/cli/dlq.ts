/**
 * `idv dlq …`: look into the dead-letter queue without consuming it (`list`, `show`), and move messages
 * back to the results queue, all or one result's (`redrive`).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DLQ_URL_VARIABLE, hasLocalData } from '../../local/aws-target';
import { type RecordedDlqEntry, recordedDlq } from '../../local/dlq-record';
import { QUEUE_JOURNAL } from '../../local/queue-journal';
import { readLiveStack } from '../../local/stack-file';
import { type DlqEntry, peekDlq, redriveDlq } from '../../shared/queries/dlq';
import { safeJson } from '../../shared/terminal-text';
import { UsageError } from './errors';
import { int, str } from './flags';
import { queryTraceSteps } from './logs-insights';
import { LOG_GROUPS_VARIABLE, openTarget, progress, traceLogs } from './results';
import type { CliCommand, CommandContext } from './types';

const QUEUE_HELP = `  --local              the local stack (a running \`npm start\`; its queues live only while it runs)
  --data-dir DIR       data directory of the local stack (default .local)
  --queue-url URL      IDV_RESULTS_QUEUE_URL  results queue (AWS)
  --dlq-url URL        ${DLQ_URL_VARIABLE}            its dead-letter queue (AWS)
AWS credentials and region come from the standard AWS environment.`;

const QUEUE_OPTIONS = {
  local: { type: 'boolean' },
  'data-dir': { type: 'string' },
  'queue-url': { type: 'string' },
  'dlq-url': { type: 'string' },
} as const;

const PEEK_NOTE = `Looking changes nothing. --local reads the run's records (queue and trace journals in the data
directory, no npm start needed): receiveCount is the deliveries that failed before the DLQ, and the reason
and times are those of the trace. On AWS each message received for the view is made visible again at
once; receiveCount is capped at the queue's maxReceiveCount (the deliveries before the DLQ, not the views).`;

/** An entry with the reason of its last failed attempt and when it was (local journal or the logs). */
type DlqView = DlqEntry & { reason?: string; lastAttemptAt?: string };

async function withQueues<T>(
  ctx: CommandContext,
  command: string,
  work: (queues: {
    target: Awaited<ReturnType<typeof openTarget>>;
    queueUrl: string;
    dlqUrl: string;
  }) => Promise<T>,
): Promise<T> {
  const target = await openTarget(ctx, { queueUrl: str(ctx, 'queue-url'), dlqUrl: str(ctx, 'dlq-url') });
  if (target.local && !target.running) {
    // fauxqs keeps the queues in memory: without `npm start` they are new and empty, and an empty
    // answer would wrongly suggest that nothing is dead-lettered.
    ctx.io.stderr(
      'no `npm start` is running on this data directory: the local queues exist only while it runs, ' +
        'so the DLQ cannot be read now. Start it, then run this again.\n',
    );
  }
  try {
    if (!target.queueUrl || !target.dlqUrl) {
      throw new UsageError(
        'need the queue and DLQ: pass --stack NAME, --outputs-file FILE or --queue-url and --dlq-url, or use --local',
        command,
      );
    }
    return await work({ target, queueUrl: target.queueUrl, dlqUrl: target.dlqUrl });
  } finally {
    await target.close();
  }
}

/** `--local`: the DLQ from the data directory's records, without a receive and without npm start. */
function localDlq(ctx: CommandContext): RecordedDlqEntry[] {
  const dataDir = resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
  if (!hasLocalData(dataDir) && !existsSync(join(dataDir, QUEUE_JOURNAL))) {
    throw new UsageError(`no local data at ${dataDir}: run \`npm start\` first, or pass --data-dir`);
  }
  return recordedDlq(dataDir);
}

export const dlqListCommand: CliCommand = {
  path: ['dlq', 'list'],
  summary:
    'list the dead-lettered messages (resultId, reason code, receive count, first/last attempt), unconsumed',
  usage: 'dlq list [--max N] [--local | --dlq-url URL]',
  help: `  --max N              list at most N messages (default 100)\n${QUEUE_HELP}\n${PEEK_NOTE}
The reason code comes from the local run's journal (--local); on AWS \`dlq show ID\` reads it from the logs.`,
  options: { ...QUEUE_OPTIONS, max: { type: 'string' } },
  connection: false,
  deployment: true,
  run: (ctx) => {
    const max = int(ctx, 'max', 'dlq list') ?? 100;
    if (ctx.values['local'] === true) return Promise.resolve(localDlq(ctx).slice(0, max));
    return withQueues(ctx, 'dlq list', ({ target, queueUrl, dlqUrl }) =>
      peekDlq({ sqs: target.sqs, dlqUrl, queueUrl, max }),
    );
  },
};

export const dlqShowCommand: CliCommand = {
  path: ['dlq', 'show'],
  summary: 'one dead-lettered message by resultId or message id, with the reason of its last failed attempt',
  usage: 'dlq show ID [--local | --dlq-url URL [--log-group NAME...]]',
  help: `  ID                   a resultId or an SQS message id
  --log-group NAME     AWS: a function's log group, for the reason code (repeatable; or ${LOG_GROUPS_VARIABLE})
${QUEUE_HELP}\n${PEEK_NOTE}`,
  options: { ...QUEUE_OPTIONS, 'log-group': { type: 'string', multiple: true } },
  positionals: true,
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const [id, extra] = ctx.positionals;
    if (!id) throw new UsageError('missing ID (a resultId or a message id)', 'dlq show');
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, 'dlq show');
    const matching = (entries: DlqEntry[]) => {
      const found = entries.filter((entry) => entry.resultId === id || entry.messageId === id);
      if (found.length === 0)
        throw new Error(`${id} is not in the DLQ (${entries.length} message(s) looked at)`);
      return found;
    };
    if (ctx.values['local'] === true) return matching(localDlq(ctx));
    return withQueues(ctx, 'dlq show', async ({ target, queueUrl, dlqUrl }) => {
      const found = matching(await peekDlq({ sqs: target.sqs, dlqUrl, queueUrl, max: 1000 }));
      return Promise.all(found.map((entry) => withLoggedReason(ctx, entry)));
    });
  },
};

/** On AWS: the last failed attempt of the entry's result, from CloudWatch Logs Insights when it can. */
async function withLoggedReason(ctx: CommandContext, entry: DlqEntry): Promise<DlqView> {
  const flags = ctx.values['log-group'];
  const groups = (Array.isArray(flags) ? flags : (ctx.io.env[LOG_GROUPS_VARIABLE] ?? '').split(','))
    .filter((name): name is string => typeof name === 'string' && name.trim() !== '')
    .map((name) => name.trim());
  if (!entry.resultId || groups.length === 0) return entry;
  const logs = await traceLogs.open();
  if (!logs) return { ...entry, reason: 'unknown (@aws-sdk/client-cloudwatch-logs is not installed)' };
  try {
    const since = entry.sentAt
      ? new Date(Date.parse(entry.sentAt) - 60_000)
      : new Date(Date.now() - 14 * 86_400_000);
    const steps = await queryTraceSteps({
      logs,
      logGroupNames: groups,
      resultId: entry.resultId,
      since,
      until: new Date(),
    });
    const failure = steps.filter((step) => step.kind === 'fetch' && step.outcome === 'failed').at(-1);
    return failure ? { ...entry, reason: failure.reason ?? 'unknown', lastAttemptAt: failure.at } : entry;
  } finally {
    logs.close();
  }
}

export const dlqRedriveCommand: CliCommand = {
  path: ['dlq', 'redrive'],
  summary: 'move dead-lettered messages back to the results queue (source "redrive"), all or one result\'s',
  usage: 'dlq redrive [--result-id ID] [--max N] [--local | --stack NAME | --queue-url URL --dlq-url URL]',
  help: `  --result-id ID       only the messages of this result (the others stay, visible again at once)
  --max N              move at most N messages
${QUEUE_HELP}
Malformed messages stay in the DLQ. Nothing moved (an empty DLQ, or with --local no \`npm start\`
running) exits 1 with a message.`,
  options: { ...QUEUE_OPTIONS, max: { type: 'string' }, 'result-id': { type: 'string' } },
  connection: false,
  deployment: true,
  run: (ctx) => {
    if (ctx.values['local'] === true) {
      // Without `npm start` the local queues do not exist (its queue journal keeps their messages until
      // it starts again): nothing can be redriven, and saying "moved 0" would look like an empty DLQ.
      const dataDir = resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
      if (hasLocalData(dataDir) && !readLiveStack(dataDir))
        throw new Error(
          `no \`npm start\` is running on ${dataDir}: the local DLQ exists only while it runs (its messages wait in the queue journal). Start it, then run this again`,
        );
    }
    return withQueues(ctx, 'dlq redrive', async ({ target, queueUrl, dlqUrl }) => {
      const bar = progress(ctx.io);
      const resultId = str(ctx, 'result-id');
      try {
        const summary = await redriveDlq({
          sqs: target.sqs,
          queueUrl,
          dlqUrl,
          max: int(ctx, 'max', 'dlq redrive'),
          ...(resultId && { resultId }),
          onProgress: (progressed) => bar.update(`moved ${progressed.moved}, kept ${progressed.kept}`),
        });
        if (resultId && summary.moved === 0)
          throw new Error(`no message of ${resultId} in the DLQ: nothing moved`);
        // Nothing to redrive is a failure a script must see (the DLQ may have been read elsewhere).
        if (summary.moved === 0) {
          ctx.io.stdout(`${safeJson(summary, 2)}\n`);
          throw new Error('nothing to redrive: no message was moved (see the answer above)');
        }
        return summary;
      } finally {
        bar.done();
      }
    });
  },
};
