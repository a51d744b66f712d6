/**
 * The results queue's message contract (docs/pipeline.md, "Flow"): result messages from the
 * webhook, the poll and the redrive command, and upload notifications from the upload webhook.
 */
import { RESULT_ID_PATTERN, RESULT_ID_RULE } from '../api/result-id';
import { MalformedMessageError } from '../errors';
import { isJsonObject } from '../json-object';

/** Longest hint (transactionId, userId, customerReference, product, completed) a message carries. */
const MAX_HINT_LENGTH = 256;

/**
 * A value as a message may carry it as a hint: a non-empty string of at most 256 characters, else
 * `undefined` (ignored, never an error). The poll and the webhook both use it, so what they put in a
 * message is exactly what `parseQueueMessage` accepts.
 */
export function hintOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_HINT_LENGTH ? value : undefined;
}

/** Where a result message came from. */
export const MESSAGE_SOURCES = ['webhook', 'poll', 'redrive'] as const;
export type MessageSource = (typeof MESSAGE_SOURCES)[number];

/** A result to fetch and store. */
export type ResultMessage = {
  kind?: 'result';
  resultId: string;
  source: MessageSource;
  transactionId?: string;
  product?: string;
  customerReference?: string;
  userId?: string;
  completed?: string;
  /**
   * Fetch even when the result was erased (docs/erasure.md, "How it runs"): only an operator sets it
   * (`idv results refetch`); a webhook message never carries it.
   */
  refetch?: true;
};

/** Documents were uploaded through a secure link (upload webhook): announced, not fetched. */
export type UploadMessage = {
  kind: 'upload';
  transactionId: string;
  secureId?: string;
  /** Accepted from messages of earlier versions, always dropped by `parseQueueMessage` (unconfirmed). */
  customerReference?: string;
  uploadedAt?: string;
};

export type QueueMessage = ResultMessage | UploadMessage;

/**
 * Parses a queue message body. Throws `MalformedMessageError` naming the problem (never echoing the body):
 * such a message can never succeed and belongs in the DLQ.
 */
export function parseQueueMessage(body: string): QueueMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new MalformedMessageError('queue message is not JSON');
  }
  if (!isJsonObject(json)) throw new MalformedMessageError('queue message is not a JSON object');
  return confirmedOnly(json['kind'] === 'upload' ? uploadMessage(json) : resultMessage(json));
}

const RESULT_HINTS = ['transactionId', 'product', 'customerReference', 'userId', 'completed'] as const;
const UPLOAD_HINTS = ['secureId', 'customerReference', 'uploadedAt'] as const;

function resultMessage(fields: Record<string, unknown>): ResultMessage {
  const { kind, resultId, source } = fields;
  if (kind !== undefined && kind !== 'result') fieldProblem('kind', 'must be "result" or "upload"');
  if (typeof resultId !== 'string')
    fieldProblem('resultId', resultId === undefined ? 'is missing' : 'must be a string');
  if (!RESULT_ID_PATTERN.test(resultId)) fieldProblem('resultId', RESULT_ID_RULE);
  if (!(MESSAGE_SOURCES as readonly unknown[]).includes(source)) {
    fieldProblem('source', `must be one of ${MESSAGE_SOURCES.join(', ')}`);
  }
  return {
    ...(kind === 'result' && { kind }),
    resultId,
    source: source as MessageSource,
    ...hints(fields, RESULT_HINTS),
    ...(fields['refetch'] === true && { refetch: true as const }),
  };
}

function uploadMessage(fields: Record<string, unknown>): UploadMessage {
  const transactionId = optionalHint(fields, 'transactionId');
  if (transactionId === undefined) fieldProblem('transactionId', 'is missing');
  return { kind: 'upload', transactionId, ...hints(fields, UPLOAD_HINTS) };
}

/** The hint fields among `keys` that `fields` has (each checked by {@link optionalHint}). */
function hints<K extends string>(
  fields: Record<string, unknown>,
  keys: readonly K[],
): Partial<Record<K, string>> {
  const found: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = optionalHint(fields, key);
    if (value !== undefined) found[key] = value;
  }
  return found;
}

/** A hint field: absent is `undefined`; present, it must be a string of 1-256 characters. */
function optionalHint(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fieldProblem(key, 'must be a string');
  if (hintOf(value) === undefined) fieldProblem(key, `must be 1-${MAX_HINT_LENGTH} characters`);
  return value;
}

/** Names the field and the rule it breaks, never its value. */
function fieldProblem(field: string, problem: string): never {
  throw new MalformedMessageError(`queue message field ${field} ${problem}`);
}

/**
 * Drops what a message may carry only when the service said it (docs/reliability.md, "Hints never become
 * data"): a webhook's result message keeps its resultId alone, an upload message its validated
 * identifiers. The webhook already sends no more; this also cleans messages of earlier versions still in
 * the queue or the DLQ, so a redrive cannot bring a forged hint back. Poll and redrive messages keep the
 * poll record's metadata: the service supplied it.
 */
export function confirmedOnly(message: QueueMessage): QueueMessage {
  if (isUploadMessage(message)) {
    const { customerReference: _unconfirmed, secureId, ...rest } = message;
    return { ...rest, ...(secureId !== undefined && RESULT_ID_PATTERN.test(secureId) && { secureId }) };
  }
  if (message.source !== 'webhook') return message;
  return { ...(message.kind && { kind: message.kind }), resultId: message.resultId, source: 'webhook' };
}

/** True for a message that announces an upload rather than a result. */
export function isUploadMessage(message: QueueMessage): message is UploadMessage {
  return message.kind === 'upload';
}
