/**
 * Writes the projection record of one pipeline event to the analytics bucket (the projector function's
 * core). One object per result and status at a deterministic key, so EventBridge's at-least-once
 * delivery and retries only ever overwrite the same object with the same record.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type PipelineEvent, projectEvent, recordKey, recordLine } from './projection';

/** What happened to one event. */
export type ProjectionOutcome = { written: string } | { skipped: 'not a result event' };

/** Projects `event` into `bucket`; throws on S3 errors (the rule target retries, then its DLQ). */
export async function writeProjectionObject(
  s3: S3Client,
  bucket: string,
  event: PipelineEvent,
): Promise<ProjectionOutcome> {
  const record = projectEvent(event);
  if (!record) return { skipped: 'not a result event' };
  const key = recordKey(record);
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: recordLine(record),
      ContentType: 'application/x-ndjson',
      // No ServerSideEncryption header: the bucket's default (the stack key) applies.
    }),
  );
  return { written: key };
}
