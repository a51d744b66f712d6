/**
 * Benchmark child: one fetch-result "container" of the backlog bench. It has the environment of the real
 * function (emulator endpoints, `pipelineEnv`, and `IDV_SERVICE_REQUESTS_PER_SECOND`: its share of the
 * service's rate), imports `functions/fetch-result/handler.ts` and feeds it batches through the local SQS
 * event source, one invocation at a time, as one Lambda execution environment of the event source
 * mapping. Several of these run at once, each with its own pace, as the mapping's concurrent executions.
 *
 * Requests: `{ type: 'start', batchSize }` starts polling; `{ type: 'stop' }` stops after the batch in
 * progress and answers the figures (invocations, records, failures, CPU, peak RSS sampled every 100 ms).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../../local/lambda-context';
import { SqsEventSource } from '../../local/sqs-event-source';
import { ENV } from '../../shared/config';
import { FETCH_BUDGET } from '../../shared/pipeline/fetch-budget';
import { serveParent } from './child';

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** The answer to `stop`. */
export interface BacklogWorkerFigures {
  type: 'stopped';
  invocations: number;
  records: number;
  /** Records reported in `batchItemFailures` (each comes back after the visibility timeout). */
  failed: number;
  /** Records of a delivery after the first (`ApproximateReceiveCount` > 1). */
  redelivered: number;
  cpuMs: number;
  rssBaselineBytes: number;
  rssPeakBytes: number;
}

let handler: Handler;
let sqs: SQSClient;
let source: SqsEventSource | undefined;
let figures = { invocations: 0, records: 0, failed: 0, redelivered: 0 };
let rssPeak = 0;
let rssBaseline = 0;
let cpuBefore = process.cpuUsage();
let sampler: NodeJS.Timeout | undefined;

async function init() {
  // Environment first, then the import: the handler reads its configuration at module load, as in Lambda.
  handler = (await import('../../functions/fetch-result/handler')).handler as unknown as Handler;
  sqs = new SQSClient({ region: process.env.AWS_REGION, endpoint: process.env.AWS_ENDPOINT_URL_SQS });
  return { rss: process.memoryUsage().rss };
}

function start(message: Record<string, unknown>): Record<string, unknown> {
  figures = { invocations: 0, records: 0, failed: 0, redelivered: 0 };
  rssBaseline = process.memoryUsage().rss;
  rssPeak = rssBaseline;
  sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 100);
  cpuBefore = process.cpuUsage();
  source = new SqsEventSource({
    sqs,
    queueUrl: process.env[ENV.resultsQueueUrl]!,
    region: process.env.AWS_REGION!,
    batchSize: Number(message.batchSize ?? FETCH_BUDGET.batchSize),
    // Short polls: an idle container asks again soon, as the mapping's pollers do under a backlog.
    waitTimeSeconds: 1,
    context: () =>
      lambdaContext('bench-backlog', process.env.AWS_REGION!, FETCH_BUDGET.functionTimeoutSeconds * 1000),
    handler: async (event, context) => {
      figures.invocations++;
      return handler(event, context);
    },
    onRecord: (record) => {
      figures.records++;
      if (record.failed) figures.failed++;
      if (record.receiveCount > 1) figures.redelivered++;
    },
  });
  source.start();
  return { type: 'started' };
}

async function stop(): Promise<BacklogWorkerFigures> {
  await source?.stop();
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    type: 'stopped',
    ...figures,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBaselineBytes: rssBaseline,
    rssPeakBytes: rssPeak,
  };
}

await serveParent(init, async (message) => {
  if (message.type === 'start') return start(message);
  if (message.type === 'stop') return (await stop()) as unknown as Record<string, unknown>;
  throw new Error(`unknown request ${String(message.type)}`);
});
