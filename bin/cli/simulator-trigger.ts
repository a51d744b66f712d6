/**
 * `idv simulator trigger OUTCOME [--product P] [--checks …]` (in the spirit of `stripe trigger`): creates
 * one secure link on the simulator through its API and completes it through the hosted flow's completion
 * endpoint (`simulator/hosted-flow.ts`), as a tester clicking the outcome would. The transaction then
 * completes as any other: upload webhook, poll record, result webhook. What the six outcomes never produce
 * (an UNKNOWN result, a check that HIT or was NOT_EXECUTED, NOT_APPLICABLE features, a FAILED message,
 * `digitalSigning`) is set through the simulator's controls (`/__sim/transaction-controls`,
 * `/__sim/communications`) before completion. Only for the simulator: the command first checks that the
 * base URL answers the simulator's `/__sim/stats`, and posts only to a link on that same origin. `--local`
 * finds the simulator of a running `npm start` in its data directory's stack file.
 *
 * `idv simulator trigger overturn TRANSACTION_ID [--to OUTCOME] [--shape same-result|new-result]` changes a
 * completed transaction's verdict as a manual review would (`/__sim/overturn`, `simulator/overturn.ts`).
 */

import { resolve } from 'node:path';
import { readLiveStack } from '../../local/stack-file';
import {
  DOCUMENT_SECURITY_FEATURE_VALUES,
  MOCK_TEST_VALUES,
  SECURE_LINK_PRODUCTS,
  VERIFICATION_RESULTS,
} from '../../shared/api/enums';
import { closest } from '../../shared/args';
import type { IdvClient, SecureLinkInput } from '../../shared/client/client';
import { CONTROL_SECRET_HEADER } from '../../simulator/access';
import { CHECK_NAMES, SECURITY_FEATURES } from '../../simulator/result-checks';
import { OVERTURN_SHAPES } from '../../simulator/types';
import { clientFromFlags } from './connection';
import { UsageError } from './errors';
import { list, str } from './flags';
import type { CliCommand, CommandContext } from './types';

const NAME = 'simulator trigger';
/** Largest answer read from the simulator's own endpoints (a few short fields). */
const MAX_ANSWER_BYTES = 64 * 1024;
const TIMEOUT_MS = 15_000;
/** The outcomes of the hosted flow, and UNKNOWN (a result the service did not decide), set by control. */
const OUTCOMES = [...MOCK_TEST_VALUES, 'UNKNOWN'] as const;
type TriggerOutcome = (typeof OUTCOMES)[number];

export const simulatorTriggerCommand: CliCommand = {
  path: ['simulator', 'trigger'],
  summary: 'create and complete one transaction with OUTCOME on the simulator (like `stripe trigger`)',
  usage:
    'simulator trigger OUTCOME [--product P] [--customer-reference R] [--checks NAME=VALUE,…] ' +
    '[--document-validation FEATURE=VALUE,…] [--communication SENT|FAILED] [--digital-signing] ' +
    '[--local [--data-dir DIR]]  |  simulator trigger overturn TRANSACTION_ID [--to OUTCOME] ' +
    `[--shape ${OVERTURN_SHAPES.join('|')}] [--local [--data-dir DIR]]`,
  help: `  OUTCOME                  ${OUTCOMES.join(', ')}
  --product P              ${SECURE_LINK_PRODUCTS.filter((p) => p !== 'FACE_LINK').join(', ')} (default IDV_STANDARD)
  --customer-reference R   your reference, returned in the poll record and the result
  --checks NAME=VALUE,…    identity.verifications: ${CHECK_NAMES.join(', ')} = ${VERIFICATION_RESULTS.join(', ')}
                           (HIT needs OUTCOME DISAPPROVED: the result carries that check's reason)
  --document-validation F=V,…  identity.documentValidation: ${SECURITY_FEATURES.join(', ')}
                           = ${DOCUMENT_SECURITY_FEATURE_VALUES.join(', ')}
  --communication S        SENT or FAILED: the link is sent by e-mail (to a placeholder address) and
                           communicationsResponse reports S
  --digital-signing        add the digitalSigning section (for the digital signing product)
  --local                  the simulator of the running \`npm start\` (read from its data directory)
  --data-dir DIR           with --local: the run's data directory (default .local)
Creates a secure link (POST /api/v2/secureidlink) and completes it through the link's hosted flow,
as a tester picking OUTCOME in the browser would; the other flags go through the simulator's controls
first. Prints transactionId, resultId and result.
overturn TRANSACTION_ID   change a completed transaction's verdict as a manual review would:
  --to OUTCOME             the verdict after the review, one of ${MOCK_TEST_VALUES.join(', ')} (default DISAPPROVED)
  --shape S                same-result (default): the same resultId announced again (poll record, result
                           webhook) with a later completed and a changed body; new-result: a new resultId
                           for the same transaction
  Prints transactionId, shape, resultId, previousResultId, result, previousResult, completed.
Works against the simulator only (npm run simulator, or npm start with --local), never the service.`,
  options: {
    product: { type: 'string' },
    'customer-reference': { type: 'string' },
    checks: { type: 'string', multiple: true },
    'document-validation': { type: 'string', multiple: true },
    communication: { type: 'string' },
    'digital-signing': { type: 'boolean' },
    to: { type: 'string' },
    shape: { type: 'string' },
    local: { type: 'boolean' },
    'data-dir': { type: 'string' },
  },
  positionals: true,
  async run(ctx) {
    if (ctx.positionals[0]?.toLowerCase() === 'overturn') return overturn(ctx);
    for (const flag of ['to', 'shape']) {
      if (str(ctx, flag) !== undefined) throw new UsageError(`--${flag} goes with overturn`, NAME);
    }
    const outcome = outcomeOf(ctx);
    const product = productOf(ctx);
    const controls = controlsOf(ctx, outcome);
    const communication = communicationOf(ctx);
    const { base, client, controlSecret } = targetOf(ctx);
    const http = withControlSecret(ctx.io.fetch ?? globalThis.fetch, base, controlSecret);
    await checkSimulator(http, base);
    const customerReference = str(ctx, 'customer-reference');
    const request = {
      product,
      ...(communication === undefined
        ? { disableCommunication: true }
        : { communicationModes: ['MODE_EMAIL'], emailAddress: 'trigger@example.invalid' }),
      ...(customerReference !== undefined ? { customerReference } : {}),
    } as SecureLinkInput;
    let link: Awaited<ReturnType<IdvClient['createSecureLink']>>;
    if (communication !== undefined) await control(http, base, 'communications', { status: communication });
    try {
      link = await client.createSecureLink(request);
    } finally {
      if (communication !== undefined) await control(http, base, 'communications', { status: 'SENT' });
    }
    if (Object.keys(controls).length > 0) {
      await control(http, base, 'transaction-controls', { transactionId: link.transactionId, ...controls });
    }
    // The hosted flow decides like a tester; UNKNOWN is the controls' to set, over an approved pick.
    const picked = outcome === 'UNKNOWN' ? 'APPROVED' : outcome;
    let answer: { ok: boolean; status: number; body: unknown };
    if (link.link !== undefined) {
      if (!sameOrigin(link.link, base)) {
        throw new Error('the simulator answered with a link on another address; nothing was completed');
      }
      answer = await getJson(http, `${link.link}/complete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ action: 'outcome', outcome: picked }),
      });
    } else {
      // A link that was sent (--communication) is not returned: pick and complete through the controls.
      await control(http, base, 'transaction-controls', {
        transactionId: link.transactionId,
        ...controls,
        outcome: picked,
      });
      answer = await getJson(
        http,
        new URL(`/__sim/complete?transactionId=${encodeURIComponent(link.transactionId)}`, base).href,
        { method: 'POST' },
      );
    }
    if (!answer.ok) {
      throw new Error(`the simulator refused the completion (HTTP ${answer.status})`);
    }
    const body = answer.body as { resultId?: unknown; result?: unknown };
    return {
      secureId: link.secureId,
      transactionId: link.transactionId,
      product,
      outcome,
      ...(Object.keys(controls).length > 0 ? { controls } : {}),
      ...(communication !== undefined ? { communicationsResponse: link.communicationsResponse } : {}),
      resultId: typeof body.resultId === 'string' ? body.resultId : undefined,
      ...(typeof body.result === 'string' ? { result: body.result } : {}),
    };
  },
};

/** `overturn TRANSACTION_ID [--to OUTCOME] [--shape S]`: one `/__sim/overturn` control. */
async function overturn(ctx: CommandContext): Promise<unknown> {
  const [, transactionId, ...rest] = ctx.positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`, NAME);
  if (transactionId === undefined || transactionId === '') {
    throw new UsageError('missing TRANSACTION_ID: overturn TRANSACTION_ID [--to OUTCOME]', NAME);
  }
  const to = (str(ctx, 'to') ?? 'DISAPPROVED').toUpperCase();
  if (!(MOCK_TEST_VALUES as readonly string[]).includes(to)) {
    const guess = closest(to, MOCK_TEST_VALUES);
    throw new UsageError(
      `--to must be one of ${MOCK_TEST_VALUES.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`,
      NAME,
    );
  }
  const shape = str(ctx, 'shape') ?? 'same-result';
  if (!(OVERTURN_SHAPES as readonly string[]).includes(shape)) {
    throw new UsageError(`--shape must be one of ${OVERTURN_SHAPES.join(', ')}`, NAME);
  }
  const { base, controlSecret } = targetOf(ctx);
  const http = withControlSecret(ctx.io.fetch ?? globalThis.fetch, base, controlSecret);
  await checkSimulator(http, base);
  const answer = await getJson(http, new URL('/__sim/overturn', base).href, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ transactionId, outcome: to, shape }),
  });
  if (answer.status === 404) throw new Error('the simulator has no such transaction (or its result expired)');
  if (answer.status === 409) throw new Error('the transaction has not completed yet: nothing to overturn');
  if (!answer.ok) throw new Error(`the simulator refused the overturn (HTTP ${answer.status})`);
  return answer.body;
}

function outcomeOf(ctx: CommandContext): TriggerOutcome {
  const [value, ...rest] = ctx.positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`, NAME);
  if (value === undefined) {
    throw new UsageError(`missing OUTCOME: one of ${OUTCOMES.join(', ')}`, NAME);
  }
  const upper = value.toUpperCase();
  if ((OUTCOMES as readonly string[]).includes(upper)) return upper as TriggerOutcome;
  const guess = closest(upper, OUTCOMES);
  throw new UsageError(
    `OUTCOME must be one of ${OUTCOMES.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`,
    NAME,
  );
}

/** `NAME=VALUE` pairs of a repeatable, comma-separated flag, each checked against its names and values. */
function pairsOf(
  ctx: CommandContext,
  flag: string,
  names: readonly string[],
  values: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list(ctx, flag).flatMap((v) => v.split(','))) {
    const [name = '', value = '', ...extra] = item.split('=').map((p) => p.trim());
    if (!names.includes(name)) {
      const guess = closest(name, names);
      throw new UsageError(
        `--${flag} names ${names.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}, as NAME=VALUE`,
        NAME,
      );
    }
    const upper = value.toUpperCase();
    if (extra.length > 0 || !values.includes(upper)) {
      throw new UsageError(`--${flag} ${name} must be one of ${values.join(', ')}`, NAME);
    }
    out[name] = upper;
  }
  return out;
}

/** The controls body the flags ask for (empty when none). */
function controlsOf(ctx: CommandContext, outcome: TriggerOutcome): Record<string, unknown> {
  const checks = pairsOf(ctx, 'checks', CHECK_NAMES, VERIFICATION_RESULTS);
  const features = pairsOf(ctx, 'document-validation', SECURITY_FEATURES, DOCUMENT_SECURITY_FEATURE_VALUES);
  if (Object.values(checks).includes('HIT') && outcome !== 'DISAPPROVED') {
    throw new UsageError('a check that HIT disapproves the transaction: use OUTCOME DISAPPROVED', NAME);
  }
  return {
    ...(outcome === 'UNKNOWN' ? { result: 'UNKNOWN' } : {}),
    ...(Object.keys(checks).length > 0 ? { checks } : {}),
    ...(Object.keys(features).length > 0 ? { documentValidation: features } : {}),
    ...(ctx.values['digital-signing'] === true ? { digitalSigning: true } : {}),
  };
}

function communicationOf(ctx: CommandContext): 'SENT' | 'FAILED' | undefined {
  const value = str(ctx, 'communication');
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  if (upper === 'SENT' || upper === 'FAILED') return upper;
  throw new UsageError('--communication must be SENT or FAILED', NAME);
}

/**
 * The simulator to talk to and a client for it: with `--local`, the one the running `npm start` recorded
 * in its data directory (its address and client credentials); else the connection flags' base URL.
 */
function targetOf(ctx: CommandContext): { base: URL; client: IdvClient; controlSecret?: string } {
  if (ctx.values['local'] !== true) {
    if (str(ctx, 'data-dir') !== undefined) throw new UsageError('--data-dir goes with --local', NAME);
    return { base: baseUrlOf(ctx), client: ctx.client() };
  }
  for (const flag of ['base-url', 'client-id', 'client-secret']) {
    if (str(ctx, flag) !== undefined) {
      throw new UsageError(
        `--${flag} and --local exclude each other: --local uses the run's simulator`,
        NAME,
      );
    }
  }
  const dataDir = resolve(ctx.io.cwd, str(ctx, 'data-dir') ?? '.local');
  const simulator = readLiveStack(dataDir)?.simulator;
  if (!simulator) {
    throw new UsageError(
      `no running npm start with a simulator in ${dataDir} (start one with npm start, or pass --data-dir)`,
      NAME,
    );
  }
  const client = clientFromFlags(
    {
      ...ctx.values,
      'base-url': simulator.url,
      'client-id': simulator.clientId,
      'client-secret': simulator.clientSecret,
      environment: 'staging',
    },
    ctx.io,
    NAME,
  );
  return { base: new URL(simulator.url), client, controlSecret: simulator.controlSecret };
}

/**
 * `fetch` that shows the run's control secret to the run's own simulator: `npm start`'s simulator answers
 * `/__sim/*` only with it (simulator/access.ts); nothing else ever sees it.
 */
function withControlSecret(http: typeof fetch, base: URL, secret: string | undefined): typeof fetch {
  if (secret === undefined) return http;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== base.origin || !url.pathname.startsWith('/__sim/')) return http(input, init);
    const headers = new Headers(init?.headers);
    headers.set(CONTROL_SECRET_HEADER, secret);
    return http(input, { ...init, headers });
  };
}

/** One `/__sim` control; the simulator's refusal is an error naming the control. */
async function control(http: typeof fetch, base: URL, path: string, body: unknown): Promise<void> {
  const answer = await getJson(http, new URL(`/__sim/${path}`, base).href, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`the simulator refused /__sim/${path} (HTTP ${answer.status})`);
}

function productOf(ctx: CommandContext): string {
  const value = str(ctx, 'product') ?? 'IDV_STANDARD';
  // A FaceLink needs a linked premium transaction: out of reach of a one-shot trigger.
  const allowed = SECURE_LINK_PRODUCTS.filter((p) => p !== 'FACE_LINK');
  if ((allowed as readonly string[]).includes(value)) return value;
  const guess = closest(value.toUpperCase(), allowed);
  throw new UsageError(
    `--product must be one of ${allowed.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`,
    NAME,
  );
}

/** The base URL as the client will use it (flag, then variable); the client reports it when missing. */
function baseUrlOf(ctx: CommandContext): URL {
  const flag = str(ctx, 'base-url');
  const value = flag !== undefined && flag !== '' ? flag : ctx.io.env['IDV_BASE_URL'];
  if (!value) throw new UsageError('missing --base-url (or IDV_BASE_URL)', NAME);
  if (!URL.canParse(value)) throw new UsageError('--base-url (or IDV_BASE_URL) is not a URL', NAME);
  return new URL(value);
}

function sameOrigin(link: string, base: URL): boolean {
  return URL.canParse(link) && new URL(link).origin === base.origin;
}

/** Refuses anything but the simulator: its `/__sim/stats` control answers JSON with `transactions`. */
async function checkSimulator(http: typeof fetch, base: URL): Promise<void> {
  const answer = await getJson(http, new URL('/__sim/stats', base).href, { method: 'GET' }).catch(
    () => undefined,
  );
  const stats = answer?.ok ? (answer.body as { transactions?: unknown }) : undefined;
  if (typeof stats?.transactions !== 'number') {
    throw new Error(
      `${base.origin} is not the simulator (no /__sim/stats): idv simulator trigger works only against npm run simulator`,
    );
  }
}

/** One request with a deadline; the answer's JSON body, read up to a ceiling. */
async function getJson(
  http: typeof fetch,
  url: string,
  init: RequestInit,
): Promise<{ ok: boolean; status: number; body: unknown }> {
  const res = await http(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await boundedText(res);
  let body: unknown;
  try {
    body = text === undefined ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { ok: res.ok && typeof body === 'object' && body !== null, status: res.status, body };
}

/** The body as text, or undefined once it passes `MAX_ANSWER_BYTES` (the rest is not read). */
async function boundedText(res: Response): Promise<string | undefined> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await res.body.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
