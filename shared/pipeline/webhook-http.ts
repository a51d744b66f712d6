/**
 * The webhook function's HTTP side: one API Gateway proxy event in, one answer out, each answer counted,
 * traced and logged as the function reports it (the use-case itself is `handleWebhook`, `webhook.ts`).
 * Never throws: a failure is a 500 with a fixed message, logged with its error's description.
 */
import { describeError } from '../errors';
import type { Logger } from '../logger';
import { METRICS } from '../metrics-names';
import { annotateIds, type Tracer } from '../tracing';
import { type Metrics, MetricUnit, publishMetrics } from './metrics';
import { handleWebhook, type WebhookDeps, type WebhookRouteSource, webhookRouteOf } from './webhook';

/** The parts of an API Gateway proxy event the webhook reads. */
export interface WebhookHttpEvent extends WebhookRouteSource {
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
}

/** The API Gateway proxy answer. */
export interface WebhookHttpAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Where the function reports each answer. */
export interface WebhookReporting {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tracer: Tracer;
}

/** Answers one delivery: 202 accepted (counted, annotated, logged), 4xx named, 404 quietly, 500 logged. */
export async function answerWebhook(
  event: WebhookHttpEvent,
  deps: WebhookDeps,
  { logger, metrics, tracer }: WebhookReporting,
): Promise<WebhookHttpAnswer> {
  const { route, token } = webhookRouteOf(event);
  try {
    const response = await handleWebhook(
      { route, token, body: event.body, isBase64Encoded: event.isBase64Encoded },
      deps,
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

function json(statusCode: number, body: unknown): WebhookHttpAnswer {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
