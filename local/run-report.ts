import { resolve } from 'node:path';
import { DETAIL_TYPES } from '../shared/events/names';
import type { DlqEntry } from '../shared/queries/dlq';
import { escapeControls } from '../shared/terminal-text';
import type { LocalEvent } from './fake-eventbridge';

/** Counters of one local run; printed as the last stdout line, one JSON object. */
export interface RunSummary {
  created: number;
  polled: number;
  stored: number;
  events: number;
  unavailable: number;
  uploads: number;
  dlq: number;
  /** Queue batches handed to the fetch handler, and records left for redelivery. */
  batches: number;
  redeliveries: number;
  webhooks: number;
  durationMs: number;
  /** Why the run ended: `done`, `once`, `signal`, `timeout` or `error`. */
  exit: string;
  /** Events matched per `--rule` (only when rules were given). */
  rules?: Record<string, number>;
}

/** A summary with every counter at zero. */
export function emptySummary(): RunSummary {
  return {
    created: 0,
    polled: 0,
    stored: 0,
    events: 0,
    unavailable: 0,
    uploads: 0,
    dlq: 0,
    batches: 0,
    redeliveries: 0,
    webhooks: 0,
    durationMs: 0,
    exit: 'running',
  };
}

/** Counts one event into the summary. `stored`/`unavailable` count distinct resultIds (events are at-least-once). */
export class EventTally {
  readonly #stored = new Set<string>();
  readonly #unavailable = new Set<string>();
  readonly #storedTransactions = new Set<string>();
  #events = 0;
  #uploads = 0;

  add(event: LocalEvent): void {
    this.#events++;
    const resultId = stringField(event.detail, 'resultId');
    const transactionId = stringField(event.detail, 'transactionId');
    if (event['detail-type'] === DETAIL_TYPES.resultStored && resultId) {
      this.#stored.add(resultId);
      if (transactionId) this.#storedTransactions.add(transactionId);
    } else if (event['detail-type'] === DETAIL_TYPES.resultUnavailable && resultId) {
      this.#unavailable.add(resultId);
    } else if (event['detail-type'] === DETAIL_TYPES.documentsUploaded) {
      this.#uploads++;
    }
  }

  /** True once a stored result was announced for this transaction. */
  hasStoredTransaction(transactionId: string): boolean {
    return this.#storedTransactions.has(transactionId);
  }

  get counts(): Pick<RunSummary, 'stored' | 'unavailable' | 'uploads' | 'events'> {
    return {
      stored: this.#stored.size,
      unavailable: this.#unavailable.size,
      uploads: this.#uploads,
      events: this.#events,
    };
  }
}

const MARKS: Record<string, string> = {
  [DETAIL_TYPES.resultStored]: '✔ stored     ',
  [DETAIL_TYPES.resultUnavailable]: '✖ unavailable',
  [DETAIL_TYPES.documentsUploaded]: '⇪ uploaded   ',
  [DETAIL_TYPES.resultChanged]: '↺ changed    ',
};

/**
 * One readable console line per event, built only from identifiers, product and results (the detail
 * holds no personal data by contract, and this line picks a fixed set of fields anyway).
 */
export function formatEventLine(event: LocalEvent): string {
  const detail = event.detail;
  const mark = MARKS[event['detail-type']] ?? `• ${event['detail-type']}`;
  const transactionId = stringField(detail, 'transactionId');
  if (event['detail-type'] === DETAIL_TYPES.documentsUploaded) {
    const replay = replayOf(event);
    return [
      mark,
      transactionId ? `tx=${transactionId}` : '-',
      ...(replay !== undefined ? ['↻ replayed'] : []),
    ].join('  ');
  }
  // Fixed columns, `-` for a missing one (a VOG has no product, an unavailable result no result), so the
  // fields of successive lines stay in the same place.
  const outcome =
    event['detail-type'] === DETAIL_TYPES.resultUnavailable
      ? stringField(detail, 'reason')
      : stringField(detail, 'result');
  const parts = [
    mark,
    stringField(detail, 'resultId') ?? '-',
    stringField(detail, 'product') ?? '-',
    outcome ?? '-',
  ];
  if (transactionId) parts.push(`tx=${transactionId}`);
  const replay = replayOf(event);
  if (replay !== undefined) parts.push(`↻ replayed${replay ? ` (${replay})` : ''}`);
  return parts.join('  ');
}

/**
 * The replay an event belongs to (docs/events.md, "Replayed events"): `detail.replay` of `idv events
 * replay`, or EventBridge's `replay-name`; `''` for a replay without a usable name, undefined for a first
 * announcement. Only a short printable name is shown.
 */
function replayOf(event: LocalEvent): string | undefined {
  const name = stringField(event.detail, 'replay') ?? (event as { 'replay-name'?: unknown })['replay-name'];
  if (name === undefined) return undefined;
  return typeof name === 'string' && /^[\w.:-]{1,64}$/.test(name) ? name : '';
}

/**
 * The line of a message that reached the DLQ: its result (or message id), how often it was delivered and
 * the reason code of its last failed attempt, and the command to look at it. Ids and codes only.
 */
export function formatDlqLine(
  entry: DlqEntry,
  reason: string | undefined,
  earlier: boolean,
  dirFlag: string,
): string {
  const id = entry.resultId ?? `message ${entry.messageId}`;
  const what =
    entry.kind === 'malformed'
      ? `malformed (${entry.problem ?? 'not a queue message'})`
      : `reason=${reason ?? 'unknown'}`;
  const mark = earlier ? '✖ in DLQ     ' : '✖ to DLQ     ';
  const after = earlier ? 'from an earlier run' : `after ${entry.receiveCount} failed deliveries`;
  const show = entry.resultId
    ? `npx --no-install idv dlq show ${entry.resultId} --local${dirFlag}`
    : `npx --no-install idv dlq list --local${dirFlag}`;
  return `${mark}${id}  ${after}  ${what}  → ${show}`;
}

/**
 * ` --data-dir DIR` for the `idv … --local` hints when the run's data directory is not the default
 * `.local` of `cwd` (the repository root, where `npm run idv` runs too); else empty.
 */
export function dataDirFlag(dataDir: string, cwd: string): string {
  if (resolve(cwd, dataDir) === resolve(cwd, '.local')) return '';
  return ` --data-dir ${shellQuote(resolve(cwd, dataDir))}`;
}

/** `value` as one shell word: unchanged when it is plain, else in single quotes. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `io` with control characters in every line it prints shown as escapes (`\x1b`). */
export function escapedLines<T extends { out(line: string): void; err(line: string): void }>(io: T): T {
  return {
    ...io,
    out: (line: string) => io.out(escapeControls(line)),
    err: (line: string) => io.err(escapeControls(line)),
  };
}

/** A field of the detail as printable text: the service's control characters shown as escapes. */
function stringField(detail: Record<string, unknown>, field: string): string | undefined {
  const value = detail[field];
  return typeof value === 'string' && value.length > 0 ? escapeControls(value) : undefined;
}
