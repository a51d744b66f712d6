/**
 * The webhook use-case. The body's fields are not specified by the service, so it is only a hint: a
 * well-formed resultId (or, for uploads, the transaction identifiers) is looked for where a sender would
 * put it, validated and enqueued. Authenticity comes later from fetching the result with our own
 * credentials; the secret path segment only keeps strangers from making us spend.
 *
 * Hints never become data (docs/reliability.md): nothing else of the body is taken. Anyone who learns
 * the secret path could otherwise plant text (a name, a date of birth) that would end up in an
 * UNAVAILABLE item and its event, or in an upload event, as if the service had said it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { RESULT_ID_PATTERN, RESULT_ID_RULE, resultIdFromJson } from '../api/result-id';
import { isJsonObject } from '../json-object';
import type { QueueMessage, ResultMessage, UploadMessage } from './messages';

/** Largest accepted body (decoded), in bytes. */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;

/** The two webhook routes. */
export type WebhookRoute = 'result' | 'upload';

/** The parts of an HTTP request the webhook looks at. */
export interface WebhookRequest {
  readonly route: WebhookRoute | undefined;
  readonly token: string | undefined;
  readonly body: string | null | undefined;
  readonly isBase64Encoded: boolean;
}

/** The HTTP answer. */
export interface WebhookResponse {
  readonly statusCode: number;
  readonly body: Record<string, unknown>;
}

/** Dependencies of `handleWebhook`. */
export interface WebhookDeps {
  /** The secret path segment (read once per container by the handler). */
  readonly secret: () => Promise<string>;
  readonly enqueue: (message: QueueMessage) => Promise<void>;
  readonly now?: () => Date;
}

const NOT_FOUND: WebhookResponse = { statusCode: 404, body: { message: 'Not Found' } };

/** Compares two strings in constant time (hashing first, so lengths leak nothing either). */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** Handles one webhook delivery: 202 when enqueued, 4xx naming the problem, 404 for a wrong secret. */
export async function handleWebhook(request: WebhookRequest, deps: WebhookDeps): Promise<WebhookResponse> {
  if (!request.route || !request.token) return NOT_FOUND;
  if (!secretsEqual(request.token, await deps.secret())) return NOT_FOUND;

  const parsed = parseBody(request);
  if ('error' in parsed) return parsed.error;
  const extracted =
    request.route === 'result'
      ? extractResultMessage(parsed.json)
      : extractUploadMessage(parsed.json, (deps.now ?? (() => new Date()))());
  if ('problem' in extracted) return badRequest(extracted.problem);

  await deps.enqueue(extracted.message);
  const message = extracted.message;
  return {
    statusCode: 202,
    body:
      message.kind === 'upload'
        ? { accepted: true, transactionId: message.transactionId }
        : { accepted: true, resultId: message.resultId },
  };
}

function badRequest(message: string): WebhookResponse {
  return { statusCode: 400, body: { message } };
}

function parseBody(request: WebhookRequest): { json: Record<string, unknown> } | { error: WebhookResponse } {
  const raw = request.body ?? '';
  // The decoded size, computed without decoding (base64 padding counted exactly), so an oversized body
  // is never decoded and a body of exactly 256 KB is still accepted.
  const bytes = Buffer.byteLength(raw, request.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes > MAX_WEBHOOK_BODY_BYTES) {
    return { error: { statusCode: 413, body: { message: 'body must be at most 256 KB' } } };
  }
  const text = request.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.trim().length === 0) return { error: badRequest('body is empty: expected a JSON object') };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: badRequest('body is not valid JSON') };
  }
  if (!isJsonObject(json)) return { error: badRequest('body must be a JSON object') };
  return { json };
}

/** Objects a sender might wrap its fields in, searched in this order after the top level. */
const CONTAINERS = ['data', 'payload', 'result', 'body', 'detail', 'event', 'notification', 'metadata'];

/** Looks for the first string under one of `names`, at the top level, then inside the containers. */
function find(json: Record<string, unknown>, names: readonly string[]): unknown {
  const scopes: Record<string, unknown>[] = [json];
  for (const c of CONTAINERS) {
    const inner = json[c];
    if (isJsonObject(inner)) scopes.push(inner);
  }
  for (const scope of scopes) {
    for (const name of names) {
      if (scope[name] !== undefined && scope[name] !== null) return scope[name];
    }
  }
  return undefined;
}

const RESULT_ID_NAMES = ['resultId', 'result_id', 'resultID', 'ResultId'];
const TRANSACTION_ID_NAMES = ['transactionId', 'transaction_id', 'transactionID'];
const SECURE_ID_NAMES = ['secureId', 'secure_id', 'secureID'];

/** A well-formed identifier (the resultId rule) found under one of `names`, else undefined. */
function findIdentifier(json: Record<string, unknown>, names: readonly string[]): string | undefined {
  const id = resultIdFromJson(find(json, names));
  return id !== undefined && RESULT_ID_PATTERN.test(id) ? id : undefined;
}

/** The queue message of a result webhook, or the problem with the body. */
export function extractResultMessage(
  json: Record<string, unknown>,
): { message: ResultMessage } | { problem: string } {
  let found = find(json, RESULT_ID_NAMES);
  // `{ "result": { "id": "…" } }` is a common way to nest it.
  if (found === undefined) {
    const result = json.result;
    if (isJsonObject(result)) found = result.id;
  }
  if (found === undefined) return { problem: 'resultId is missing from the body' };
  // A JSON number is taken as its decimal string: another implementation may use numeric ids.
  const resultId = resultIdFromJson(found);
  if (resultId === undefined || !RESULT_ID_PATTERN.test(resultId)) {
    return { problem: `resultId is malformed: it ${RESULT_ID_RULE}` };
  }
  // The resultId only: product, customerReference, userId, completed and a transactionId in the body are
  // unconfirmed text. The poll record (what the service says) or the fetched result supplies them.
  return { message: { resultId, source: 'webhook' } };
}

/** The queue message of an upload webhook, or the problem with the body. */
export function extractUploadMessage(
  json: Record<string, unknown>,
  receivedAt: Date,
): { message: UploadMessage } | { problem: string } {
  const found = find(json, TRANSACTION_ID_NAMES);
  if (found === undefined) return { problem: 'transactionId is missing from the body' };
  // Same rule as a resultId: another implementation's transaction ids may look like its result ids.
  const transactionId = resultIdFromJson(found);
  if (transactionId === undefined || !RESULT_ID_PATTERN.test(transactionId)) {
    return { problem: `transactionId is malformed: it ${RESULT_ID_RULE}` };
  }
  // A secureId is taken only when well-formed (a malformed one is dropped, not an error: the upload still
  // happened). No customerReference: the service offers no way to confirm it for a secure link, and a
  // forged one would reach every subscriber. The time is ours (when the webhook arrived): a body's
  // "timestamp" could be any date, a date of birth included.
  const secureId = findIdentifier(json, SECURE_ID_NAMES);
  return {
    message: {
      kind: 'upload',
      transactionId,
      ...(secureId !== undefined && { secureId }),
      uploadedAt: receivedAt.toISOString(),
    },
  };
}

/** The parts of an API Gateway REST proxy event that name the route. */
export interface WebhookRouteSource {
  readonly resource?: string | null;
  readonly path?: string | null;
  readonly pathParameters?: Readonly<Record<string, string | undefined>> | null;
}

const ROUTE_PATH = /\/webhooks\/([^/]+)\/(result|upload)\/?$/;

/** Route and secret path segment of an API Gateway proxy event (`/webhooks/{token}/result|upload`). */
export function webhookRouteOf(event: WebhookRouteSource): { route?: WebhookRoute; token?: string } {
  const match = ROUTE_PATH.exec(event.path ?? '') ?? ROUTE_PATH.exec(event.resource ?? '');
  const route = match?.[2] as WebhookRoute | undefined;
  const fromPath = match?.[1] === '{token}' ? undefined : match?.[1];
  const token = event.pathParameters?.token ?? (fromPath ? safeDecode(fromPath) : undefined);
  return { ...(route && { route }), ...(token && { token }) };
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
