/**
 * The story of one result (`idv results trace`, the local console): every announcement, fetch attempt,
 * storage step and published event, in time order, from three sources — the result item, its publication
 * record, and the log lines (or, locally, the run's journal) that carry its correlation id. Only
 * identifiers, sources, outcomes, reason codes and times: never a result's content or a log line's free
 * text beyond the pipeline's own fixed messages.
 */
import type { ResultItem } from '../store/item';
import type { PublicationRecord } from '../store/publication';
import { type ResultVersion, versionOf } from '../store/versions';

/** What a step is about. */
export type TraceStepKind =
  | 'announced'
  | 'fetch'
  | 'stored'
  | 'unavailable'
  | 'published'
  | 'claimed'
  | 'dlq'
  | 'redriven'
  | 'replayed'
  | 'log';

/** One step of a result's story. */
export interface TraceStep {
  /** ISO 8601 UTC. */
  at: string;
  kind: TraceStepKind;
  /** Where the step was read: the item, the publication record, the local journal or the logs. */
  from: 'item' | 'publication' | 'journal' | 'logs';
  /** webhook, poll or redrive (announcements). */
  source?: string;
  /** ok / failed (fetch attempts), STORED / UNAVAILABLE (storage), a detail-type (events). */
  outcome?: string;
  /** A reason code: the pipeline's reason of a failed attempt (`BODY_TRUNCATED`, `ServiceError 500`). */
  reason?: string;
  /** Which delivery of the queue message this was (SQS receive count). */
  attempt?: number;
  /** The pipeline's own fixed log message, or a short note of ours. */
  note?: string;
}

/** The trace of one result. */
export interface ResultTrace {
  resultId: string;
  status?: string;
  product?: string;
  result?: string;
  sections?: Record<string, string>;
  /** Reason codes of the stored result (the service's, not the pipeline's). */
  messages?: string[];
  /** Version of the verdict the result holds, when the service changed it (docs/pipeline.md). */
  version?: number;
  /** The history of the verdict's versions, oldest first, when it changed. */
  versions?: ResultVersion[];
  steps: TraceStep[];
  /** Sources that could not be read (e.g. logs without the Logs Insights client); the trace is partial. */
  missing?: string[];
}

/** The parts a trace is built from. */
export interface TraceParts {
  resultId: string;
  item?: ResultItem | undefined;
  publication?: PublicationRecord | undefined;
  /** Steps read from the local journal or the logs. */
  steps?: readonly TraceStep[];
  missing?: readonly string[];
}

/** Orders the steps by time (stable: same-time steps keep their source order) and adds the item's. */
export function buildTrace(parts: TraceParts): ResultTrace {
  const { item, publication } = parts;
  const steps: TraceStep[] = [...(parts.steps ?? [])];
  const logged = (kind: TraceStepKind) => steps.some((step) => step.kind === kind);
  if (item) {
    if (item.source && !logged('announced')) {
      // The item keeps the first source only, not its time (the poll logs counts, not ids): the
      // announcement is put before the first step known, where it certainly was.
      const earliest = [item.storedAt, ...steps.map((step) => step.at)].sort()[0]!;
      steps.unshift({
        at: earliest,
        kind: 'announced',
        from: 'item',
        source: item.source,
        note: 'first source (its time is not recorded: at or before this)',
      });
    }
    // The earlier versions of the verdict stored under this resultId (a changed verdict).
    for (const earlier of (item.versions ?? []).slice(0, -1)) {
      if (earlier.resultId !== item.resultId) continue;
      steps.push({
        at: earlier.storedAt,
        kind: 'stored',
        from: 'item',
        outcome: 'STORED',
        note: `version ${earlier.version}: ${earlier.result ?? 'no result'}`,
      });
    }
    const version = versionOf(item) > 1 ? `version ${versionOf(item)}: ` : '';
    steps.push({
      at: item.storedAt,
      kind: item.status === 'STORED' ? 'stored' : 'unavailable',
      from: 'item',
      outcome: item.status,
      note:
        item.status === 'STORED'
          ? `${version}${item.objectCount ?? item.objects?.length ?? 0} object(s), result.json${item.documentInItem === false ? ' only' : ' and item'}`
          : 'the service has no result for this resultId (404)',
    });
  }
  if (publication?.publishedAt) {
    if (!logged('published')) {
      steps.push({
        at: publication.publishedAt,
        kind: 'published',
        from: 'publication',
        outcome:
          publication.status !== 'STORED'
            ? 'VerificationResultUnavailable'
            : (publication.version ?? 1) > 1
              ? 'VerificationResultChanged'
              : 'VerificationResultStored',
      });
    }
  } else if (item?.eventPublishedAt && !logged('published')) {
    steps.push({ at: item.eventPublishedAt, kind: 'published', from: 'item', outcome: item.status });
  } else if (publication?.claimExpiresAt !== undefined) {
    steps.push({
      at: new Date(publication.claimExpiresAt).toISOString(),
      kind: 'claimed',
      from: 'publication',
      note: 'a delivery holds the publication claim until this time; not yet published',
    });
  }
  const ordered = steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => Date.parse(a.step.at) - Date.parse(b.step.at) || a.index - b.index)
    .map(({ step }) => step);
  return {
    resultId: parts.resultId,
    ...(item?.status && { status: item.status }),
    ...(item?.product && { product: item.product }),
    ...(item?.result && { result: item.result }),
    ...(item?.sections && { sections: item.sections }),
    ...(item?.messages && { messages: item.messages }),
    ...(item?.version !== undefined && { version: item.version }),
    ...(item?.versions && { versions: item.versions }),
    steps: ordered,
    ...(parts.missing && parts.missing.length > 0 && { missing: [...parts.missing] }),
  };
}

/**
 * The reason code of a failed attempt from its log fields: the pipeline's reason (a `ResultContentError`),
 * else the error's name with its HTTP status. Never the error's message: it may quote the service.
 */
export function reasonCodeOf(fields: { reason?: unknown; error?: unknown }): string | undefined {
  if (typeof fields.reason === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(fields.reason)) return fields.reason;
  const error = fields.error as { name?: unknown; status?: unknown } | undefined;
  if (!error || typeof error !== 'object' || typeof error.name !== 'string') return undefined;
  const name = /^[A-Za-z0-9_.-]{1,64}$/.test(error.name) ? error.name : 'Error';
  return typeof error.status === 'number' ? `${name} ${error.status}` : name;
}

/** Log messages of the pipeline (shared/pipeline/fetch-result.ts) and the step each one is. */
const LOG_STEPS: { test: RegExp; kind: TraceStepKind; outcome?: string }[] = [
  { test: /^webhook accepted/, kind: 'announced' },
  { test: /^result stored/, kind: 'fetch', outcome: 'ok' },
  { test: /^service has no result/, kind: 'fetch', outcome: 'not found' },
  { test: /^result already stored and announced/, kind: 'fetch', outcome: 'duplicate' },
  { test: /^another delivery is announcing/, kind: 'fetch', outcome: 'claimed elsewhere' },
  { test: /^message failed/, kind: 'fetch', outcome: 'failed' },
  { test: /^malformed queue message/, kind: 'fetch', outcome: 'failed' },
];

/** Longest log message kept in a step (the pipeline's own messages are shorter). */
const MAX_NOTE = 240;

/**
 * The step of one pipeline log line (Powertools JSON, as CloudWatch or the local run sees it), or undefined
 * for a line that says nothing about a result's story.
 */
export function stepOfLogLine(
  fields: Record<string, unknown>,
  from: TraceStep['from'],
): TraceStep | undefined {
  const message = typeof fields.message === 'string' ? fields.message : '';
  const match = LOG_STEPS.find((candidate) => candidate.test.test(message));
  const at = typeof fields.timestamp === 'string' ? new Date(fields.timestamp) : new Date(Number.NaN);
  if (!match || Number.isNaN(at.getTime())) return undefined;
  const reason = match.outcome === 'failed' ? reasonCodeOf(fields) : undefined;
  const source =
    typeof fields.source === 'string' ? fields.source : match.kind === 'announced' ? 'webhook' : undefined;
  return {
    at: at.toISOString(),
    kind: match.kind,
    from,
    ...(source && { source }),
    ...(match.outcome && { outcome: match.outcome }),
    ...(reason && { reason }),
    note: message.slice(0, MAX_NOTE),
  };
}
