/**
 * Results queue consumer (SQS, partial batch responses): fetch, store, announce each result once.
 * Logic: shared/pipeline/fetch-result; wiring and the batch loop: shared/pipeline/results-batch. Records
 * run a few at a time within the invocation's time; a failed, unfinished or unstarted message is
 * reported in `batchItemFailures` and never fails its batch-mates.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loadFetchResultConfig } from '../../shared/config';
import { createLogger } from '../../shared/logger';
import { createMetrics, publishMetrics } from '../../shared/pipeline/metrics';
import { fetchResultDeps, processResultsBatch } from '../../shared/pipeline/results-batch';
import { createTracer, inSubsegment } from '../../shared/tracing';

const config = loadFetchResultConfig();
const logger = createLogger({ environment: config.environment, functionName: 'fetch-result' });
const metrics = createMetrics(config.environment);
const tracer = await createTracer();
const deps = fetchResultDeps(config, tracer, logger);

export const handler = async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
  if (context) logger.addContext(context);
  metrics.captureColdStartMetric();
  try {
    return await inSubsegment(
      tracer,
      '## fetch-result',
      () =>
        processResultsBatch(event.Records, {
          deps,
          tracer,
          metrics,
          ...(context && { remainingMs: () => context.getRemainingTimeInMillis() }),
        }),
      { handler: true },
    );
  } finally {
    publishMetrics(metrics);
  }
};
