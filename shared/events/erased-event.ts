/**
 * The `VerificationResultErased` event (schema: shared/events/schemas/VerificationResultErased.schema.json):
 * a result was erased on request, so every system that copied it erases its copy too. Identifiers,
 * counts and the receipt (when each copy out of the erasure's reach is gone) only, each checked on the
 * way out like the other result events: the erased result's data is gone, and an event must not carry it
 * again.
 */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ENVIRONMENTS, type ServiceEnvironment } from '../api/enums';
import { RESULT_ID_PATTERN } from '../api/result-id';
import { EventPublishError, PipelineError } from '../errors';
import type { ResultErasedDetail } from './detail-types';
import { DETAIL_TYPES, EVENT_SOURCE } from './names';

/** The detail, with every identifier checked (an id that breaks the resultId rule is left out). */
export function erasedDetail(facts: {
  resultId: string;
  transactionId?: string;
  erasedAt: string;
  environment?: string;
  table: string;
  removed: ResultErasedDetail['removed'];
  receipt: ResultErasedDetail['receipt'];
}): ResultErasedDetail {
  if (!RESULT_ID_PATTERN.test(facts.resultId)) throw new PipelineError('resultId breaks the resultId rule');
  const environment = (ENVIRONMENTS as readonly string[]).includes(facts.environment ?? '')
    ? (facts.environment as ServiceEnvironment)
    : undefined;
  return {
    resultId: facts.resultId,
    ...(facts.transactionId !== undefined &&
      RESULT_ID_PATTERN.test(facts.transactionId) && { transactionId: facts.transactionId }),
    status: 'ERASED',
    erasedAt: facts.erasedAt,
    ...(environment && { environment }),
    storage: { table: facts.table },
    removed: { ...facts.removed },
    receipt: { ...facts.receipt },
  };
}

/** Publishes the event on `busName`; a rejected entry is an `EventPublishError` (PutEvents answers 200). */
export async function publishResultErased(
  client: EventBridgeClient,
  busName: string,
  detail: ResultErasedDetail,
): Promise<void> {
  const answer = await client.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: busName,
          Source: EVENT_SOURCE,
          DetailType: DETAIL_TYPES.resultErased,
          Detail: JSON.stringify(detail),
        },
      ],
    }),
  );
  if ((answer.FailedEntryCount ?? 0) > 0) {
    const entry = answer.Entries?.find((e) => e.ErrorCode);
    throw new EventPublishError(
      `EventBridge rejected the ${DETAIL_TYPES.resultErased} event (${entry?.ErrorCode ?? 'unknown error'})`,
      entry?.ErrorCode,
    );
  }
}
