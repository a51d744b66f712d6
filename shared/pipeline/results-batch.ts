/**
 * The results queue consumer's wiring and batch loop (the fetch-result handler is these two calls):
 * its dependencies built once per container from the config, and one SQS batch run within the
 * invocation's time (`batch-runner.ts`), a few records at once, two messages of one resultId in turn,
 * every failed, unfinished or unstarted message reported in `batchItemFailures`.
 */

import type { PollResponse } from '../api/schemas';
import {
  createDynamoDocumentClient,
  createEventBridgeClient,
  createS3Client,
  createSecretsClient,
} from '../aws-clients';
import { RequestPacer } from '../client/pacer';
import type { FetchResultConfig } from '../config';
import { describeError } from '../errors';
import { EventBridgePublisher } from '../events/publisher';
import type { Logger } from '../logger';
import { METRICS } from '../metrics-names';
import { PollRecords } from '../store/poll-records';
import { Publications } from '../store/publication';
import { ResultStore } from '../store/result-store';
import { inSubsegment, queueMessageIds, type Tracer } from '../tracing';
import { runBatch } from './batch-runner';
import { FETCH_BUDGET } from './fetch-budget';
import {
  type FetchOutcome,
  type FetchResultDeps,
  type PollMetadata,
  type PollMetadataLookup,
  processQueueRecord,
} from './fetch-result';
import { hintOf, parseQueueMessage } from './messages';
import { type Metrics, MetricUnit } from './metrics';
import { createServiceClient } from './service-client';

/** The fetch-result dependencies on AWS and the service, from the function's config. */
export function fetchResultDeps(config: FetchResultConfig, tracer: Tracer, logger: Logger): ResultsBatchDeps {
  const { client } = createServiceClient(config, createSecretsClient(tracer), logger, {
    timeoutMs: FETCH_BUDGET.serviceCallTimeoutMs,
    retry: FETCH_BUDGET.retry,
    // One pace for the container: its share of the service's rate, and a 429 holds every record in flight.
    pacer: new RequestPacer({ ratePerSecond: config.serviceRequestsPerSecond }),
  });
  const dynamo = createDynamoDocumentClient(tracer);
  return {
    source: client,
    pollSource: client,
    pollRecords: new PollRecords(dynamo, config.resultsTableName, config.retentionDays),
    store: new ResultStore({
      s3: createS3Client(config, tracer),
      dynamo,
      bucket: config.dataBucketName,
      table: config.resultsTableName,
    }),
    publications: new Publications(dynamo, config.resultsTableName),
    publisher: new EventBridgePublisher(createEventBridgeClient(tracer), config.eventBusName),
    environment: config.environment,
    eventCustomerReference: config.eventCustomerReference,
    retentionDays: config.retentionDays,
    logger,
  };
}

/** What reads the service's polling records (`IdvClient` fits). */
export interface PollRecordSource {
  poll(): Promise<PollResponse>;
}

/** The fetch-result dependencies of a batch. */
export type ResultsBatchDeps = FetchResultDeps & {
  /**
   * Where the batch reads the polling records of results announced without them (webhook messages):
   * once per batch, before any result of the batch is fetched (a fetch removes the record). Without
   * it, results keep only what their message says.
   */
  readonly pollSource?: PollRecordSource;
  /**
   * Where the polling records read for the batch are kept until their result is stored, so an attempt
   * after the first fetch (which removed the record at the service) still finds them. Without it, such an
   * attempt stores the result without product and completion time.
   */
  readonly pollRecords?: Pick<PollRecords, 'keep' | 'get'>;
};

/** What one batch needs besides its records. */
export interface ResultsBatchContext {
  readonly deps: ResultsBatchDeps;
  readonly tracer: Tracer;
  readonly metrics: Metrics;
  /** Time left in the invocation (`context.getRemainingTimeInMillis`); without it there is no deadline. */
  readonly remainingMs?: () => number;
}

/** One SQS record, as much of it as the batch needs. */
export interface QueueRecord {
  readonly messageId: string;
  readonly body: string;
}

const OUTCOME_METRICS: Partial<Record<FetchOutcome, string>> = {
  stored: METRICS.names.resultsStored,
  changed: METRICS.names.resultsChanged,
  unavailable: METRICS.names.resultsUnavailable,
  duplicate: METRICS.names.duplicatesSkipped,
};

/**
 * Runs one batch; a batch where every message failed is still a partial response: SQS redelivers each
 * failed message, and none fails its batch-mates.
 */
export async function processResultsBatch(
  records: readonly QueueRecord[],
  context: ResultsBatchContext,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const { deps, tracer, metrics } = context;
  const pollMetadata = await pollMetadataOf(records, context);
  const run = await runBatch(
    records,
    async (record, deadlines) => {
      const outcome = await inSubsegment(
        tracer,
        '### record',
        () =>
          processQueueRecord(
            record.body,
            deps,
            { ...deadlines, claimToken: record.messageId },
            pollMetadata?.lookup,
          ),
        { ids: queueMessageIds(record.body) },
      );
      const metric = OUTCOME_METRICS[outcome];
      if (metric) metrics.addMetric(metric, MetricUnit.Count, 1);
      if (
        (outcome === 'stored' || outcome === 'unavailable') &&
        pollMetadata?.missing.has(record.messageId)
      ) {
        // Its record was already gone: stored with completedKnown false and no product (docs/analytics.md).
        metrics.addMetric(METRICS.names.resultsWithoutPollRecord, MetricUnit.Count, 1);
      }
    },
    {
      budget: FETCH_BUDGET,
      ...(context.remainingMs && { remainingMs: context.remainingMs }),
      // Two messages of one resultId in a batch (webhook + poll) run in turn: one fetch, not two.
      keyOf: (record) => {
        const { resultId } = queueMessageIds(record.body);
        return typeof resultId === 'string' ? resultId : undefined;
      },
    },
  );
  if (run.notStarted > 0 || run.unfinished > 0) {
    deps.logger.warn('invocation time ran short: records left for redelivery', {
      notStarted: run.notStarted,
      unfinished: run.unfinished,
    });
  }
  return { batchItemFailures: run.batchItemFailures };
}

/**
 * Keeps each polling record the service still had for a result of the batch, and recalls a kept one for a
 * result whose record the service no longer has (an earlier attempt's fetch removed it). Failures only
 * cost the metadata, never the result: they are logged and the batch goes on.
 */
async function keepOrRecall(
  needing: ReadonlyMap<string, string>,
  found: Map<string, PollMetadata>,
  context: ResultsBatchContext,
): Promise<void> {
  const records = context.deps.pollRecords;
  if (!records) return;
  const resultIds = new Set(needing.values());
  await Promise.all(
    [...resultIds].map(async (resultId) => {
      try {
        const read = found.get(resultId);
        if (read) await records.keep(resultId, read);
        else {
          const kept = await records.get(resultId);
          if (kept) found.set(resultId, kept);
        }
      } catch (error) {
        context.deps.logger.warn('kept polling record not written or read: the result goes on without it', {
          resultId,
          error: describeError(error),
        });
      }
    }),
  );
}

/** The polling records read for one batch, and the messages whose record was not among them. */
interface BatchPollMetadata {
  readonly lookup: PollMetadataLookup;
  /** messageIds of result messages without metadata of their own whose record the service no longer had. */
  readonly missing: ReadonlySet<string>;
}

/**
 * One `GET /api/v2/poll` for the batch, when some result message carries no polling metadata of its own
 * (a webhook message, or its redrive): the service removes a record when its result is fetched, so it is
 * read now, before any record of the batch is processed. At most one call per batch, none when every
 * message came from the poll. A failed call is logged and counted, never fatal: the results are stored
 * without the metadata, as before, rather than held back.
 */
async function pollMetadataOf(
  records: readonly QueueRecord[],
  context: ResultsBatchContext,
): Promise<BatchPollMetadata | undefined> {
  const { deps, metrics } = context;
  const source = deps.pollSource;
  if (!source) return undefined;
  const needing = new Map<string, string>();
  for (const record of records) {
    try {
      const message = parseQueueMessage(record.body);
      if (message.kind !== 'upload' && message.completed === undefined) {
        needing.set(record.messageId, message.resultId);
      }
    } catch {
      // A malformed body fails on its own in processQueueRecord.
    }
  }
  if (needing.size === 0) return undefined;
  const found = new Map<string, PollMetadata>();
  try {
    const { results } = await source.poll();
    for (const entry of results) {
      if (typeof entry.resultId !== 'string') continue;
      found.set(entry.resultId, {
        transactionId: hintOf(entry.transactionId),
        product: hintOf(entry.product),
        customerReference: hintOf(entry.customerReference),
        userId: hintOf(entry.userId),
        completed: hintOf(entry.completed),
      });
    }
  } catch (error) {
    metrics.addMetric(METRICS.names.pollMetadataFailures, MetricUnit.Count, 1);
    deps.logger.warn('polling records not read: results of this batch go on without their metadata', {
      error: describeError(error),
    });
  }
  await keepOrRecall(needing, found, context);
  const missing = new Set([...needing].filter(([, resultId]) => !found.has(resultId)).map(([id]) => id));
  return { lookup: (resultId) => found.get(resultId), missing };
}
