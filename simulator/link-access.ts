/**
 * Who may open a secure link's hosted pages (`simulator/hosted-flow.ts`): whoever holds the link the
 * create call returned, and no one else. Every link gets a random secureId and a separate random key
 * (both from `node:crypto`, never from the seed); its address carries both, `/link/{secureId}/{key}`,
 * and every hosted route of that link (the page, its completion, the messaging-app hand-over) answers
 * 404 without the key, the same 404 as for a link that does not exist. The secureId is returned and
 * sent in the upload webhook, so it may be seen (in `ps`, a log); it alone reads and decides nothing.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { SimulatorState, Transaction } from './state';

/** The secureId and key of a new secure link. */
export interface LinkCapability {
  readonly secureId: string;
  readonly linkKey: string;
}

/** A fresh secureId (a UUID, as the service's) and key (192 random bits). */
export function newLinkCapability(): LinkCapability {
  return { secureId: randomUUID(), linkKey: randomBytes(24).toString('base64url') };
}

/** The path of a link's page: `/link/{secureId}/{key}`. */
export function linkPath(t: Pick<Transaction, 'secureId' | 'linkKey'>): string {
  return `/link/${encodeURIComponent(t.secureId ?? '')}/${encodeURIComponent(t.linkKey ?? '')}`;
}

/** The path of a link's messaging-app hand-over (§2.3 `whatsappRedirectUrl`). */
export function whatsappPath(t: Pick<Transaction, 'secureId' | 'linkKey'>): string {
  return `/whatsapp/${encodeURIComponent(t.secureId ?? '')}/${encodeURIComponent(t.linkKey ?? '')}`;
}

/** A hosted route of one link, as its path names it. */
export interface LinkRoute {
  readonly kind: 'page' | 'complete' | 'whatsapp';
  readonly transaction: Transaction;
}

const LINK_PATH = /^\/link\/([A-Za-z0-9-]{1,64})\/([A-Za-z0-9_-]{1,64})(\/complete)?$/;
const WHATSAPP_PATH = /^\/whatsapp\/([A-Za-z0-9-]{1,64})\/([A-Za-z0-9_-]{1,64})$/;

/**
 * The link a hosted path opens, when the path carries that link's secureId and key; undefined for
 * anything else (no key, a wrong key, an unknown link), which the caller answers 404 alike.
 */
export function openLink(state: SimulatorState, path: string): LinkRoute | undefined {
  const link = LINK_PATH.exec(path);
  const whatsapp = link ? undefined : WHATSAPP_PATH.exec(path);
  const match = link ?? whatsapp;
  if (!match) return undefined;
  const transactionId = state.secureLinks.get(match[1]!);
  const t = transactionId === undefined ? undefined : state.transactions.get(transactionId);
  if (t?.origin !== 'secureLink' || t.linkKey === undefined || !sameKey(match[2]!, t.linkKey)) {
    return undefined;
  }
  const kind = whatsapp ? 'whatsapp' : match[3] !== undefined ? 'complete' : 'page';
  return { kind, transaction: t };
}

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
