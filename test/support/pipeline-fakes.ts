/**
 * In-memory fakes of the fetch-result dependencies, with a failure switch per step so a test can make
 * any step throw once (crash injection).
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import { type PollResponse, parsePollResponse } from '../../shared/api/responses';
import { NotFoundError } from '../../shared/client/errors';
import { DETAIL_TYPES } from '../../shared/events/names';
import type {
  DocumentsUploadedDetail,
  EventPublisher,
  ResultChangedDetail,
  ResultStoredDetail,
  ResultUnavailableDetail,
} from '../../shared/events/publisher';
import { createLogger, type Logger } from '../../shared/logger';
import type { ResultSource, ResultStorePort } from '../../shared/pipeline/fetch-result';
import type { ResultItem, ResultStatus } from '../../shared/store/item';
import { resultBlobNames, resultJsonKey } from '../../shared/store/keys';
import type {
  ClaimResult,
  PublicationRecord,
  PublicationWrites,
  PublishClaim,
} from '../../shared/store/publication';
import type { ItemPut, StoredResult } from '../../shared/store/result-store';
import { versionOf } from '../../shared/store/versions';
import type { BlobTarget, ObjectRef } from '../../shared/stream/blob-sink';
import { ingestResult } from '../../shared/stream/result-ingest';

export type Step = 'fetch' | 'writeObjects' | 'putItem' | 'publish' | 'mark';

/** Throws once at the armed step. */
export class Crash {
  armed: Step | undefined;
  at(step: Step): void {
    if (this.armed === step) {
      this.armed = undefined;
      throw new Error(`injected crash at ${step}`);
    }
  }
}

/** A whole body as the stream of one chunk a `ResultSource` gives. */
export async function* chunksOf(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** A `ResultSource` over a function answering with whole bodies (or throwing, e.g. `NotFoundError`). */
export function sourceOf(body: (resultId: string) => Promise<Uint8Array>): ResultSource {
  return { getResultStream: async (resultId) => chunksOf(await body(resultId)) };
}

export class FakeSource implements ResultSource {
  calls = 0;
  constructor(
    readonly results: Map<string, unknown>,
    readonly crash = new Crash(),
  ) {}
  async getResultStream(resultId: string): Promise<AsyncIterable<Uint8Array>> {
    return chunksOf(await this.getResultBody(resultId));
  }
  /** The body of `resultId` whole, counted in `calls`. */
  async getResultBody(resultId: string): Promise<Uint8Array> {
    this.calls++;
    this.crash.at('fetch');
    const result = this.results.get(resultId);
    if (result === undefined) throw new NotFoundError('service answered 404', { status: 404 });
    return Buffer.from(JSON.stringify(result));
  }
}

export class FakeStore implements ResultStorePort {
  readonly bucket = 'data-bucket';
  readonly table = 'results-table';
  readonly items = new Map<string, ResultItem>();
  readonly objects = new Map<string, ObjectRef>();
  objectWrites = 0;
  constructor(readonly crash = new Crash()) {}
  async getItem(resultId: string) {
    const item = this.items.get(resultId);
    return item && structuredClone(item);
  }
  /** ResultIds erased on request (their erasure records). */
  readonly erased = new Set<string>();
  /** As `ResultStore.readState`: the item and, unless `erasure` is false, whether it was erased. */
  async readState(resultId: string, options: { erasure?: boolean } = {}) {
    return {
      item: await this.getItem(resultId),
      erased: options.erasure !== false && this.erased.has(resultId),
    };
  }
  /**
   * Reads the body with the real streaming ingest (same parsing, decoding and refusals as `ResultStore`),
   * keeping the objects in memory instead of S3.
   */
  async storeResult(resultId: string, body: AsyncIterable<Uint8Array>, version = 1): Promise<StoredResult> {
    const ingested = await ingestResult(body, this.#blobs, resultBlobNames(resultId, version));
    this.crash.at('writeObjects');
    const stored = {
      resultKey: resultJsonKey(resultId, version),
      objects: ingested.objects,
      documentBytes: JSON.stringify(ingested.document).length,
    };
    return { document: ingested.document, stored };
  }
  /** Objects kept in `objects`, counted in `objectWrites`. */
  readonly #blobs: BlobTarget = {
    putSmall: async (key, body, type, sha256) => {
      this.objects.set(key, { key, contentType: type.contentType, bytes: body.length, sha256 });
      this.objectWrites++;
    },
    startLarge: () => {
      throw new Error('FakeStore keeps small objects only');
    },
    promote: async () => {
      throw new Error('FakeStore keeps small objects only');
    },
    discard: async () => {},
  };
  async putStoredItem(item: ResultItem): Promise<ItemPut> {
    this.crash.at('putItem');
    const existing = this.items.get(item.resultId);
    if (existing && existing.status !== 'UNAVAILABLE')
      return { written: false, current: structuredClone(existing) };
    this.items.set(item.resultId, structuredClone(item));
    return { written: true };
  }
  /** As `ResultStore.putVersionItem`: only over the STORED version before it. */
  async putVersionItem(item: ResultItem): Promise<ItemPut> {
    this.crash.at('putItem');
    const existing = this.items.get(item.resultId);
    if (existing?.status !== 'STORED' || versionOf(existing) !== versionOf(item) - 1)
      return { written: false, current: existing && structuredClone(existing) };
    this.items.set(item.resultId, structuredClone(item));
    return { written: true };
  }
  /** As `ResultStore.latestOfTransaction`: the latest STORED item of the transaction but `resultId`. */
  async latestOfTransaction(transactionId: string, resultId: string): Promise<ResultItem | undefined> {
    const stored = [...this.items.values()]
      .filter((i) => i.transactionId === transactionId && i.resultId !== resultId && i.status === 'STORED')
      .sort((a, b) => a.completed.localeCompare(b.completed) || versionOf(a) - versionOf(b));
    const latest = stored.at(-1);
    return latest && structuredClone(latest);
  }
  async putUnavailableItem(item: ResultItem): Promise<ItemPut> {
    this.crash.at('putItem');
    const existing = this.items.get(item.resultId);
    if (existing) return { written: false, current: structuredClone(existing) };
    this.items.set(item.resultId, structuredClone(item));
    return { written: true };
  }
  /** Publication records kept in memory: `FakePublications` writes them. */
  readonly publications = new Map<string, PublicationRecord>();
  /** As `ResultStore.isErased`: the erasure record exists. */
  async isErased(resultId: string) {
    return this.erased.has(resultId);
  }
  /** Keys removed by `discardStored`. */
  readonly discarded: string[] = [];
  async discardStored(stored: StoredResult['stored']) {
    for (const key of [stored.resultKey, ...stored.objects.map((o) => o.key)]) {
      this.objects.delete(key);
      this.discarded.push(key);
    }
  }
  /** What an erasure's fence (`erasure/fence.ts`) leaves of the publication record. */
  fence(resultId: string, at: string) {
    this.publications.set(resultId, { erasedAt: at } as PublicationRecord);
  }
}

/** The publication records of a `FakeStore` (its `publications`), written under the conditions of `Publications`. */
export class FakePublications implements PublicationWrites {
  constructor(readonly store: FakeStore) {}
  /** As `Publications.claim`. */
  async claim(
    resultId: string,
    status: ResultStatus,
    claim: PublishClaim,
    nowMs: number,
    _expiresAt?: number,
    version?: number,
  ): Promise<ClaimResult> {
    const record = this.store.publications.get(resultId);
    // As `Publications.claim`: an erasure's fence refuses every claim but a refetch's.
    if (record?.erasedAt && !claim.reopensErasure) return { claimed: false, record: structuredClone(record) };
    const notHeld =
      record?.claimExpiresAt === undefined || record.claimExpiresAt < nowMs || record.claim === claim.token;
    if (version !== undefined && version > 1) {
      // A later version of a published STORED result: the previous version's publication stays.
      const free =
        !record ||
        (record.status === undefined && notHeld) ||
        (record.publishedAt !== undefined &&
          record.status === status &&
          (record.version ?? 1) < version &&
          notHeld);
      if (!free) return { claimed: false, record: record && structuredClone(record) };
      // A record only version claims wrote has no status (as in DynamoDB); the type wants one.
      this.store.publications.set(resultId, {
        ...record,
        claim: claim.token,
        claimExpiresAt: claim.expiresAt,
        claimVersion: version,
      } as PublicationRecord);
      return { claimed: true };
    }
    const free =
      !record ||
      (record.erasedAt !== undefined && record.status === undefined) ||
      (record.status !== status && status === 'STORED') ||
      (!record.publishedAt &&
        (record.claimExpiresAt === undefined ||
          record.claimExpiresAt < nowMs ||
          record.claim === claim.token));
    if (!free) return { claimed: false, record: structuredClone(record) };
    this.store.publications.set(resultId, { status, claim: claim.token, claimExpiresAt: claim.expiresAt });
    return { claimed: true };
  }
  /** As `Publications.release`. */
  async release(resultId: string, token: string) {
    const record = this.store.publications.get(resultId);
    if (record?.claim === token) {
      const { claim: _claim, claimExpiresAt: _until, claimVersion: _version, ...rest } = record;
      this.store.publications.set(resultId, rest);
    }
  }
  /** As `Publications.mark`; also sets the item's `eventPublishedAt`, as `ResultStore.getItem` reads it. */
  async mark(resultId: string, status: ResultStatus, at: string, _expiresAt?: number, version = 1) {
    this.store.crash.at('mark');
    const item = this.store.items.get(resultId);
    if (item && !item.eventPublishedAt && item.status === status && versionOf(item) === version)
      item.eventPublishedAt = at;
    const record = this.store.publications.get(resultId);
    if (record?.erasedAt) return;
    if ((record?.version ?? 1) > version) return;
    // As `Publications.mark`: once per status and version; a STORED mark replaces an UNAVAILABLE one,
    // never the reverse.
    if (
      !record?.publishedAt ||
      (status === 'STORED' && record.status !== status) ||
      (record.version ?? 1) < version
    ) {
      this.store.publications.set(resultId, { status, publishedAt: at, ...(version > 1 && { version }) });
    }
  }
}

export class FakePublisher implements EventPublisher {
  readonly stored: ResultStoredDetail[] = [];
  readonly unavailable: ResultUnavailableDetail[] = [];
  readonly uploaded: DocumentsUploadedDetail[] = [];
  readonly changed: ResultChangedDetail[] = [];
  constructor(readonly crash = new Crash()) {}
  async publishResultChanged(detail: ResultChangedDetail) {
    this.crash.at('publish');
    this.changed.push(detail);
  }
  async publishResultStored(detail: ResultStoredDetail) {
    this.crash.at('publish');
    this.stored.push(detail);
  }
  async publishResultUnavailable(detail: ResultUnavailableDetail) {
    this.crash.at('publish');
    this.unavailable.push(detail);
  }
  async publishDocumentsUploaded(detail: DocumentsUploadedDetail) {
    this.crash.at('publish');
    this.uploaded.push(detail);
  }
}

/** A function's logger (`createLogger`) that keeps its lines in memory instead of printing. */
export function memoryLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger();
  logger.setLogLevel('DEBUG');
  const sink = (line: unknown) => {
    lines.push(String(line));
  };
  (logger as unknown as { console: Record<string, unknown> }).console = {
    log: sink,
    info: sink,
    warn: sink,
    error: sink,
    debug: sink,
    trace: sink,
  };
  return { logger, lines };
}

/** Validators of the shipped schemas (date-time checked by pattern; no extra format package needed). */
export function eventValidators() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  const load = (name: string) =>
    ajv.compile(
      JSON.parse(
        readFileSync(new URL(`../../shared/events/schemas/${name}.schema.json`, import.meta.url), 'utf8'),
      ),
    );
  return {
    [DETAIL_TYPES.resultStored]: load(DETAIL_TYPES.resultStored),
    [DETAIL_TYPES.resultUnavailable]: load(DETAIL_TYPES.resultUnavailable),
    [DETAIL_TYPES.documentsUploaded]: load(DETAIL_TYPES.documentsUploaded),
    [DETAIL_TYPES.resultErased]: load(DETAIL_TYPES.resultErased),
    [DETAIL_TYPES.resultChanged]: load(DETAIL_TYPES.resultChanged),
  };
}

/** A polling response that must parse (`parsePollResponse`, unwrapped). */
export function pollOf(body: unknown): PollResponse {
  const parsed = parsePollResponse(body);
  if (!parsed.ok) throw new Error(`poll response did not parse: ${parsed.paths.join(', ')}`);
  return parsed.value;
}
