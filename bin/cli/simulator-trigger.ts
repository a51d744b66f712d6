/**
 * `idv simulator trigger OUTCOME [--product P]` (in the spirit of `stripe trigger`): creates one secure
 * link on the simulator through its API and completes it through the hosted flow's completion endpoint
 * (`simulator/hosted-flow.ts`), as a tester clicking the outcome would. The transaction then completes as
 * any other: upload webhook, poll record, result webhook. Only for the simulator: the command first checks
 * that the base URL answers the simulator's `/__sim/stats`, and posts only to a link on that same origin.
 */
import { MOCK_TEST_VALUES, type MockTestValue, SECURE_LINK_PRODUCTS } from '../../shared/api/enums';
import { closest } from '../../shared/args';
import type { SecureLinkInput } from '../../shared/client/client';
import { UsageError } from './errors';
import { str } from './flags';
import type { CliCommand, CommandContext } from './types';

const NAME = 'simulator trigger';
/** Largest answer read from the simulator's own endpoints (a few short fields). */
const MAX_ANSWER_BYTES = 64 * 1024;
const TIMEOUT_MS = 15_000;

export const simulatorTriggerCommand: CliCommand = {
  path: ['simulator', 'trigger'],
  summary: 'create and complete one transaction with OUTCOME on the simulator (like `stripe trigger`)',
  usage: 'simulator trigger OUTCOME [--product P] [--customer-reference R]',
  help: `  OUTCOME                  ${MOCK_TEST_VALUES.join(', ')}
  --product P              ${SECURE_LINK_PRODUCTS.filter((p) => p !== 'FACE_LINK').join(', ')} (default IDV_STANDARD)
  --customer-reference R   your reference, returned in the poll record and the result
Creates a secure link (POST /api/v2/secureidlink) and completes it through the link's hosted flow,
as a tester picking OUTCOME in the browser would. Prints transactionId, resultId and result.
Works against the simulator only (npm run simulator), never against the service.`,
  options: { product: { type: 'string' }, 'customer-reference': { type: 'string' } },
  positionals: true,
  async run(ctx) {
    const outcome = outcomeOf(ctx);
    const product = productOf(ctx);
    const base = baseUrlOf(ctx);
    const http = ctx.io.fetch ?? globalThis.fetch;
    await checkSimulator(http, base);
    const customerReference = str(ctx, 'customer-reference');
    const link = await ctx.client().createSecureLink({
      product,
      disableCommunication: true,
      ...(customerReference !== undefined ? { customerReference } : {}),
    } as SecureLinkInput);
    if (link.link === undefined || !sameOrigin(link.link, base)) {
      throw new Error('the simulator answered without a link on its own address; nothing was completed');
    }
    const answer = await getJson(http, `${link.link}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ action: 'outcome', outcome }),
    });
    if (!answer.ok) {
      throw new Error(`the hosted flow refused the completion (HTTP ${answer.status})`);
    }
    const body = answer.body as { resultId?: unknown; result?: unknown };
    return {
      secureId: link.secureId,
      transactionId: link.transactionId,
      product,
      outcome,
      resultId: typeof body.resultId === 'string' ? body.resultId : undefined,
      result: typeof body.result === 'string' ? body.result : undefined,
    };
  },
};

function outcomeOf(ctx: CommandContext): MockTestValue {
  const [value, ...rest] = ctx.positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`, NAME);
  if (value === undefined) {
    throw new UsageError(`missing OUTCOME: one of ${MOCK_TEST_VALUES.join(', ')}`, NAME);
  }
  const upper = value.toUpperCase();
  if ((MOCK_TEST_VALUES as readonly string[]).includes(upper)) return upper as MockTestValue;
  const guess = closest(upper, MOCK_TEST_VALUES);
  throw new UsageError(
    `OUTCOME must be one of ${MOCK_TEST_VALUES.join(', ')}${guess ? ` (did you mean ${guess}?)` : ''}`,
    NAME,
  );
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
