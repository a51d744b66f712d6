/**
 * Amazon Data Firehose data transformation: every result event of the pipeline bus → one row of the
 * Iceberg table `result_rows`, upserted on `result_id` (docs/analytics.md, "On AWS").
 * Logic: shared/analytics/iceberg.ts. Only counts are logged, never a record.
 */
import { type FirehoseInputRecord, transformRecord } from '../../shared/analytics/iceberg';
import { loadProjectionTransformConfig } from '../../shared/config';
import { createLogger } from '../../shared/logger';

const config = loadProjectionTransformConfig();
const logger = createLogger({ environment: config.environment, functionName: 'projector-transform' });

export const handler = async (event: { records: FirehoseInputRecord[] }) => {
  const records = event.records.map((record) => transformRecord(record, config));
  const counts = { ok: 0, dropped: 0, failed: 0 };
  for (const { result } of records) {
    if (result === 'Ok') counts.ok++;
    else if (result === 'Dropped') counts.dropped++;
    else counts.failed++;
  }
  if (counts.failed > 0) logger.warn('events not projected: left in the error prefix', counts);
  else logger.info('events projected', counts);
  return { records };
};
