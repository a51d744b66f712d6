/**
 * Test and operator controls: in process as `sim.control`, out of process over HTTP under `/__sim`
 * (never faulted, recorded or authenticated: they exist for tests and the local run).
 */

import {
  COMMUNICATION_STATUSES,
  type CommunicationStatus,
  MOCK_TEST_VALUES,
  type MockTestValue,
} from '../shared/api/enums';
import { type FaultOptions, type ResultFault, rateLimitProblem, resultFaultProblem } from './faults';
import { badRequest, CODE, HttpError, notFound } from './http';
import { overturnProblem, overturnTransaction } from './overturn';
import { controlsProblem, type ResultControls } from './result-checks';
import { seedProblem, seedResults } from './seed';
import type { SimulatorState } from './state';
import type { OverturnRequest, SeedGroup, SimulatorControl } from './types';

/** The in-process controls of `state`. */
export function createControl(state: SimulatorState): SimulatorControl {
  return {
    expireTokens: () => state.expireTokens(),
    advanceTime: (ms) => state.advance(ms),
    completePending: () => state.completePending(),
    setFaults: (f) => state.faults.set(f),
    setResultFault: (f) => state.setResultFault(f),
    faceLinkToken: (transactionId) => {
      const t = state.transactions.get(transactionId);
      return t?.faceLinkToken && state.faceLinkTokens.has(t.faceLinkToken) ? t.faceLinkToken : undefined;
    },
    resultIdsOf: (transactionId) => [...(state.transactions.get(transactionId)?.resultIds ?? [])],
    stats: () => state.stats(),
    webhooksIdle: () => state.webhooks.idle(),
    now: () => state.now(),
    seed: (groups) => seedResults(state, groups),
    setTransactionControls: (transactionId, controls) => {
      openTransaction(state, transactionId).controls = { ...controls };
    },
    setCommunicationStatus: (status) => {
      state.communicationStatus = status;
    },
    completeTransaction: (transactionId) => state.complete(openTransaction(state, transactionId)).resultId,
    overturn: (request) => overturnTransaction(state, request),
  };
}

/** A transaction that has not completed yet; 404 when unknown, 409 when already complete. */
function openTransaction(state: SimulatorState, transactionId: string) {
  const t = state.transactions.get(transactionId);
  if (!t) throw notFound();
  if (t.state === 'completed') {
    throw new HttpError({
      status: 409,
      code: CODE.failedPrecondition,
      message: 'transaction already completed',
    });
  }
  return t;
}

/** Answers one `/__sim/*` request; throws `HttpError` (404 for an unknown control). */
export function controlRoute(
  state: SimulatorState,
  control: SimulatorControl,
  method: string,
  url: URL,
  body: unknown,
): unknown {
  const tx = url.searchParams.get('transactionId') ?? '';
  switch (`${method} ${url.pathname}`) {
    case 'POST /__sim/complete':
      if (tx !== '') {
        const resultId = control.completeTransaction(tx);
        return { completed: 1, resultId, result: state.results.get(resultId)?.doc.result };
      }
      return { completed: control.completePending() };
    case 'POST /__sim/transaction-controls': {
      const problem = controlsProblem(body);
      if (problem) throw badRequest('(body)', problem);
      const { transactionId, outcome, ...controls } = body as ResultControls & {
        transactionId?: unknown;
        outcome?: unknown;
      };
      if (typeof transactionId !== 'string') throw badRequest('transactionId', 'is required');
      if (outcome !== undefined && !(MOCK_TEST_VALUES as readonly unknown[]).includes(outcome)) {
        throw badRequest('outcome', `must be one of ${MOCK_TEST_VALUES.join(', ')}`);
      }
      control.setTransactionControls(transactionId, controls);
      // The outcome a tester would pick in the hosted flow, for a link that was sent, not returned.
      if (outcome !== undefined) state.transactions.get(transactionId)!.outcome = outcome as MockTestValue;
      return { transactionId, controls };
    }
    case 'POST /__sim/communications': {
      const status = (body as { status?: unknown } | undefined)?.status;
      if (!(COMMUNICATION_STATUSES as readonly unknown[]).includes(status)) {
        throw badRequest('status', `must be one of ${COMMUNICATION_STATUSES.join(', ')}`);
      }
      control.setCommunicationStatus(status as CommunicationStatus);
      return { status };
    }
    case 'POST /__sim/advance': {
      const ms = Number(url.searchParams.get('ms') ?? (body as { ms?: unknown } | undefined)?.ms);
      if (!Number.isFinite(ms) || ms < 0) throw badRequest('ms', 'must be a non-negative number');
      control.advanceTime(ms);
      return { now: new Date(state.now()).toISOString(), offsetMs: state.offsetMs };
    }
    case 'POST /__sim/faults': {
      const problem = rateLimitProblem((body ?? {}) as FaultOptions);
      if (problem) throw badRequest('(body)', problem);
      control.setFaults((body ?? {}) as FaultOptions);
      return { faults: state.faults.current };
    }
    case 'GET /__sim/faults':
      return { faults: state.faults.current };
    case 'POST /__sim/result-faults': {
      const problem = resultFaultProblem(body);
      if (problem) throw badRequest('(body)', problem);
      control.setResultFault(body as ResultFault);
      return { resultFaults: state.resultFaults };
    }
    case 'GET /__sim/result-faults':
      return { resultFaults: state.resultFaults };
    case 'POST /__sim/seed': {
      const problem = seedProblem(body);
      if (problem) throw badRequest('groups', problem);
      const resultIds = control.seed((body as { groups: SeedGroup[] }).groups);
      return { seeded: resultIds.length };
    }
    case 'POST /__sim/overturn': {
      const problem = overturnProblem(body, MOCK_TEST_VALUES);
      if (problem) throw badRequest('(body)', problem);
      return control.overturn(body as OverturnRequest);
    }
    case 'GET /__sim/stats':
      return control.stats();
    case 'POST /__sim/expire-tokens':
      control.expireTokens();
      return { expired: state.tokens.size };
    case 'GET /__sim/facelink-token': {
      const token = control.faceLinkToken(tx);
      if (!token) throw notFound();
      return { token };
    }
    case 'GET /__sim/result-ids':
      return { resultIds: control.resultIdsOf(tx) };
    case 'POST /__sim/webhooks-idle':
      return state.webhooks.idle().then(() => ({ webhooks: control.stats().webhooks }));
    default:
      throw notFound();
  }
}
