/** `idv dlq redrive`: move dead-lettered messages back to the results queue. */

import { DLQ_URL_VARIABLE } from '../../local/aws-target';
import { redriveDlq } from '../../shared/queries/dlq';
import { UsageError } from './errors';
import { int, str } from './flags';
import { openTarget, progress } from './results';
import type { CliCommand } from './types';

export const dlqRedriveCommand: CliCommand = {
  path: ['dlq', 'redrive'],
  summary: 'move dead-lettered messages back to the results queue (source "redrive")',
  usage: 'dlq redrive [--max N] [--local | --stack NAME | --queue-url URL --dlq-url URL]',
  help: `  --max N              move at most N messages
  --local              the local stack (a running \`npm start\`; its queues live only while it runs)
  --data-dir DIR       data directory of the local stack (default .local)
  --queue-url URL      IDV_RESULTS_QUEUE_URL  results queue (AWS)
  --dlq-url URL        ${DLQ_URL_VARIABLE}            its dead-letter queue (AWS)
Malformed messages stay in the DLQ. AWS credentials and region come from the standard AWS environment.`,
  options: {
    local: { type: 'boolean' },
    'data-dir': { type: 'string' },
    'queue-url': { type: 'string' },
    'dlq-url': { type: 'string' },
    max: { type: 'string' },
  },
  connection: false,
  deployment: true,
  run: async (ctx) => {
    const target = await openTarget(ctx, { queueUrl: str(ctx, 'queue-url'), dlqUrl: str(ctx, 'dlq-url') });
    const bar = progress(ctx.io);
    if (target.local && !target.running) {
      // fauxqs keeps the queues in memory: without `npm start` they are new and empty, and an empty
      // answer would wrongly suggest that nothing is dead-lettered.
      ctx.io.stderr(
        'no `npm start` is running on this data directory: the local queues exist only while it runs, ' +
          'so nothing can be redriven now. Start it, then run this again.\n',
      );
    }
    try {
      if (!target.queueUrl || !target.dlqUrl) {
        throw new UsageError(
          'need the queue and DLQ: pass --stack NAME, --outputs-file FILE or --queue-url and --dlq-url, or use --local',
          'dlq redrive',
        );
      }
      return await redriveDlq({
        sqs: target.sqs,
        queueUrl: target.queueUrl,
        dlqUrl: target.dlqUrl,
        max: int(ctx, 'max', 'dlq redrive'),
        onProgress: (summary) => bar.update(`moved ${summary.moved}, kept ${summary.kept}`),
      });
    } finally {
      bar.done();
      await target.close();
    }
  },
};
