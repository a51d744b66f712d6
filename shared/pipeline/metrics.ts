/**
 * Powertools Metrics (EMF) for the functions: namespace, service and the `environment` dimension come
 * from `METRICS`, the same names the alarms in `infra/` watch.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsServiceName } from '../config';
import { METRICS } from '../metrics-names';

export type { Metrics };
export { MetricUnit };

/**
 * A metrics instance for one function; the `service` dimension is the pipeline's (`metricsServiceName`),
 * read at load with the rest of the function's configuration.
 */
export function createMetrics(environment: string, serviceName: string = metricsServiceName()): Metrics {
  return new Metrics({
    namespace: METRICS.namespace,
    serviceName,
    defaultDimensions: { [METRICS.environmentDimension]: environment },
  });
}

/**
 * Flushes the stored metrics, if any. Powertools warns on every empty flush; a webhook rejection or a
 * batch of duplicates legitimately records nothing, so an empty flush is simply skipped.
 */
export function publishMetrics(metrics: Metrics): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
