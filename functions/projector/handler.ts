/**
 * EventBridge rule target: every VerificationResultStored / VerificationResultUnavailable event of the
 * pipeline bus → one projection record in the analytics bucket (docs/analytics.md).
 * Logic: shared/analytics. A failure throws: EventBridge retries, then the rule's DLQ keeps the event.
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { EventBridgeEvent } from 'aws-lambda';
import { writeProjectionObject } from '../../shared/analytics/writer';
import { loadProjectorConfig } from '../../shared/config';
import { describeError } from '../../shared/errors';
import { createLogger } from '../../shared/logger';

const config = loadProjectorConfig();
const logger = createLogger({ environment: config.environment, functionName: 'projector' });
// Built here rather than through shared/aws-clients, which would also bundle the DynamoDB clients.
const s3 = new S3Client({ forcePathStyle: config.s3ForcePathStyle });

export const handler = async (event: EventBridgeEvent<string, unknown>): Promise<void> => {
  const resultId = (event.detail as { resultId?: unknown } | null)?.resultId;
  try {
    const outcome = await writeProjectionObject(s3, config.analyticsBucketName, event);
    logger.info('event projected', {
      detailType: event['detail-type'],
      ...(typeof resultId === 'string' && { resultId }),
      ...outcome,
    });
  } catch (error) {
    logger.error('event not projected: left for retry, then the DLQ', {
      detailType: event['detail-type'],
      ...(typeof resultId === 'string' && { resultId }),
      error: describeError(error),
    });
    throw error;
  }
};
