/**
 * State and lifecycle of a simulator: the virtual clock, transactions, access tokens, results and poll
 * records, and the §3 lifecycle that moves them (completion after a delay, the upload and result
 * webhooks, retention expiry). Route handlers and controls read and change this one object.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type * as z from 'zod/mini';
import type {
  CommunicationStatus,
  MockTestValue,
  Product,
  RtwType,
  SdkService,
  ServiceEnvironment,
} from '../shared/api/enums';
import type { PollRecord, VerificationResultDocument } from '../shared/api/schemas';
import { FaultInjector, type ResultFault } from './faults';
import { validate } from './http';
import { createPrng, deriveSeed, type Prng } from './prng';
import { forcesDisapproval, type ResultControls } from './result-checks';
import type { UploadInput } from './result-images';
import { releaseUploads, resultInputOf } from './result-input';
import { buildResult, drawOutcome, type Outcome, type VogInput } from './results';
import type { RecordedRequest, SimulatorOptions, SimulatorStats } from './types';
import { WebhookSender } from './webhooks';

const DAY_MS = 86_400_000;

/** How a transaction was started. */
export type TransactionOrigin = 'secureLink' | 'sdk' | 'idverify' | 'vog' | 'bulk';

/** A transaction as the simulator tracks it. */
export interface Transaction {
  transactionId: string;
  /**
   * Creation order (from 0): with the seed, what a result's content is drawn from, so a seeded run
   * repeats its content while every id stays random (`simulator/prng.ts`).
   */
  seq: number;
  origin: TransactionOrigin;
  product?: Product;
  customerReference?: string;
  userId: string;
  rtwType?: RtwType;
  createdAt: number;
  state: 'created' | 'pending' | 'completed';
  /** When a pending transaction completes. */
  dueAt?: number;
  /** When the end user "uploads" through a secure link (upload webhook). */
  uploadAt?: number;
  uploadNotified?: boolean;
  secureId?: string;
  /** The capability in a secure link's address, without which its hosted pages answer 404 (`link-access.ts`). */
  linkKey?: string;
  mock?: MockTestValue;
  /** Outcome the hosted flow's tester picked; without `mock-test`'s fixed content. */
  outcome?: Outcome;
  sdk?: { services: SdkService[]; numberOfChallenges: number };
  identityUploaded?: boolean;
  faceVerified?: boolean;
  /** Type and references of every uploaded image (identity and face verify uploads), in order. */
  uploads: UploadedImage[];
  /** The documents a secure link asks the end user to capture (§4.1 `additionalDocuments`). */
  additionalDocuments?: string[];
  linkedTransactionId?: string;
  /** An SDK token with `validateWatermark`: face verify checks the LIVE images' watermark. */
  validateWatermark?: boolean;
  /** A face verify upload whose LIVE images lacked the SDK's watermark. */
  watermarkRejected?: boolean;
  vog?: VogInput;
  /** What a simulator control forces on the result (`/__sim/transaction-controls`). */
  controls?: ResultControls;
  faceLinkToken?: string;
  resultIds: string[];
}

/** What the simulator keeps of an uploaded image: its type, references and bytes (`result-images.ts`). */
export type UploadedImage = UploadInput;

/** A completed transaction's result, with its poll record until the result is fetched. */
export interface StoredResult {
  resultId: string;
  transactionId: string;
  doc: VerificationResultDocument;
  pollRecord?: PollRecord;
  completedAt: number;
  expiresAt: number;
}

/** An issued access token. */
export interface IssuedToken {
  expiresAt: number;
  scopes: string[];
}

/** Everything a running simulator knows; one per `startSimulator`. */
export class SimulatorState {
  readonly options: SimulatorOptions;
  readonly environment: ServiceEnvironment;
  readonly seed: number;
  readonly tokenTtlMs: number;
  readonly completionDelayMs: number;
  readonly retentionMs: number;
  readonly maxRecorded: number;
  readonly defaultUserId: string;
  readonly enforceScopes: boolean;
  readonly drivingLicenseCheck: boolean;
  readonly faults: FaultInjector;
  readonly webhooks: WebhookSender;

  readonly tokens = new Map<string, IssuedToken>();
  readonly sdkTokens = new Map<string, string>();
  readonly transactions = new Map<string, Transaction>();
  /** secureId of a secure link (single or bulk) → its transactionId: the hosted flow finds it. */
  readonly secureLinks = new Map<string, string>();
  readonly pending = new Set<Transaction>();
  readonly results = new Map<string, StoredResult>();
  /** One-time FaceLink accept token → transactionId. */
  readonly faceLinkTokens = new Map<string, string>();
  readonly resultFetches: Record<string, number> = {};
  /** Faults of single transactions' results (`setResultFault`), with the fetches each has left. */
  readonly resultFaults: ResultFault[] = [];
  readonly requests: RecordedRequest[] = [];
  tokensIssued = 0;
  /** Transactions created so far: the next one's `seq`. */
  createdCount = 0;
  requestCount = 0;
  completedCount = 0;
  /** Base URL once the server listens (links in secure link answers point here). */
  baseUrl = '';
  /** Status of every message a new secure link sends (`/__sim/communications`): SENT unless a test says. */
  communicationStatus: CommunicationStatus = 'SENT';

  readonly #outcomePrng: Prng;
  readonly #wallClock: () => number;
  #offsetMs = 0;

  constructor(options: SimulatorOptions) {
    this.options = options;
    this.environment = options.environment ?? 'staging';
    this.seed = options.seed ?? randomBytes(4).readUInt32BE(0);
    this.tokenTtlMs = (options.tokenTtlSeconds ?? 3600) * 1000;
    this.completionDelayMs = options.completionDelayMs ?? 5000;
    this.retentionMs = options.retentionMs ?? 30 * DAY_MS;
    this.maxRecorded = options.maxRecordedRequests ?? 1000;
    this.defaultUserId = options.defaultUserId ?? 'api-user';
    this.enforceScopes = options.enforceScopes ?? false;
    this.drivingLicenseCheck = options.drivingLicenseCheck ?? true;
    this.#wallClock = options.now ?? Date.now;
    this.#outcomePrng = createPrng(deriveSeed(this.seed, 'outcomes'));
    this.faults = new FaultInjector(this.seed, this.#wallClock);
    this.faults.set(options.faults);
    this.webhooks = new WebhookSender(options.webhookRetry);
  }

  /** The virtual clock (epoch ms): the wall clock plus every `advance`. */
  now(): number {
    return this.#wallClock() + this.#offsetMs;
  }

  /** How far `advance` has moved the virtual clock. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Moves the virtual clock forward and applies the lifecycle up to the new time. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advanceTime needs a non-negative number of ms');
    this.#offsetMs += ms;
    this.tick();
  }

  /** A debug line for `options.onDebug` (never values of a request, only names). */
  debug(message: string): void {
    this.options.onDebug?.(message);
  }

  /** Reads a request body with a shared schema, tolerantly: unknown fields are dropped and logged. */
  read<S extends z.ZodMiniType>(schema: S, input: unknown, what: string): z.infer<S> {
    return validate(schema, input, (fields) =>
      this.debug(`${what}: ignored unknown field(s) ${fields.join(', ')}`),
    );
  }

  /** Records a request to the service endpoints, keeping at most `maxRecorded`. */
  record(request: RecordedRequest): void {
    this.requestCount++;
    this.requests.push(request);
    if (this.requests.length > this.maxRecorded) {
      this.requests.splice(0, this.requests.length - this.maxRecorded);
    }
  }

  /** Issues an access token for `scopes`. */
  issueToken(scopes: string[]): string {
    const accessToken = randomBytes(32).toString('base64url');
    this.tokens.set(accessToken, { expiresAt: this.now() + this.tokenTtlMs, scopes });
    this.tokensIssued++;
    return accessToken;
  }

  /** A live (not expired) token, or undefined. */
  liveToken(accessToken: string): IssuedToken | undefined {
    const token = this.tokens.get(accessToken);
    return token && token.expiresAt > this.now() ? token : undefined;
  }

  /** Makes every issued token expired. */
  expireTokens(): void {
    const now = this.now();
    for (const t of this.tokens.values()) t.expiresAt = Math.min(t.expiresAt, now);
  }

  newTransaction(origin: TransactionOrigin, init: Partial<Transaction>): Transaction {
    const t: Transaction = {
      // Ids grant access (a result, a link): never drawn from the seed, always from the CSPRNG.
      transactionId: randomUUID(),
      seq: this.createdCount++,
      origin,
      userId: this.defaultUserId,
      createdAt: this.now(),
      state: 'created',
      uploads: [],
      resultIds: [],
      ...init,
    };
    this.transactions.set(t.transactionId, t);
    if (t.secureId !== undefined) this.secureLinks.set(t.secureId, t.transactionId);
    return t;
  }

  /**
   * Makes `t` complete after the completion delay (a secure link's user "uploads" half-way). With
   * `linksAwaitBrowser` a secure link instead waits for its end user in the hosted flow.
   */
  schedule(t: Transaction, options: { withUpload?: boolean } = {}): void {
    if (t.origin === 'secureLink' && this.options.linksAwaitBrowser) return;
    t.state = 'pending';
    t.dueAt = this.now() + this.completionDelayMs;
    if (options.withUpload) t.uploadAt = this.now() + Math.floor(this.completionDelayMs / 2);
    this.pending.add(t);
  }

  /** Sends the upload webhook of a secure-link transaction once. */
  notifyUpload(t: Transaction): void {
    if (t.uploadNotified || !t.secureId) return;
    t.uploadNotified = true;
    if (this.options.uploadWebhookUrl) {
      this.webhooks.send(this.options.uploadWebhookUrl, {
        transactionId: t.transactionId,
        secureId: t.secureId,
        ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
        uploadedAt: new Date(this.now()).toISOString(),
      });
    }
  }

  /** Completes `t` now: builds its result, adds the poll record and sends the result webhook. */
  complete(t: Transaction): StoredResult {
    if (t.origin === 'secureLink' || t.origin === 'bulk') this.notifyUpload(t);
    this.pending.delete(t);
    t.state = 'completed';
    this.completedCount++;
    const completedAt = this.now();
    const drawn: Outcome = t.mock ?? t.outcome ?? this.options.outcome ?? drawOutcome(this.#outcomePrng);
    // A check forced to HIT disapproves the transaction, whatever outcome was picked.
    const outcome: Outcome = forcesDisapproval(t.controls) ? 'DISAPPROVED' : drawn;
    const stored = this.addResult(t, this.#buildDocument(t, outcome, completedAt), completedAt);
    this.announceResult(t, stored.resultId, new Date(completedAt).toISOString());
    return stored;
  }

  /**
   * Holds `doc` as a new result of `t` (a new resultId), completed at `completedAt`, with its polling
   * record, until the retention removes it. Announces nothing: the caller does.
   */
  addResult(t: Transaction, doc: VerificationResultDocument, completedAt: number): StoredResult {
    const resultId = randomUUID();
    const stored: StoredResult = {
      resultId,
      transactionId: t.transactionId,
      doc,
      pollRecord: pollRecordOf(t, resultId, new Date(completedAt).toISOString()),
      completedAt,
      expiresAt: completedAt + this.retentionMs,
    };
    this.results.set(resultId, stored);
    t.resultIds.push(resultId);
    return stored;
  }

  /** The result document of `t` with `outcome`, completed at `completedAt` (an overturn: `overturn.ts`). */
  buildDocument(t: Transaction, outcome: Outcome, completedAt: number): VerificationResultDocument {
    return this.#buildDocument(t, outcome, completedAt);
  }

  /** Sends the result webhook of `resultId` of `t` (an overturn announces a changed verdict: `overturn.ts`). */
  announceResult(t: Transaction, resultId: string, completed: string): void {
    if (!this.options.resultWebhookUrl) return;
    this.webhooks.send(this.options.resultWebhookUrl, {
      resultId,
      transactionId: t.transactionId,
      ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
      ...(t.product !== undefined ? { product: t.product } : {}),
      completed,
    });
  }

  /** The result document of `t`: which sections follow from its product, origin and uploads. */
  #buildDocument(t: Transaction, outcome: Outcome, completedAt: number): VerificationResultDocument {
    return buildResult(
      resultInputOf(t, outcome, completedAt, {
        seed: deriveSeed(this.seed, `result:${t.seq}`),
        drivingLicenseCheck: this.drivingLicenseCheck,
      }),
    );
  }

  /** Completes every pending transaction now; returns how many. */
  completePending(): number {
    const all = [...this.pending];
    for (const t of all) this.complete(t);
    return all.length;
  }

  /** Advances the lifecycle to the virtual clock: uploads, completions, retention expiry. */
  tick(): void {
    const t0 = this.now();
    for (const t of [...this.pending]) {
      if (t.uploadAt !== undefined && t.uploadAt <= t0) this.notifyUpload(t);
      if (t.dueAt !== undefined && t.dueAt <= t0) this.complete(t);
    }
    for (const [id, r] of this.results) {
      if (r.expiresAt <= t0) {
        this.results.delete(id);
        // The uploads' bytes live on only in the result, which is gone now.
        releaseUploads(this.transactions.get(r.transactionId), (resultId) => this.results.has(resultId));
      }
    }
    // An expired token answers 401 whether it is kept or not; dropping it bounds memory.
    for (const [token, t] of this.tokens) {
      if (t.expiresAt <= t0) this.tokens.delete(token);
    }
  }

  /** Adds (or replaces) the fault of one transaction's results; `fetches: 0` removes it. */
  setResultFault(fault: ResultFault): void {
    const same = (f: ResultFault) =>
      f.transactionId === fault.transactionId && f.customerReference === fault.customerReference;
    const index = this.resultFaults.findIndex(same);
    if (index >= 0) this.resultFaults.splice(index, 1);
    if (fault.fetches > 0) this.resultFaults.push({ ...fault });
  }

  /** The fault of this fetch of `r`, if one is set and has fetches left (and counts this one). */
  takeResultFault(r: StoredResult): ResultFault['kind'] | undefined {
    const t = this.transactions.get(r.transactionId);
    const fault = this.resultFaults.find(
      (f) =>
        f.fetches > 0 &&
        (f.transactionId !== undefined
          ? f.transactionId === r.transactionId
          : t !== undefined && f.customerReference === t.customerReference),
    );
    if (!fault) return undefined;
    fault.fetches--;
    return fault.kind;
  }

  /** The poll records currently listed by GET /poll. */
  pollRecords(): PollRecord[] {
    const records: PollRecord[] = [];
    for (const r of this.results.values()) if (r.pollRecord) records.push(r.pollRecord);
    return records;
  }

  /** Counters, after applying the lifecycle up to now. */
  stats(): SimulatorStats {
    this.tick();
    return {
      transactions: this.transactions.size,
      pending: this.pending.size,
      completed: this.completedCount,
      pollRecords: this.pollRecords().length,
      results: this.results.size,
      resultFetches: { ...this.resultFetches },
      tokensIssued: this.tokensIssued,
      requests: this.requestCount,
      webhooks: { ...this.webhooks.counts, pending: this.webhooks.pending },
      faults: { ...this.faults.counts },
    };
  }
}

/** The polling record (§2.4, `GET /api/v2/poll`) of `resultId` of `t`, completed at `completed`. */
export function pollRecordOf(t: Transaction, resultId: string, completed: string): PollRecord {
  return {
    resultId,
    transactionId: t.transactionId,
    ...(t.product !== undefined ? { product: t.product } : {}),
    ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
    completed,
    userId: t.userId,
  };
}
