/**
 * Scheduled poll (every 60 s): GET /api/v2/poll → every record onto the results queue.
 * Logic: shared/pipeline/poll. A failure throws; the records stay at the service for the next run.
 */
import type { Context } from 'aws-lambda';
import { createDynamoDocumentClient, createSecretsClient, createSqsClient } from '../../shared/aws-clients';
import { loadPollConfig } from '../../shared/config';
import { createLogger } from '../../shared/logger';
import { DynamoEnqueueMarkers } from '../../shared/pipeline/enqueue-markers';
import { createMetrics } from '../../shared/pipeline/metrics';
import { type PollDeps, type PollSummary, runPoll } from '../../shared/pipeline/poll';
import { createServiceClient } from '../../shared/pipeline/service-client';
import { createTracer, inSubsegment } from '../../shared/tracing';

const config = loadPollConfig();
const logger = createLogger({ environment: config.environment, functionName: 'poll' });
const metrics = createMetrics(config.environment);
const tracer = await createTracer();
const { client } = createServiceClient(config, createSecretsClient(tracer), logger);
const deps: PollDeps = {
  source: client,
  sqs: createSqsClient(tracer),
  queueUrl: config.resultsQueueUrl,
  logger,
  markers: new DynamoEnqueueMarkers({
    client: createDynamoDocumentClient(tracer),
    tableName: config.pollMarkersTableName,
    windowSeconds: config.pollMarkerWindowSeconds,
    logger,
  }),
};

export const handler = async (_event?: unknown, context?: Context): Promise<PollSummary> => {
  if (context) logger.addContext(context);
  metrics.captureColdStartMetric();
  return inSubsegment(tracer, '## poll', () => runPoll(deps, metrics), { handler: true });
};
