/**
 * Scheduled retention check (daily): anything past its retention (plus the lag TTL and lifecycle may
 * take) still in the results table, the data bucket (any version) or the analytics projection is counted
 * in the `ResultsPastRetention` metric, whose alarm fires above zero. Logic: shared/erasure/retention.
 * Reads only; logs counts and result ids, never an item or an object.
 */
import type { Context } from 'aws-lambda';
import { listProjectionObjects } from '../../shared/analytics/erase';
import { createDynamoDocumentClient, createS3Client } from '../../shared/aws-clients';
import { loadRetentionCheckConfig } from '../../shared/config';
import { checkRetention, PAST_RETENTION_METRIC, type RetentionReport } from '../../shared/erasure/retention';
import { createLogger } from '../../shared/logger';
import { createMetrics, MetricUnit, publishMetrics } from '../../shared/pipeline/metrics';

const config = loadRetentionCheckConfig();
const logger = createLogger({ environment: config.environment, functionName: 'retention-check' });
const metrics = createMetrics(config.environment);
const dynamo = createDynamoDocumentClient();
const s3 = createS3Client(config);
const analyticsBucket = config.analyticsBucketName;

export const handler = async (_event?: unknown, context?: Context): Promise<RetentionReport> => {
  if (context) logger.addContext(context);
  try {
    const report = await checkRetention(
      {
        dynamo,
        s3,
        tableName: config.resultsTableName,
        bucketName: config.dataBucketName,
        dialect: 'aws',
        ...(analyticsBucket && { projection: () => listProjectionObjects(s3, analyticsBucket) }),
      },
      { retentionDays: config.retentionDays },
    );
    metrics.addMetric(PAST_RETENTION_METRIC, MetricUnit.Count, report.total);
    if (report.total > 0) {
      logger.warn('data past its retention is still stored', {
        pastRetention: report.pastRetention,
        resultIds: report.resultIds,
      });
    }
    return report;
  } finally {
    publishMetrics(metrics);
  }
};
