/**
 * A verdict changed after completion, as a manual review at the service would change it (simulator
 * README, "Overturned verdicts"): a completed transaction gets a new result document with another outcome,
 * announced in one of the two shapes a service may use:
 *
 * - `new-result`: a new resultId for the same transactionId, with its own polling record and result
 *   webhook (the first result stays as it was);
 * - `same-result`: the latest resultId announced again — its polling record back (also when the first
 *   was fetched) with a later `completed`, the result webhook sent again — and a changed body behind it.
 *
 * Both move the transaction's latest `completed` forward by at least a second, so a client that compares
 * completion times always sees the change as later.
 */

import { CODE, HttpError, notFound } from './http';
import { pollRecordOf, type SimulatorState, type StoredResult, type Transaction } from './state';
import { OVERTURN_SHAPES, type OverturnOutcome, type OverturnRequest } from './types';

/** Gap between the verdict overturned and the new one, at least (a review takes a while). */
const MIN_GAP_MS = 1000;

/**
 * Changes the verdict of completed transaction `request.transactionId` and announces it. Throws
 * `HttpError` 404 for an unknown transaction or one whose result the retention removed, 409 for one that
 * has not completed.
 */
export function overturnTransaction(state: SimulatorState, request: OverturnRequest): OverturnOutcome {
  const t = state.transactions.get(request.transactionId);
  if (!t) throw notFound();
  if (t.state !== 'completed') {
    throw new HttpError({
      status: 409,
      code: CODE.failedPrecondition,
      message: 'transaction not completed yet',
    });
  }
  const latest = latestResult(state, t);
  if (!latest) throw notFound();
  const shape = request.shape ?? 'same-result';
  const outcome = request.outcome ?? 'DISAPPROVED';
  const completedAt = Math.max(state.now(), latest.completedAt + MIN_GAP_MS);
  const doc = state.buildDocument(t, outcome, completedAt);
  const completed = new Date(completedAt).toISOString();
  const previousResult = latest.doc.result;
  let target: StoredResult;
  if (shape === 'new-result') {
    target = state.addResult(t, doc, completedAt);
  } else {
    target = latest;
    target.doc = doc;
    target.completedAt = completedAt;
    target.expiresAt = completedAt + state.retentionMs;
    target.pollRecord = pollRecordOf(t, latest.resultId, completed);
  }
  state.announceResult(t, target.resultId, completed);
  return {
    transactionId: t.transactionId,
    shape,
    resultId: target.resultId,
    previousResultId: latest.resultId,
    result: doc.result,
    previousResult,
    completed,
  };
}

/** The transaction's latest result still held (the retention may have removed it). */
function latestResult(state: SimulatorState, t: Transaction): StoredResult | undefined {
  for (let i = t.resultIds.length - 1; i >= 0; i--) {
    const stored = state.results.get(t.resultIds[i]!);
    if (stored) return stored;
  }
  return undefined;
}

/** The body of `POST /__sim/overturn`, checked; a string naming the problem, or undefined. */
export function overturnProblem(body: unknown, outcomes: readonly string[]): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'must be a JSON object';
  const { transactionId, outcome, shape, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) return `has an unknown field ${JSON.stringify(unknown.slice(0, 64))}`;
  if (typeof transactionId !== 'string' || transactionId.length === 0) return 'transactionId is required';
  if (outcome !== undefined && !outcomes.includes(outcome as string)) {
    return `outcome must be one of ${outcomes.join(', ')}`;
  }
  if (shape !== undefined && !(OVERTURN_SHAPES as readonly unknown[]).includes(shape)) {
    return `shape must be one of ${OVERTURN_SHAPES.join(', ')}`;
  }
  return undefined;
}
