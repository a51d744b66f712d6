/**
 * Result and upload webhooks (API Gateway REST proxy): `POST /webhooks/{token}/result|upload`.
 * Checks the secret path segment, extracts the identifiers, enqueues, answers 202. Logic: shared/pipeline/webhook.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createSecretsClient, createSqsClient } from '../../shared/aws-clients';
import { loadWebhookConfig } from '../../shared/config';
import { describeError } from '../../shared/errors';
import { createLogger } from '../../shared/logger';
import { METRICS } from '../../shared/metrics-names';
import { createMetrics, MetricUnit, publishMetrics } from '../../shared/pipeline/metrics';
import { sendMessage } from '../../shared/pipeline/queue';
import { handleWebhook, webhookRouteOf } from '../../shared/pipeline/webhook';
import { webhookSecretReader } from '../../shared/pipeline/webhook-secret';
import { annotateIds, createTracer, inSubsegment } from '../../shared/tracing';

const config = loadWebhookConfig();
const logger = createLogger({ environment: config.environment, functionName: 'webhook' });
const metrics = createMetrics(config.environment);
const tracer = await createTracer();
const sqs = createSqsClient(tracer);
const secrets = createSecretsClient(tracer);

/** The secret path segment, cached per container for 5 minutes so a rotation takes effect without a deploy. */
const webhookSecret = webhookSecretReader(secrets, config.webhookSecretId);

export const handler = async (
  event: APIGatewayProxyEvent,
  context?: Context,
): Promise<APIGatewayProxyResult> => {
  if (context) logger.addContext(context);
  metrics.captureColdStartMetric();
  return inSubsegment(tracer, '## webhook', () => handle(event), { handler: true });
};

async function handle(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const { route, token } = webhookRouteOf(event);
  try {
    const response = await handleWebhook(
      { route, token, body: event.body, isBase64Encoded: event.isBase64Encoded },
      { secret: webhookSecret, enqueue: (message) => sendMessage(sqs, config.resultsQueueUrl, message) },
    );
    if (response.statusCode === 202) {
      metrics.addMetric(METRICS.names.webhooksAccepted, MetricUnit.Count, 1);
      annotateIds(tracer, response.body);
      logger.info('webhook accepted', { route, ...response.body });
    } else if (response.statusCode !== 404) {
      logger.warn('webhook rejected', {
        route,
        statusCode: response.statusCode,
        problem: response.body.message,
      });
    }
    return json(response.statusCode, response.body);
  } catch (error) {
    logger.error('webhook failed', { route, error: describeError(error) });
    return json(500, { message: 'Internal Server Error' });
  } finally {
    publishMetrics(metrics);
  }
}

function json(statusCode: number, body: unknown): APIGatewayProxyResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
