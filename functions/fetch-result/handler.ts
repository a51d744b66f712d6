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
import { createTracer, inSubsegment, queueMessageIds } from '../../shared/tracing';

const config = loadFetchResultConfig();
const logger = createLogger({ environment: config.environment, functionName: 'fetch-result' });
const metrics = createMetrics(config.environment);
const tracer = createTracer();
const { client } = createServiceClient(config, createSecretsClient(tracer), logger);
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
  const ids = queueMessageIds(record.body);
  const outcome = await inSubsegment(tracer, '### record', () => processQueueRecord(record.body, deps), {
    ids,
  });
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
      () =>
        processPartialResponse(event, recordHandler, processor, {
          ...(context && { context }),
          processInParallel: false,
          // A batch where every message failed is still a partial response: SQS redelivers each one.
          throwOnFullBatchFailure: false,
        }),
      { handler: true },
    );
  } finally {
    publishMetrics(metrics);
  }
};
