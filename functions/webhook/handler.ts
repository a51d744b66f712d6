/**
 * Result and upload webhooks (API Gateway REST proxy): `POST /webhooks/{token}/result|upload`.
 * Checks the secret path segment, extracts the identifiers, enqueues, answers 202. Logic:
 * shared/pipeline/webhook (the use-case) and shared/pipeline/webhook-http (answer, metrics, logs).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createSecretsClient, createSqsClient } from '../../shared/aws-clients';
import { loadWebhookConfig } from '../../shared/config';
import { createLogger } from '../../shared/logger';
import { createMetrics } from '../../shared/pipeline/metrics';
import { sendMessage } from '../../shared/pipeline/queue';
import type { WebhookDeps } from '../../shared/pipeline/webhook';
import { answerWebhook } from '../../shared/pipeline/webhook-http';
import { webhookSecretReader } from '../../shared/pipeline/webhook-secret';
import { createTracer, inSubsegment } from '../../shared/tracing';

const config = loadWebhookConfig();
const logger = createLogger({ environment: config.environment, functionName: 'webhook' });
const metrics = createMetrics(config.environment);
const tracer = await createTracer();
const sqs = createSqsClient(tracer);

const deps: WebhookDeps = {
  /** The secret path segment, cached per container for 5 minutes so a rotation takes effect without a deploy. */
  secret: webhookSecretReader(createSecretsClient(tracer), config.webhookSecretId),
  enqueue: (message) => sendMessage(sqs, config.resultsQueueUrl, message),
};

export const handler = async (
  event: APIGatewayProxyEvent,
  context?: Context,
): Promise<APIGatewayProxyResult> => {
  if (context) logger.addContext(context);
  metrics.captureColdStartMetric();
  return inSubsegment(tracer, '## webhook', () => answerWebhook(event, deps, { logger, metrics, tracer }), {
    handler: true,
  });
};
