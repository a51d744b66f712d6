/**
 * Results queue consumer (SQS, partial batch responses): fetch, store, announce each result once.
 * Logic: shared/pipeline/fetch-result. Messages are processed one after another to bound memory; a
 * failed message is reported in `batchItemFailures` and never fails its batch-mates.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
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
import {
  type FetchOutcome,
  type FetchResultDeps,
  processQueueRecord,
} from '../../shared/pipeline/fetch-result';
import { createMetrics, MetricUnit, publishMetrics } from '../../shared/pipeline/metrics';
import { createServiceClient } from '../../shared/pipeline/service-client';
import { ResultStore } from '../../shared/store/result-store';

const config = loadFetchResultConfig();
const logger = createLogger({ environment: config.environment, functionName: 'fetch-result' });
const metrics = createMetrics(config.environment);
const { client } = createServiceClient(config, createSecretsClient(), logger);
const deps: FetchResultDeps = {
  source: client,
  store: new ResultStore({
    s3: createS3Client(config),
    dynamo: createDynamoDocumentClient(),
    bucket: config.dataBucketName,
    table: config.resultsTableName,
  }),
  publisher: new EventBridgePublisher(createEventBridgeClient(), config.eventBusName),
  environment: config.environment,
  retentionDays: config.retentionDays,
  logger,
};
const processor = new BatchProcessor(EventType.SQS);

const OUTCOME_METRICS: Partial<Record<FetchOutcome, string>> = {
  stored: METRICS.names.resultsStored,
  unavailable: METRICS.names.resultsUnavailable,
  duplicate: METRICS.names.duplicatesSkipped,
};

async function recordHandler(record: SQSRecord): Promise<FetchOutcome> {
  const outcome = await processQueueRecord(record.body, deps);
  const metric = OUTCOME_METRICS[outcome];
  if (metric) metrics.addMetric(metric, MetricUnit.Count, 1);
  return outcome;
}

export const handler = async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
  try {
    return await processPartialResponse(event, recordHandler, processor, {
      ...(context && { context }),
      processInParallel: false,
      // A batch where every message failed is still a partial response: SQS redelivers each one.
      throwOnFullBatchFailure: false,
    });
  } finally {
    publishMetrics(metrics);
  }
};
