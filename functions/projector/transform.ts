/**
 * Amazon Data Firehose data transformation: every result event of the pipeline bus → one row of the
 * Iceberg table `result_rows`, upserted on `result_id` (docs/analytics.md, "On AWS"); events of erased
 * results are dropped (docs/erasure.md). Logic: shared/analytics/iceberg.ts. Only counts are logged,
 * never a record.
 */
import { type FirehoseInputRecord, transformBatch } from '../../shared/analytics/iceberg';
import { createDynamoDocumentClient } from '../../shared/aws-clients';
import { loadProjectionTransformConfig } from '../../shared/config';
import { createLogger } from '../../shared/logger';
import { ErasureRecords } from '../../shared/store/erasure-record';

const config = loadProjectionTransformConfig();
const logger = createLogger({ environment: config.environment, functionName: 'projector-transform' });
const erasures =
  config.resultsTableName === undefined
    ? undefined
    : new ErasureRecords(createDynamoDocumentClient(), config.resultsTableName);

export const handler = async (event: { records: FirehoseInputRecord[] }) => {
  const { records, erased } = await transformBatch(event.records, config, erasures);
  const counts = { ok: 0, dropped: 0, failed: 0, erased };
  for (const { result } of records) {
    if (result === 'Ok') counts.ok++;
    else if (result === 'Dropped') counts.dropped++;
    else counts.failed++;
  }
  if (counts.failed > 0) logger.warn('events not projected: left in the error prefix', counts);
  else logger.info('events projected', counts);
  return { records };
};
