/**
 * Result and upload webhooks (API Gateway REST proxy): `POST /webhooks/{token}/result|upload`.
 * Checks the secret path segment, extracts the identifiers, enqueues, answers 202. Logic: shared/pipeline/webhook.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createSecretsClient, createSqsClient } from '../../shared/aws-clients';
import { loadWebhookConfig } from '../../shared/config';
import { describeError, SecretFormatError } from '../../shared/errors';
import { createLogger } from '../../shared/logger';
import { METRICS } from '../../shared/metrics-names';
import { createMetrics, MetricUnit, publishMetrics } from '../../shared/pipeline/metrics';
import { sendMessage } from '../../shared/pipeline/queue';
import { handleWebhook, webhookRouteOf } from '../../shared/pipeline/webhook';

const config = loadWebhookConfig();
const logger = createLogger({ environment: config.environment, functionName: 'webhook' });
const metrics = createMetrics(config.environment);
const sqs = createSqsClient();
const secrets = createSecretsClient();

let secretPromise: Promise<string> | undefined;

/** The secret path segment, read once per container (a failed read is retried on the next call). */
function webhookSecret(): Promise<string> {
  secretPromise ??= secrets
    .send(new GetSecretValueCommand({ SecretId: config.webhookSecretId }))
    .then((response) => {
      const value = response.SecretString?.trim();
      if (!value) throw new SecretFormatError('webhook secret is empty');
      return value;
    })
    .catch((error: unknown) => {
      secretPromise = undefined;
      throw error;
    });
  return secretPromise;
}

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const { route, token } = webhookRouteOf(event);
  try {
    const response = await handleWebhook(
      { route, token, body: event.body, isBase64Encoded: event.isBase64Encoded },
      { secret: webhookSecret, enqueue: (message) => sendMessage(sqs, config.resultsQueueUrl, message) },
    );
    if (response.statusCode === 202) {
      metrics.addMetric(METRICS.names.webhooksAccepted, MetricUnit.Count, 1);
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
};

function json(statusCode: number, body: unknown): APIGatewayProxyResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
