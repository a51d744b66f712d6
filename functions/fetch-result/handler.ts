/**
 * Results queue consumer (SQS, partial batch responses): fetch, store, announce each result once.
 * Logic: shared/pipeline/fetch-result. Records run a few at a time within the invocation's time
 * (shared/pipeline/batch-runner); a failed, unfinished or unstarted message is reported in
 * `batchItemFailures` and never fails its batch-mates.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  createDynamoDocumentClient,
  createEventBridgeClient,
  createS3Client,
  createSecretsClient,
} from '../../shared/aws-clients';
import { loadFetchResultConfig } from '../../shared/config';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { createLogger } from '../../shared/logger';
import { METRICS } from '../../shared/metrics-names';
import { runBatch } from '../../shared/pipeline/batch-runner';
import { FETCH_BUDGET } from '../../shared/pipeline/fetch-budget';
import {
  type FetchOutcome,
  type FetchResultDeps,
  processQueueRecord,
  type RecordBudget,
} from '../../shared/pipeline/fetch-result';
import { createMetrics, MetricUnit, publishMetrics } from '../../shared/pipeline/metrics';
import { createServiceClient } from '../../shared/pipeline/service-client';
import { ResultStore } from '../../shared/store/result-store';
import { createTracer, inSubsegment, queueMessageIds } from '../../shared/tracing';

const config = loadFetchResultConfig();
const logger = createLogger({ environment: config.environment, functionName: 'fetch-result' });
const metrics = createMetrics(config.environment);
const tracer = createTracer();
const { client } = createServiceClient(config, createSecretsClient(tracer), logger, {
  timeoutMs: FETCH_BUDGET.serviceCallTimeoutMs,
  retry: FETCH_BUDGET.retry,
});
const deps: FetchResultDeps = {
  source: client,
  store: new ResultStore({
    s3: createS3Client(config, tracer),
    dynamo: createDynamoDocumentClient(tracer),
    bucket: config.dataBucketName,
    table: config.resultsTableName,
  }),
  publisher: new EventBridgePublisher(createEventBridgeClient(tracer), config.eventBusName),
  environment: config.environment,
  eventCustomerReference: config.eventCustomerReference,
  retentionDays: config.retentionDays,
  logger,
};

const OUTCOME_METRICS: Partial<Record<FetchOutcome, string>> = {
  stored: METRICS.names.resultsStored,
  unavailable: METRICS.names.resultsUnavailable,
  duplicate: METRICS.names.duplicatesSkipped,
};

async function recordHandler(record: SQSRecord, budget: RecordBudget): Promise<FetchOutcome> {
  const ids = queueMessageIds(record.body);
  const outcome = await inSubsegment(
    tracer,
    '### record',
    () => processQueueRecord(record.body, deps, budget),
    { ids },
  );
  const metric = OUTCOME_METRICS[outcome];
  if (metric) metrics.addMetric(metric, MetricUnit.Count, 1);
  return outcome;
}

export const handler = async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
  if (context) logger.addContext(context);
  metrics.captureColdStartMetric();
  try {
    return await inSubsegment(
      tracer,
      '## fetch-result',
      async () => {
        // A batch where every message failed is still a partial response: SQS redelivers each one.
        const run = await runBatch(
          event.Records,
          (record, deadlines) => recordHandler(record, { ...deadlines, claimToken: record.messageId }),
          {
            budget: FETCH_BUDGET,
            ...(context && { remainingMs: () => context.getRemainingTimeInMillis() }),
            // Two messages of one resultId in a batch (webhook + poll) run in turn: one fetch, not two.
            keyOf: (record) => {
              const { resultId } = queueMessageIds(record.body);
              return typeof resultId === 'string' ? resultId : undefined;
            },
          },
        );
        if (run.notStarted > 0 || run.unfinished > 0) {
          logger.warn('invocation time ran short: records left for redelivery', {
            notStarted: run.notStarted,
            unfinished: run.unfinished,
          });
        }
        return { batchItemFailures: run.batchItemFailures };
      },
      { handler: true },
    );
  } finally {
    publishMetrics(metrics);
  }
};
