/**
 * The results queue consumer's wiring and batch loop (the fetch-result handler is these two calls):
 * its dependencies built once per container from the config, and one SQS batch run within the
 * invocation's time (`batch-runner.ts`), a few records at once, two messages of one resultId in turn,
 * every failed, unfinished or unstarted message reported in `batchItemFailures`.
 */
import {
  createDynamoDocumentClient,
  createEventBridgeClient,
  createS3Client,
  createSecretsClient,
} from '../aws-clients';
import type { FetchResultConfig } from '../config';
import { EventBridgePublisher } from '../events/publisher';
import type { Logger } from '../logger';
import { METRICS } from '../metrics-names';
import { ResultStore } from '../store/result-store';
import { inSubsegment, queueMessageIds, type Tracer } from '../tracing';
import { runBatch } from './batch-runner';
import { FETCH_BUDGET } from './fetch-budget';
import { type FetchOutcome, type FetchResultDeps, processQueueRecord } from './fetch-result';
import { type Metrics, MetricUnit } from './metrics';
import { createServiceClient } from './service-client';

/** The fetch-result dependencies on AWS and the service, from the function's config. */
export function fetchResultDeps(config: FetchResultConfig, tracer: Tracer, logger: Logger): FetchResultDeps {
  const { client } = createServiceClient(config, createSecretsClient(tracer), logger, {
    timeoutMs: FETCH_BUDGET.serviceCallTimeoutMs,
    retry: FETCH_BUDGET.retry,
  });
  return {
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
}

/** What one batch needs besides its records. */
export interface ResultsBatchContext {
  readonly deps: FetchResultDeps;
  readonly tracer: Tracer;
  readonly metrics: Metrics;
  /** Time left in the invocation (`context.getRemainingTimeInMillis`); without it there is no deadline. */
  readonly remainingMs?: () => number;
}

/** One SQS record, as much of it as the batch needs. */
export interface QueueRecord {
  readonly messageId: string;
  readonly body: string;
}

const OUTCOME_METRICS: Partial<Record<FetchOutcome, string>> = {
  stored: METRICS.names.resultsStored,
  unavailable: METRICS.names.resultsUnavailable,
  duplicate: METRICS.names.duplicatesSkipped,
};

/**
 * Runs one batch; a batch where every message failed is still a partial response: SQS redelivers each
 * failed message, and none fails its batch-mates.
 */
export async function processResultsBatch(
  records: readonly QueueRecord[],
  context: ResultsBatchContext,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const { deps, tracer, metrics } = context;
  const run = await runBatch(
    records,
    async (record, deadlines) => {
      const outcome = await inSubsegment(
        tracer,
        '### record',
        () => processQueueRecord(record.body, deps, { ...deadlines, claimToken: record.messageId }),
        { ids: queueMessageIds(record.body) },
      );
      const metric = OUTCOME_METRICS[outcome];
      if (metric) metrics.addMetric(metric, MetricUnit.Count, 1);
    },
    {
      budget: FETCH_BUDGET,
      ...(context.remainingMs && { remainingMs: context.remainingMs }),
      // Two messages of one resultId in a batch (webhook + poll) run in turn: one fetch, not two.
      keyOf: (record) => {
        const { resultId } = queueMessageIds(record.body);
        return typeof resultId === 'string' ? resultId : undefined;
      },
    },
  );
  if (run.notStarted > 0 || run.unfinished > 0) {
    deps.logger.warn('invocation time ran short: records left for redelivery', {
      notStarted: run.notStarted,
      unfinished: run.unfinished,
    });
  }
  return { batchItemFailures: run.batchItemFailures };
}
