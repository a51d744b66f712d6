/**
 * The synthesized fetch-result settings agree with its time budget (issue 14 item 5): function timeout,
 * queue visibility (≥ 6× the timeout), event source batch size and batching window, and no publication
 * claim outliving the visibility timeout.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  budgetProblems,
  claimExpiry,
  FETCH_BUDGET,
  worstServiceCallMs,
} from '../../shared/pipeline/fetch-budget';
import { type SynthesisedStack, synthesise } from './stack-fixture';

let synth: SynthesisedStack;

beforeAll(() => {
  synth = synthesise('production');
});

function only(type: string): Record<string, unknown> {
  const found = Object.values(synth.template.findResources(type));
  expect(found).toHaveLength(1);
  return (found[0] as { Properties: Record<string, unknown> }).Properties;
}

describe('fetch-result time budget in the stack', () => {
  it('timeout, visibility, batch size and window are the budget’s, and the budget is consistent', () => {
    // Prepare
    const fns = Object.values(synth.template.findResources('AWS::Lambda::Function')) as {
      Properties: { Timeout?: number; Description?: string };
    }[];
    const fetch = fns.find((f) => f.Properties.Description?.startsWith('Fetches a verification result'));
    const queue = Object.values(synth.template.findResources('AWS::SQS::Queue'))
      .map((q) => (q as { Properties: Record<string, unknown> }).Properties)
      .find((p) => p.RedrivePolicy !== undefined)!;
    const mapping = only('AWS::Lambda::EventSourceMapping');

    // Act
    const timeoutMs = fetch!.Properties.Timeout! * 1000;
    const visibilityMs = (queue.VisibilityTimeout as number) * 1000;

    // Assess
    expect(budgetProblems()).toEqual([]);
    expect(fetch!.Properties.Timeout).toBe(FETCH_BUDGET.functionTimeoutSeconds);
    expect(visibilityMs).toBeGreaterThanOrEqual(6 * timeoutMs);
    expect(mapping.BatchSize).toBe(FETCH_BUDGET.batchSize);
    expect(mapping.MaximumBatchingWindowInSeconds ?? 0).toBe(FETCH_BUDGET.maxBatchingWindowSeconds);
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    // One record with every retry fits; a claim taken at the start of an invocation expires before the
    // message (received at most a batching window before it) is visible again.
    expect(
      worstServiceCallMs() + FETCH_BUDGET.afterFetchReserveMs + FETCH_BUDGET.returnReserveMs,
    ).toBeLessThanOrEqual(timeoutMs);
    const receivedAt = 0;
    const invocationDeadline = receivedAt + FETCH_BUDGET.maxBatchingWindowSeconds * 1000 + timeoutMs;
    expect(claimExpiry(invocationDeadline)).toBeLessThan(receivedAt + visibilityMs);
  });
});
