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
  ResultStoredDetail,
  ResultUnavailableDetail,
} from '../../shared/events/publisher';
import { createLogger, type Logger } from '../../shared/logger';
import type { ResultSource, ResultStorePort } from '../../shared/pipeline/fetch-result';
import type { ObjectRef, ResultItem, ResultStatus, StoredResult } from '../../shared/store/result-store';
import { resultJsonKey } from '../../shared/store/result-store';
import type { BlobTarget } from '../../shared/stream/blob-sink';
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

export class FakeSource implements ResultSource {
  calls = 0;
  constructor(
    readonly results: Map<string, unknown>,
    readonly crash = new Crash(),
  ) {}
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
  /**
   * Reads the body with the real streaming ingest (same parsing, decoding and refusals as `ResultStore`),
   * keeping the objects in memory instead of S3.
   */
  async storeResult(resultId: string, body: AsyncIterable<Uint8Array>): Promise<StoredResult> {
    const ingested = await ingestResult(resultId, body, this.#blobs);
    this.crash.at('writeObjects');
    const stored = {
      resultKey: resultJsonKey(resultId),
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
  async putStoredItem(item: ResultItem) {
    this.crash.at('putItem');
    const existing = this.items.get(item.resultId);
    if (existing && existing.status !== 'UNAVAILABLE') return false;
    this.items.set(item.resultId, structuredClone(item));
    return true;
  }
  async putUnavailableItem(item: ResultItem) {
    this.crash.at('putItem');
    if (this.items.has(item.resultId)) return false;
    this.items.set(item.resultId, structuredClone(item));
    return true;
  }
  async markPublished(resultId: string, status: ResultStatus, at: string) {
    this.crash.at('mark');
    const item = this.items.get(resultId);
    if (item && !item.eventPublishedAt && item.status === status) item.eventPublishedAt = at;
  }
}

export class FakePublisher implements EventPublisher {
  readonly stored: ResultStoredDetail[] = [];
  readonly unavailable: ResultUnavailableDetail[] = [];
  readonly uploaded: DocumentsUploadedDetail[] = [];
  constructor(readonly crash = new Crash()) {}
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
  };
}

/** A polling response that must parse (`parsePollResponse`, unwrapped). */
export function pollOf(body: unknown): PollResponse {
  const parsed = parsePollResponse(body);
  if (!parsed.ok) throw new Error(`poll response did not parse: ${parsed.paths.join(', ')}`);
  return parsed.value;
}
