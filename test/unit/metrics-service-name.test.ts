import { describe, expect, it } from 'vitest';
import { metricsServiceName } from '../../shared/config';
import { METRICS } from '../../shared/metrics-names';
import { createMetrics, MetricUnit } from '../../shared/pipeline/metrics';

describe("the custom metrics' service dimension", () => {
  it("is the pipeline's POWERTOOLS_SERVICE_NAME, else the app's idv-pipeline", () => {
    // Act
    const set = metricsServiceName({ POWERTOOLS_SERVICE_NAME: 'teama-blue-pipeline' });
    const unset = metricsServiceName({});
    const empty = metricsServiceName({ POWERTOOLS_SERVICE_NAME: '' });

    // Assess
    expect(set).toBe('teama-blue-pipeline');
    expect([unset, empty]).toEqual([METRICS.serviceName, METRICS.serviceName]);
  });

  it('goes into every EMF record the function writes', () => {
    // Prepare
    const metrics = createMetrics('production', 'teama-blue-pipeline');

    // Act
    metrics.addMetric(METRICS.names.pollFailures, MetricUnit.Count, 1);
    const record = metrics.serializeMetrics() as unknown as Record<string, unknown>;

    // Assess
    expect(record).toMatchObject({ service: 'teama-blue-pipeline', environment: 'production' });
  });
});
