/**
 * The results queue's message contract (docs/pipeline.md, "Flow"): result messages from the
 * webhook, the poll and the redrive command, and upload notifications from the upload webhook.
 */
import * as z from 'zod/mini';
import '../api/zod-locale';
import { RESULT_ID_PATTERN, RESULT_ID_RULE } from '../client/validate';
import { MalformedMessageError } from '../errors';

/**
 * A well-formed resultId: the client's pattern (see `RESULT_ID_PATTERN`), so that whatever the webhook and
 * the poll accept the client can fetch. Slashes, `%`, whitespace and a leading dot are refused; in S3 keys
 * the id appears through `resultIdKeyPart`.
 */
export { RESULT_ID_PATTERN, RESULT_ID_RULE };

/** Longest hint (transactionId, userId, customerReference, product, completed) a message carries. */
const MAX_HINT_LENGTH = 256;

/** Identifiers passed along as hints (transactionId, userId, customerReference, product). */
const hint = z.string().check(z.minLength(1), z.maxLength(MAX_HINT_LENGTH));

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

export const resultMessageSchema = z.object({
  kind: z.optional(z.literal('result')),
  resultId: z.string().check(z.regex(RESULT_ID_PATTERN, RESULT_ID_RULE)),
  source: z.enum(MESSAGE_SOURCES),
  transactionId: z.optional(hint),
  product: z.optional(hint),
  customerReference: z.optional(hint),
  userId: z.optional(hint),
  completed: z.optional(hint),
});
/** A result to fetch and store. */
export type ResultMessage = z.infer<typeof resultMessageSchema>;

export const uploadMessageSchema = z.object({
  kind: z.literal('upload'),
  transactionId: hint,
  secureId: z.optional(hint),
  /** Accepted from messages of earlier versions, always dropped by `parseQueueMessage` (unconfirmed). */
  customerReference: z.optional(hint),
  uploadedAt: z.optional(hint),
});
/** Documents were uploaded through a secure link (upload webhook): announced, not fetched. */
export type UploadMessage = z.infer<typeof uploadMessageSchema>;

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
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new MalformedMessageError('queue message is not a JSON object');
  }
  const isUpload = (json as { kind?: unknown }).kind === 'upload';
  const parsed = (isUpload ? uploadMessageSchema : resultMessageSchema).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'message';
    throw new MalformedMessageError(`queue message field ${field} ${issue?.message ?? 'is invalid'}`);
  }
  return confirmedOnly(parsed.data);
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
