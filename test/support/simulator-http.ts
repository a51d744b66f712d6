/**
 * Plain HTTP helpers for tests that talk to the simulator the way any client would (fetch, JSON), not
 * through the typed client: the request bodies stay exactly what the test wrote.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { KNOWN_SCOPES, PATHS } from '../../shared/api/enums';
import { resultSchema, type VerificationResultDocument } from '../../shared/api/schemas';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import type { SimulatorOptions } from '../../simulator/types';

/** Client credentials the simulator helpers use. */
export const SIM_CLIENT = { clientId: 'it-client', clientSecret: 'it-secret-123' } as const;

/** An access token for `scopes` (default: every known scope). */
export async function tokenFor(
  sim: RunningSimulator,
  scopes: readonly string[] = KNOWN_SCOPES,
): Promise<string> {
  const basic = Buffer.from(`${SIM_CLIENT.clientId}:${SIM_CLIENT.clientSecret}`).toString('base64');
  const res = await fetch(`${sim.url}${PATHS.oauthToken}`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scopes }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** One answer: status and JSON body. */
export interface SimAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Sends `method path` with a Bearer token and an optional JSON body. */
export async function callSim(
  sim: RunningSimulator,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<SimAnswer> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Completes pending transactions, then fetches the result of `transactionId` through poll and result. */
export async function completedResult(
  sim: RunningSimulator,
  token: string,
  transactionId: string,
): Promise<VerificationResultDocument> {
  sim.control.completePending();
  const poll = await callSim(sim, token, 'GET', PATHS.poll);
  const record = (poll.body.results as { resultId: string; transactionId: string }[]).find(
    (r) => r.transactionId === transactionId,
  );
  expect(record).toBeDefined();
  const result = await callSim(sim, token, 'GET', PATHS.result(record!.resultId));
  expect(result.status).toBe(200);
  return resultSchema.parse(result.body);
}

/** A new secure link made with `body` (its communication disabled): the link and its transaction. */
export async function newSecureLink(
  sim: RunningSimulator,
  token: string,
  body: Record<string, unknown>,
): Promise<{ link: string; transactionId: string }> {
  const r = await callSim(sim, token, 'POST', PATHS.secureLink, { ...body, disableCommunication: true });
  expect(r.status).toBe(200);
  return { link: r.body.link as string, transactionId: r.body.transactionId as string };
}

/** A webhook receiver on 127.0.0.1 that records every JSON call (path and body), for the simulator's webhooks. */
export interface WebhookRecorder {
  /** Base URL: the simulator is given `${url}/upload` and `${url}/result`. */
  readonly url: string;
  readonly received: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/** Starts a {@link WebhookRecorder} on port 0. */
export async function startWebhookRecorder(): Promise<WebhookRecorder> {
  const received: WebhookRecorder['received'] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A simulator whose upload and result webhooks go to a {@link WebhookRecorder}, with a token for it. */
export interface HookedSimulator {
  readonly sim: RunningSimulator;
  readonly token: string;
  readonly hooks: WebhookRecorder;
}

/** Starts a {@link WebhookRecorder}, then a simulator with {@link SIM_CLIENT}, `options` and both webhooks on it. */
export async function startHookedSimulator(
  options: Omit<SimulatorOptions, 'clientId' | 'clientSecret' | 'uploadWebhookUrl' | 'resultWebhookUrl'>,
): Promise<HookedSimulator> {
  const hooks = await startWebhookRecorder();
  const sim = await startSimulator({
    ...SIM_CLIENT,
    ...options,
    uploadWebhookUrl: `${hooks.url}/upload`,
    resultWebhookUrl: `${hooks.url}/result`,
  });
  return { sim, token: await tokenFor(sim), hooks };
}
