/**
 * The fetch-result use-case, one queue message at a time:
 *
 *   already stored and announced → skip (no service call)
 *   stored, not announced        → publish → mark
 *   otherwise                    → fetch → S3 objects → conditional item put → publish → mark
 *   404 from the service         → UNAVAILABLE item (conditional) → publish → mark
 *
 * Every step is idempotent and the order means a crash after any step is repaired by the redelivery of
 * the same message. Dependencies come in as arguments so tests can make any step fail once.
 */
import { itemSummaryDetail } from '../analytics/summary';
import type { ServiceEnvironment } from '../api/enums';
import { NotFoundError, ResponseFormatError, ServiceError, UnauthorizedError } from '../client/errors';
import { parseJsonText } from '../client/http';
import { describeError, PipelineError } from '../errors';
import type { EventPublisher, ResultStoredDetail, ResultUnavailableDetail } from '../events/publisher';
import { type Logger, withCorrelation } from '../logger';
import {
  buildStoredItem,
  buildUnavailableItem,
  type ResultHints,
  type ResultItem,
  type ResultStatus,
  resultJsonKey,
  type StoredObjects,
} from '../store/result-store';
import {
  isUploadMessage,
  parseQueueMessage,
  type QueueMessage,
  type ResultMessage,
  type UploadMessage,
} from './messages';

/** What fetch-result needs from the service client (`IdvClient` fits): the raw result body. */
export interface ResultSource {
  getResultBody(resultId: string): Promise<Uint8Array>;
}

/** What fetch-result needs from the store (`ResultStore` fits). */
export interface ResultStorePort {
  readonly bucket: string;
  readonly table: string;
  getItem(resultId: string): Promise<ResultItem | undefined>;
  writeObjects(resultId: string, result: Record<string, unknown>): Promise<StoredObjects>;
  putStoredItem(item: ResultItem): Promise<boolean>;
  putUnavailableItem(item: ResultItem): Promise<boolean>;
  markPublished(resultId: string, status: ResultStatus, at: string): Promise<void>;
}

/** Dependencies of `processMessage`. */
export interface FetchResultDeps {
  readonly source: ResultSource;
  readonly store: ResultStorePort;
  readonly publisher: EventPublisher;
  readonly environment: ServiceEnvironment;
  readonly retentionDays: number;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** What happened to one message. */
export type FetchOutcome = 'stored' | 'unavailable' | 'duplicate' | 'announced-pending' | 'upload-announced';

/** Processes one parsed queue message. Throws on any failure: the message is then redelivered. */
export async function processMessage(message: QueueMessage, deps: FetchResultDeps): Promise<FetchOutcome> {
  if (isUploadMessage(message)) return announceUpload(message, deps);
  return processResult(message, deps);
}

/**
 * Parses and processes one SQS message body with `resultId`/`transactionId` on every log line. A malformed
 * body throws `MalformedMessageError`: it can never succeed, so it goes through redelivery to the DLQ.
 */
export async function processQueueRecord(body: string, deps: FetchResultDeps): Promise<FetchOutcome> {
  let message: QueueMessage;
  try {
    message = parseQueueMessage(body);
  } catch (error) {
    deps.logger.error('malformed queue message: left for the DLQ', { error: describeError(error) });
    throw error;
  }
  const ids = isUploadMessage(message)
    ? { transactionId: message.transactionId }
    : { resultId: message.resultId, transactionId: message.transactionId };
  return withCorrelation(deps.logger, ids, async () => {
    try {
      return await processMessage(message, deps);
    } catch (error) {
      deps.logger.error(failureLine(error), { error: describeError(error) });
      throw error;
    }
  });
}

/**
 * The log line of a failed message. A refusal by the service (a 4xx other than 404/410, which become
 * UNAVAILABLE, and 429) will not get better by redelivery alone: it is still redelivered, never dropped,
 * so it ends in the DLQ, and the line says what a human should look at. Never the body: only the error's
 * name, message, status and code go with it.
 */
function failureLine(error: unknown): string {
  if (error instanceof UnauthorizedError) {
    return 'message failed: the service refused our access token even after a refresh (401); left for redelivery, then the DLQ: check the client credentials and the productapi.result.read scope';
  }
  if (error instanceof ServiceError && error.status >= 400 && error.status < 500 && error.status !== 429) {
    return `message failed: the service refused the result request (${error.status}); left for redelivery, then the DLQ: check the resultId, the scopes and the account`;
  }
  return 'message failed: left for redelivery';
}

function clock(deps: FetchResultDeps): string {
  return (deps.now ?? (() => new Date()))().toISOString();
}

async function processResult(message: ResultMessage, deps: FetchResultDeps): Promise<FetchOutcome> {
  const { store, logger } = deps;
  const existing = await store.getItem(message.resultId);
  if (existing?.status === 'STORED') {
    if (existing.eventPublishedAt) {
      logger.info('result already stored and announced: skipped', { source: message.source });
      return 'duplicate';
    }
    await announce(existing, deps);
    return 'announced-pending';
  }
  // No item, or UNAVAILABLE: ask the service (again: a result it now has replaces UNAVAILABLE).
  let document: Record<string, unknown>;
  try {
    document = await fetchDocument(message.resultId, deps.source);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return recordUnavailable(message, existing, deps);
  }
  const stored = await store.writeObjects(message.resultId, document);
  const item = buildStoredItem({
    hints: hintsOf(message),
    document,
    stored,
    bucket: store.bucket,
    storedAt: clock(deps),
    retentionDays: deps.retentionDays,
  });
  if (!(await store.putStoredItem(item))) {
    // Stored meanwhile by a concurrent delivery: finish whatever it has not finished.
    const current = await store.getItem(message.resultId);
    if (current?.eventPublishedAt) return 'duplicate';
    if (current) await announce(current, deps);
    return 'announced-pending';
  }
  logger.info('result stored', { objects: stored.objects.length, documentBytes: stored.documentBytes });
  await announce(item, deps);
  return 'stored';
}

async function recordUnavailable(
  message: ResultMessage,
  existing: ResultItem | undefined,
  deps: FetchResultDeps,
): Promise<FetchOutcome> {
  const { store, logger } = deps;
  let item = existing;
  if (!item) {
    const candidate = buildUnavailableItem({
      hints: hintsOf(message),
      storedAt: clock(deps),
      retentionDays: deps.retentionDays,
    });
    item = (await store.putUnavailableItem(candidate)) ? candidate : await store.getItem(message.resultId);
    if (!item) throw new PipelineError('result item vanished after a conditional check failed');
  }
  if (item.eventPublishedAt) return 'duplicate';
  logger.warn('service has no result for this resultId: recorded as UNAVAILABLE', { source: message.source });
  await announce(item, deps);
  return item.status === 'STORED' ? 'announced-pending' : 'unavailable';
}

/** Publishes the item's event, then marks it published. */
async function announce(item: ResultItem, deps: FetchResultDeps): Promise<void> {
  if (item.status === 'STORED') {
    await deps.publisher.publishResultStored(storedDetail(item, deps));
  } else {
    await deps.publisher.publishResultUnavailable(unavailableDetail(item, deps));
  }
  await deps.store.markPublished(item.resultId, item.status, clock(deps));
}

async function announceUpload(message: UploadMessage, deps: FetchResultDeps): Promise<FetchOutcome> {
  const uploadedMs = message.uploadedAt ? Date.parse(message.uploadedAt) : Number.NaN;
  await deps.publisher.publishDocumentsUploaded({
    transactionId: message.transactionId,
    ...(message.secureId && { secureId: message.secureId }),
    ...(message.customerReference && { customerReference: message.customerReference }),
    uploadedAt: Number.isNaN(uploadedMs) ? clock(deps) : new Date(uploadedMs).toISOString(),
    environment: deps.environment,
  });
  deps.logger.info('documents upload announced');
  return 'upload-announced';
}

function hintsOf(message: ResultMessage): ResultHints {
  const { kind: _kind, ...hints } = message;
  return hints;
}

/**
 * Fetches and parses the result. Bounded memory: the raw body is released before parsing and the text
 * when this frame returns, so the caller only ever holds the parsed object. (Keeping the fetch inside the
 * caller left the raw buffer reachable from its stack frame until its next `await`, i.e. through the
 * parse and the first image's decode: measured 2× the body instead of 1×.)
 */
async function fetchDocument(resultId: string, source: ResultSource): Promise<Record<string, unknown>> {
  let body: Uint8Array | undefined = await source.getResultBody(resultId);
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  body = undefined;
  return parseResultText(text);
}

function parseResultText(text: string): Record<string, unknown> {
  // Text, not the body's buffer: the raw bytes are already released (see `fetchDocument`).
  const json = parseJsonText(text);
  // Not a malformed *message*: the service's answer was bad (truncated, an HTML error page behind a 200).
  // Thrown so the message is redelivered and fetched again (the result stays retrievable by id), and
  // after maxReceiveCount lands in the DLQ. The body is never part of the error: it holds personal data.
  if (json === undefined) {
    throw new ResponseFormatError(
      `the service answered the result request with a body that is not JSON (${Buffer.byteLength(text)} bytes)`,
      200,
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ResponseFormatError(
      'the service answered the result request with JSON that is not an object',
      200,
    );
  }
  return json as Record<string, unknown>;
}

function identifiers(item: ResultItem) {
  return {
    resultId: item.resultId,
    ...(item.transactionId && { transactionId: item.transactionId }),
    ...(item.customerReference && { customerReference: item.customerReference }),
    ...(item.userId && { userId: item.userId }),
    ...(item.product && { product: item.product }),
    ...(item.completedKnown && { completed: item.completed }),
  };
}

/** What an event detail needs besides the item. */
export interface DetailContext {
  readonly environment: ServiceEnvironment;
  readonly store: Pick<ResultStorePort, 'table' | 'bucket'>;
}

/** Event detail of a STORED item: identifiers, results and reason codes only. */
export function storedDetail(item: ResultItem, deps: DetailContext): ResultStoredDetail {
  return {
    ...identifiers(item),
    status: 'STORED',
    ...(item.result && { result: item.result }),
    sections: item.sections ?? {},
    messages: item.messages ?? [],
    ...itemSummaryDetail(item),
    storedAt: item.storedAt,
    environment: deps.environment,
    storage: {
      table: deps.store.table,
      bucket: item.bucket ?? deps.store.bucket,
      resultKey: item.resultKey ?? resultJsonKey(item.resultId),
      objectCount: item.objects?.length ?? 0,
    },
  };
}

/** Event detail of an UNAVAILABLE item. */
export function unavailableDetail(item: ResultItem, deps: DetailContext): ResultUnavailableDetail {
  return {
    ...identifiers(item),
    status: 'UNAVAILABLE',
    reason: 'NOT_FOUND',
    recordedAt: item.storedAt,
    environment: deps.environment,
    storage: { table: deps.store.table },
  };
}
