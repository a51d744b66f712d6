import { setTimeout as delay } from 'node:timers/promises';
import { IdvClient } from '../shared/client';
import { createDemoTransaction, DEMO_FAILURE_LABEL, demoPlan } from './demo';

/** The simulator's controls the deliberate demo failure needs; an external service has neither. */
export interface DemoFaultControl {
  setResultFault?(fault: { customerReference: string; kind: 'dataNotBase64'; fetches: number }): void;
  resultIdsOf?(transactionId: string): string[];
}

/** What {@link startDemo} needs of the run. */
export interface DemoOptions {
  /** Demo transactions to create; 0 creates none. */
  count: number;
  /** Pause between demo transactions. */
  spacingMs: number;
  /** One transaction fails on purpose (only when `control` can arrange it). */
  failure: boolean;
  /** Receives before the DLQ: the deliberate failure's fetches are broken until a message has used them up. */
  maxReceiveCount: number;
  environment: 'staging' | 'production';
  serviceUrl: string;
  credentials: { clientId: string; clientSecret: string };
  /** The simulator's controls, when the run started one. */
  control?: DemoFaultControl;
  /** Where the `+ created` lines go. */
  out(line: string): void;
  /** Called once per transaction created, the deliberate failure included. */
  onCreated(): void;
  /** Called when the deliberate failure exists, with the test for its results. */
  onFailureCreated(isDemoFailure: (resultId: string) => boolean): void;
}

/** The demo transactions being created in the background. */
export interface Demo {
  /** What `--exit-when-done` waits for: every demo transaction but the deliberate failure. */
  created: string[];
  creating: Promise<void>;
  /** The deliberate failure reached the DLQ: the simulator serves its result as it is from now on. */
  failureSeen(): void;
}

/**
 * At most this many broken fetches per receive the queue allows: enough for every message that may carry
 * the result (the webhook's, one per poll interval the retries outlast) until the run clears the fault,
 * and a bound if it never does (a run killed first).
 */
const BROKEN_FETCHES_PER_RECEIVE = 10;

/** The demo transactions, created in the background one after another. */
export function startDemo(options: DemoOptions): Demo {
  const created: string[] = [];
  if (options.count <= 0) return { created, creating: Promise.resolve(), failureSeen: () => undefined };
  const client = new IdvClient({
    baseUrl: options.serviceUrl,
    environment: options.environment,
    credentials: options.credentials,
    scopes: ['productapi.secureidlink.write', 'productapi.idverify.write'],
  });
  const runId = Date.now().toString(36);
  const { control } = options;
  const withFailure =
    options.failure && control?.setResultFault !== undefined && control.resultIdsOf !== undefined;
  let failingReference: string | undefined;
  const creating = (async () => {
    for (const plan of demoPlan(options.count, runId, withFailure)) {
      if (plan.failsFirst) {
        // Set before the transaction exists: a `mock-test` result is announced as soon as it is created.
        failingReference = plan.customerReference;
        control!.setResultFault!({
          customerReference: plan.customerReference,
          kind: 'dataNotBase64',
          fetches: options.maxReceiveCount * BROKEN_FETCHES_PER_RECEIVE,
        });
      }
      const transactionId = await createDemoTransaction(client, plan);
      if (plan.failsFirst) {
        options.onFailureCreated((resultId) => control!.resultIdsOf!(transactionId).includes(resultId));
      } else {
        created.push(transactionId);
      }
      options.onCreated();
      options.out(
        `+ created    ${plan.kind === 'secureLink' ? 'secure link ' : 'id upload   '} ${plan.product}  ${plan.mockTest ?? 'completes later'}  tx=${transactionId}${plan.failsFirst ? `  ${DEMO_FAILURE_LABEL}` : ''}`,
      );
      if (options.spacingMs > 0) await delay(options.spacingMs, undefined, { ref: false });
    }
  })();
  const failureSeen = () => {
    if (failingReference === undefined) return;
    control?.setResultFault?.({ customerReference: failingReference, kind: 'dataNotBase64', fetches: 0 });
  };
  return { created, creating, failureSeen };
}
