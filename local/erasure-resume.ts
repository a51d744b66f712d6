/**
 * `npm start` finishes what a killed `idv results erase --local` left (docs/erasure.md, "How it runs"):
 * every erasure record still `ERASING` is run again through the same one operation
 * (shared/erasure/erase-result.ts) with the local reaches — the projection, the journals and, through the
 * run's own queues, the messages — under the principal and selector the record names. Each finished
 * erasure is one line; one that fails again stays `ERASING` and says why (the next start or
 * `idv results erase --local` tries again).
 */
import {
  createDynamoDocumentClient,
  createEventBridgeClient,
  createS3Client,
  createSqsClient,
} from '../shared/aws-clients';
import { DEFAULT_COPY_BOUNDS } from '../shared/erasure/bounds';
import { type ErasureDeps, eraseResult, unfinishedErasures } from '../shared/erasure/erase-result';
import { queuePurgeReach } from '../shared/erasure/queue-purge';
import { publishResultErased } from '../shared/events/erased-event';
import { clientConfig } from './client-config';
import { localErasureReaches } from './erase-local-files';
import type { LocalAws } from './local-aws';
import type { PipelineResources } from './pipeline-resources';

/** Finishes every erasure of the local table a run left `ERASING`; `say` gets one line per result. */
export async function finishUnfinishedErasures(
  aws: LocalAws,
  resources: PipelineResources,
  dataDir: string,
  say: (line: string) => void,
): Promise<void> {
  const dynamo = createDynamoDocumentClient(undefined, clientConfig(aws, 'dynamodb'));
  const s3 = createS3Client({ s3ForcePathStyle: true }, undefined, clientConfig(aws, 's3'));
  const sqs = createSqsClient(undefined, clientConfig(aws, 'sqs'));
  const events = createEventBridgeClient(undefined, clientConfig(aws, 'eventBridge'));
  try {
    const unfinished = await unfinishedErasures(dynamo, resources.tableName);
    if (unfinished.length === 0) return;
    const deps: ErasureDeps = {
      dynamo,
      s3,
      tableName: resources.tableName,
      bucketName: resources.bucketName,
      dialect: 'local',
      markersTableName: resources.pollMarkersTableName,
      reaches: {
        ...localErasureReaches(dataDir),
        queues: queuePurgeReach(
          sqs,
          [
            { name: 'results', url: resources.queueUrl },
            { name: 'dlq', url: resources.dlqUrl },
          ],
          [],
        ),
      },
      receipt: { local: true, analytics: false, bounds: DEFAULT_COPY_BOUNDS },
      events: { publish: (detail) => publishResultErased(events, resources.eventBusName, detail) },
    };
    for (const { resultId, audit } of unfinished) {
      try {
        await eraseResult(deps, resultId, audit);
        say(`↺ finished the erasure of ${resultId} an earlier run left unfinished`);
      } catch (error) {
        say(
          `✖ the erasure of ${resultId} an earlier run left unfinished is still ERASING: ${error instanceof Error ? error.message : error} (npx --no-install idv results erase --result-id ${resultId} --local finishes it)`,
        );
      }
    }
  } finally {
    for (const client of [dynamo, s3, sqs, events]) client.destroy();
  }
}
