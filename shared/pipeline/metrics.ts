/**
 * Powertools Metrics (EMF) for the functions: namespace, service and the `environment` dimension come
 * from `METRICS`, the same names the alarms in `infra/` watch.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS } from '../metrics-names';

export type { Metrics };
export { MetricUnit };

/** A metrics instance for one function. */
export function createMetrics(environment: string): Metrics {
  return new Metrics({
    namespace: METRICS.namespace,
    serviceName: METRICS.serviceName,
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
