/**
 * Scheduled poll (every 60 s): GET /api/v2/poll → every record onto the results queue.
 * Logic: shared/pipeline/poll. A failure throws; the records stay at the service for the next run.
 */
import type { Context } from 'aws-lambda';
import { createDynamoDocumentClient, createSecretsClient, createSqsClient } from '../../shared/aws-clients';
import { loadPollConfig } from '../../shared/config';
import { describeError } from '../../shared/errors';
import { createLogger } from '../../shared/logger';
import { METRICS } from '../../shared/metrics-names';
import { DynamoEnqueueMarkers } from '../../shared/pipeline/enqueue-markers';
import { createMetrics, MetricUnit, publishMetrics } from '../../shared/pipeline/metrics';
import { type PollSummary, pollAndEnqueue } from '../../shared/pipeline/poll';
import { createServiceClient } from '../../shared/pipeline/service-client';
import { createTracer, inSubsegment } from '../../shared/tracing';

const config = loadPollConfig();
const logger = createLogger({ environment: config.environment, functionName: 'poll' });
const metrics = createMetrics(config.environment);
const tracer = await createTracer();
const sqs = createSqsClient(tracer);
const { client } = createServiceClient(config, createSecretsClient(tracer), logger);
const markers = new DynamoEnqueueMarkers({
  client: createDynamoDocumentClient(tracer),
  tableName: config.pollMarkersTableName,
  windowSeconds: config.pollMarkerWindowSeconds,
  logger,
});

export const handler = async (_event?: unknown, context?: Context): Promise<PollSummary> => {
  if (context) logger.addContext(context);
  metrics.captureColdStartMetric();
  return inSubsegment(tracer, '## poll', poll, { handler: true });
};

async function poll(): Promise<PollSummary> {
  try {
    const summary = await pollAndEnqueue({
      source: client,
      sqs,
      queueUrl: config.resultsQueueUrl,
      logger,
      markers,
    });
    metrics.addMetric(METRICS.names.pendingResults, MetricUnit.Count, summary.pending);
    metrics.addMetric(METRICS.names.oldestPendingAgeSeconds, MetricUnit.Seconds, summary.oldestAgeSeconds);
    return summary;
  } catch (error) {
    metrics.addMetric(METRICS.names.pollFailures, MetricUnit.Count, 1);
    logger.error('poll failed', { error: describeError(error) });
    throw error;
  } finally {
    publishMetrics(metrics);
  }
}
