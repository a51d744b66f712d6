/**
 * The service simulator: a contract stand-in for the identity verification service (in the spirit of
 * stripe-mock) on `node:http`. It implements every endpoint and status of the spec, OAuth with expiring
 * tokens, the staging `mock-test` header, the §3 lifecycle, webhooks with retries and seeded fault
 * injection. Tests start it in-process on port 0; `simulator/main.ts` is the command line entry.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as z from 'zod/mini';
import {
  DEFAULT_NUMBER_OF_CHALLENGES,
  MIN_UPLOAD_HEIGHT,
  MIN_UPLOAD_WIDTH,
  MOCK_TEST_HEADER,
  MOCK_TEST_VALUES,
  type MockTestValue,
  PATHS,
  type Product,
  type RtwType,
  type SdkService,
  type ServiceEnvironment,
} from '../shared/api/enums';
import {
  bulkSecureLinksRequestSchema,
  faceLinkPackageRequestSchema,
  faceQualityRequestSchema,
  faceVerifyRequestSchema,
  idVerifyRequestSchema,
  type PollRecord,
  qualityRequestSchema,
  sdkTokenRequestSchema,
  secureLinkRequestSchema,
  tokenRequestSchema,
  type UploadImage,
  type VerificationResultDocument,
  vogRequestSchema,
} from '../shared/api/schemas';
import { imageDimensions } from '../shared/image';
import { type FaultCounts, FaultInjector, type FaultOptions } from './faults';
import {
  generatePng,
  IMAGE_SLOTS,
  type ImageSlot,
  jsonStringBytes,
  POOL_VARIANTS,
  pooledImage,
} from './images';
import { createPrng, deriveSeed, prngUuid } from './prng';
import { ALL_REASONS } from './reasons';
import { buildResult, drawOutcome, type Outcome, type VogInput } from './results';
import { type WebhookCounts, type WebhookRetryOptions, WebhookSender } from './webhooks';

export type { FaultOptions } from './faults';
export type { WebhookRetryOptions } from './webhooks';

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  clientId: string;
  clientSecret: string;
  /** `mock-test` is honoured on staging only. @default 'staging' */
  environment?: ServiceEnvironment;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (a free port) */
  port?: number;
  /** Seed of ids, outcomes, fake data and faults. @default a random seed (see `RunningSimulator.seed`) */
  seed?: number;
  /** Lifetime of access tokens. @default 3600 */
  tokenTtlSeconds?: number;
  /** Delay before a transaction created without `mock-test` completes. @default 5000 */
  completionDelayMs?: number;
  /** How long results and poll records are retained after completion. @default 30 days */
  retentionMs?: number;
  /** Where the result webhook is POSTed; none when unset. */
  resultWebhookUrl?: string;
  /** Where the upload webhook is POSTed; none when unset. */
  uploadWebhookUrl?: string;
  webhookRetry?: WebhookRetryOptions;
  /** Fault injection from the start; off by default. */
  faults?: FaultOptions;
  /** Users of the account; when set, an unknown `userId` is a 400. @default any userId is accepted */
  users?: string[];
  /** `userId` of transactions created without one. @default 'api-user' */
  defaultUserId?: string;
  /** Requests kept in `RunningSimulator.requests` (oldest dropped first). @default 1000 */
  maxRecordedRequests?: number;
  /**
   * Generate the result image pool in the background right after start (one image per event-loop turn),
   * so the first completion does not block for ~2 s. @default false (tests that never fetch results
   * should not pay for it); the CLI turns it on.
   */
  warmImagePool?: boolean;
  /** Wall clock; the virtual clock adds `advanceTime` offsets to it. @default Date.now */
  now?: () => number;
}

/** One request as it arrived on the wire. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Header names are lower-case. */
  headers: IncomingHttpHeaders;
  /** Parsed JSON, else the raw text; undefined when empty. */
  body: unknown;
  /** Virtual time of arrival (epoch ms). */
  at: number;
}

/** Counters for assertions and benchmarks. */
export interface SimulatorStats {
  transactions: number;
  /** Transactions waiting for their completion time. */
  pending: number;
  completed: number;
  /** Poll records currently listed by GET /poll. */
  pollRecords: number;
  /** Results currently retrievable. */
  results: number;
  /** Successful GET /result per resultId. */
  resultFetches: Record<string, number>;
  tokensIssued: number;
  requests: number;
  webhooks: WebhookCounts & { pending: number };
  faults: FaultCounts;
}

/** Test and operator controls; the same are served over HTTP under `/__sim`. */
export interface SimulatorControl {
  /** Makes every issued access token expired. */
  expireTokens(): void;
  /** Moves the virtual clock forward (token expiry, completion delays, retention). */
  advanceTime(ms: number): void;
  /** Completes every pending transaction now; returns how many completed. */
  completePending(): number;
  setFaults(faults: FaultOptions | undefined): void;
  /** The one-time accept token of a FaceLink transaction (normally sent to the end user). */
  faceLinkToken(transactionId: string): string | undefined;
  /** Result ids of a transaction (empty until it completes). */
  resultIdsOf(transactionId: string): string[];
  stats(): SimulatorStats;
  /** Resolves when every webhook delivery started so far has finished (incl. retries). */
  webhooksIdle(): Promise<void>;
  /** The virtual clock (epoch ms). */
  now(): number;
}

/** A started simulator. */
export interface RunningSimulator {
  /** Base URL, e.g. `http://127.0.0.1:4010` (no trailing slash). */
  url: string;
  port: number;
  /** The seed in use (pass it back to repeat a run). */
  seed: number;
  environment: ServiceEnvironment;
  close(): Promise<void>;
  /** Requests to the service endpoints, oldest first (not `/__sim`). */
  requests: RecordedRequest[];
  control: SimulatorControl;
}

type TransactionOrigin = 'secureLink' | 'sdk' | 'idverify' | 'vog' | 'bulk';

interface Transaction {
  transactionId: string;
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
  mock?: MockTestValue;
  sdk?: { services: SdkService[]; numberOfChallenges: number };
  identityUploaded?: boolean;
  faceVerified?: boolean;
  imageCustomerReferences: (string | undefined)[];
  vog?: VogInput;
  faceLinkToken?: string;
  resultIds: string[];
}

interface StoredResult {
  resultId: string;
  transactionId: string;
  doc: VerificationResultDocument;
  pollRecord?: PollRecord;
  completedAt: number;
  expiresAt: number;
}

interface ApiError {
  status: number;
  code: number;
  message: string;
  details?: unknown[];
  headers?: Record<string, string>;
}

/** Default error body codes (gRPC status numbers, as the service uses). */
const CODE = {
  invalidArgument: 3,
  notFound: 5,
  failedPrecondition: 9,
  resourceExhausted: 8,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  unauthenticated: 16,
} as const;

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const DAY_MS = 86_400_000;

class HttpError extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
    this.name = 'HttpError';
  }
}

const unauthorized = (): HttpError =>
  new HttpError({ status: 401, code: CODE.unauthenticated, message: 'Unauthorized' });
const notFound = (): HttpError => new HttpError({ status: 404, code: CODE.notFound, message: 'NotFound' });
const badRequest = (field: string, message: string): HttpError =>
  new HttpError({
    status: 400,
    code: CODE.invalidArgument,
    message: `Invalid request: ${field} ${message}`,
    details: [{ field, message }],
  });

/** Validates with a shared schema; a failure is a 400 naming each field, never echoing values. */
function validate<S extends z.ZodMiniType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({
    field: i.path.length > 0 ? i.path.join('.') : '(body)',
    message: i.message,
    code: i.code,
  }));
  throw new HttpError({
    status: 400,
    code: CODE.invalidArgument,
    message: `Invalid request: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`,
    details,
  });
}

interface RouteContext {
  req: IncomingMessage;
  url: URL;
  body: unknown;
  params: string[];
}

type Handler = (ctx: RouteContext) => unknown | Promise<unknown>;

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  auth: 'basic' | 'bearer' | 'none';
  handler: Handler;
}

/** Starts a simulator; resolves once it listens. Rejects (e.g. `EADDRINUSE`) when it cannot. */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const environment = options.environment ?? 'staging';
  // A bad webhook address would only show as silently abandoned deliveries: refuse it at start.
  checkWebhookUrl('resultWebhookUrl', options.resultWebhookUrl);
  checkWebhookUrl('uploadWebhookUrl', options.uploadWebhookUrl);
  const seed = options.seed ?? randomBytes(4).readUInt32BE(0);
  const tokenTtlMs = (options.tokenTtlSeconds ?? 3600) * 1000;
  const completionDelayMs = options.completionDelayMs ?? 5000;
  const retentionMs = options.retentionMs ?? 30 * DAY_MS;
  const maxRecorded = options.maxRecordedRequests ?? 1000;
  const defaultUserId = options.defaultUserId ?? 'api-user';
  const wallClock = options.now ?? Date.now;
  let offsetMs = 0;
  const now = (): number => wallClock() + offsetMs;

  const idPrng = createPrng(deriveSeed(seed, 'ids'));
  const outcomePrng = createPrng(deriveSeed(seed, 'outcomes'));
  const faults = new FaultInjector(seed);
  faults.set(options.faults);
  const webhooks = new WebhookSender(options.webhookRetry);

  const tokens = new Map<string, { expiresAt: number; scopes: string[] }>();
  const sdkTokens = new Map<string, string>();
  const transactions = new Map<string, Transaction>();
  const pending = new Set<Transaction>();
  const results = new Map<string, StoredResult>();
  const faceLinkTokens = new Map<string, string>();
  const resultFetches: Record<string, number> = {};
  const requests: RecordedRequest[] = [];
  let tokensIssued = 0;
  let requestCount = 0;
  let completedCount = 0;

  // ------------------------------------------------------------------------------------------------
  // Lifecycle
  // ------------------------------------------------------------------------------------------------

  function newTransaction(origin: TransactionOrigin, init: Partial<Transaction>): Transaction {
    const t: Transaction = {
      transactionId: prngUuid(idPrng),
      origin,
      userId: defaultUserId,
      createdAt: now(),
      state: 'created',
      imageCustomerReferences: [],
      resultIds: [],
      ...init,
    };
    transactions.set(t.transactionId, t);
    return t;
  }

  function schedule(t: Transaction, options: { withUpload?: boolean } = {}): void {
    t.state = 'pending';
    t.dueAt = now() + completionDelayMs;
    if (options.withUpload) t.uploadAt = now() + Math.floor(completionDelayMs / 2);
    pending.add(t);
  }

  function notifyUpload(t: Transaction): void {
    if (t.uploadNotified || !t.secureId) return;
    t.uploadNotified = true;
    if (options.uploadWebhookUrl) {
      webhooks.send(options.uploadWebhookUrl, {
        transactionId: t.transactionId,
        secureId: t.secureId,
        ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
        uploadedAt: new Date(now()).toISOString(),
      });
    }
  }

  function complete(t: Transaction): StoredResult {
    if (t.origin === 'secureLink' || t.origin === 'bulk') notifyUpload(t);
    pending.delete(t);
    t.state = 'completed';
    completedCount++;
    const completedAt = now();
    const outcome: Outcome = t.mock ?? drawOutcome(outcomePrng);
    const product = t.product;
    const isFaceLink = product === 'FACE_LINK';
    const identity = !isFaceLink && !t.vog && (t.origin !== 'sdk' || t.identityUploaded === true);
    // §1: faceVerify with mock-test only through the secure link; otherwise for premium products and
    // for transactions whose face verify images were uploaded.
    const premium = product === 'IDV_PREMIUM' || product === 'RTW_PREMIUM';
    const faceVerify = t.faceVerified === true || (premium && (!t.mock || t.origin === 'secureLink'));
    const doc = buildResult({
      seed: deriveSeed(seed, `result:${t.transactionId}`),
      transactionId: t.transactionId,
      ...(product !== undefined ? { product } : {}),
      outcome,
      ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
      userId: t.userId,
      ...(t.rtwType !== undefined ? { rtwType: t.rtwType } : {}),
      sections: {
        identity,
        rightToWork: identity && (product === 'RTW_STANDARD' || product === 'RTW_PREMIUM'),
        faceVerify,
        faceLink: isFaceLink,
        ...(t.vog ? { vog: t.vog } : {}),
      },
      imageCustomerReferences: t.imageCustomerReferences,
      completedAt,
    });
    const resultId = prngUuid(idPrng);
    const completed = new Date(completedAt).toISOString();
    const pollRecord: PollRecord = {
      resultId,
      transactionId: t.transactionId,
      ...(product !== undefined ? { product } : {}),
      ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
      completed,
      userId: t.userId,
    };
    const stored: StoredResult = {
      resultId,
      transactionId: t.transactionId,
      doc,
      pollRecord,
      completedAt,
      expiresAt: completedAt + retentionMs,
    };
    results.set(resultId, stored);
    t.resultIds.push(resultId);
    if (options.resultWebhookUrl) {
      webhooks.send(options.resultWebhookUrl, {
        resultId,
        transactionId: t.transactionId,
        ...(t.customerReference !== undefined ? { customerReference: t.customerReference } : {}),
        ...(product !== undefined ? { product } : {}),
        completed,
      });
    }
    return stored;
  }

  /** Advances the lifecycle to the virtual clock: uploads, completions, retention expiry. */
  function tick(): void {
    const t0 = now();
    for (const t of [...pending]) {
      if (t.uploadAt !== undefined && t.uploadAt <= t0) notifyUpload(t);
      if (t.dueAt !== undefined && t.dueAt <= t0) complete(t);
    }
    for (const [id, r] of results) {
      if (r.expiresAt <= t0) results.delete(id);
    }
    // An expired token answers 401 whether it is kept or not; dropping it bounds memory.
    for (const [token, t] of tokens) {
      if (t.expiresAt <= t0) tokens.delete(token);
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Helpers of the handlers
  // ------------------------------------------------------------------------------------------------

  function mockValue(req: IncomingMessage): MockTestValue | undefined {
    // §1: the header is honoured on staging only; production ignores it entirely.
    if (environment !== 'staging') return undefined;
    const raw = req.headers[MOCK_TEST_HEADER];
    if (raw === undefined) return undefined;
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toUpperCase();
    if (!value || !(MOCK_TEST_VALUES as readonly string[]).includes(value)) {
      throw badRequest(MOCK_TEST_HEADER, `header must be one of ${MOCK_TEST_VALUES.join(', ')}`);
    }
    return value as MockTestValue;
  }

  function checkUser(userId: string | undefined): string {
    if (userId === undefined || userId === '') return defaultUserId;
    if (options.users && !options.users.includes(userId))
      throw badRequest('userId', 'is not a user of the account');
    return userId;
  }

  function bearer(req: IncomingMessage): void {
    const h = req.headers.authorization;
    const m = h ? /^Bearer\s+(\S+)$/i.exec(h) : null;
    const token = m ? tokens.get(m[1]!) : undefined;
    if (!token || token.expiresAt <= now()) throw unauthorized();
  }

  function basic(req: IncomingMessage): void {
    const h = req.headers.authorization;
    const m = h ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(h) : null;
    if (!m) throw unauthorized();
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const sep = decoded.indexOf(':');
    if (sep < 0) throw unauthorized();
    const idOk = safeEqual(decoded.slice(0, sep), options.clientId);
    const secretOk = safeEqual(decoded.slice(sep + 1), options.clientSecret);
    if (!idOk || !secretOk) throw unauthorized();
  }

  function imageBytes(image: UploadImage, field: string): Buffer {
    const bytes = Buffer.from(image.data, 'base64');
    if (bytes.length === 0) throw badRequest(field, 'is empty');
    return bytes;
  }

  let qrCodeBase64: string | undefined;
  const qrCode = (): string => {
    qrCodeBase64 ??= generatePng(116, 116, 7, 'document').toString('base64');
    return qrCodeBase64;
  };

  // ------------------------------------------------------------------------------------------------
  // Handlers
  // ------------------------------------------------------------------------------------------------

  const routes: Route[] = [
    {
      method: 'POST',
      pattern: exact(PATHS.oauthToken),
      auth: 'basic',
      handler: ({ body }) => {
        const { scopes } = validate(tokenRequestSchema, body);
        const accessToken = randomBytes(32).toString('base64url');
        tokens.set(accessToken, { expiresAt: now() + tokenTtlMs, scopes });
        tokensIssued++;
        return { accessToken, expiresIn: String(Math.floor(tokenTtlMs / 1000)), tokenType: 'Bearer' };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.secureLink),
      auth: 'bearer',
      handler: ({ req, body }) => {
        const mock = mockValue(req);
        const input = validate(secureLinkRequestSchema, body);
        const userId = checkUser(input.userId);
        const product = input.product ?? 'IDV_STANDARD';
        if (product === 'FACE_LINK') {
          const linked = transactions.get(input.linkedTransactionId ?? '');
          if (!linked || (linked.product !== 'IDV_PREMIUM' && linked.product !== 'RTW_PREMIUM')) {
            throw badRequest(
              'linkedTransactionId',
              'must be the transactionId of an IDV_PREMIUM or RTW_PREMIUM request',
            );
          }
        }
        const secureId = prngUuid(idPrng);
        const t = newTransaction('secureLink', {
          product,
          userId,
          secureId,
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          ...(input.rtwType !== undefined ? { rtwType: input.rtwType } : {}),
          ...(mock !== undefined ? { mock } : {}),
        });
        if (product === 'FACE_LINK') {
          t.faceLinkToken = randomBytes(24).toString('base64url');
          faceLinkTokens.set(t.faceLinkToken, t.transactionId);
        }
        if (mock) complete(t);
        else schedule(t, { withUpload: true });
        const link = `${base.url}/link/${secureId}`;
        const modes = input.communicationModes ?? [];
        return {
          secureId,
          transactionId: t.transactionId,
          ...(input.disableCommunication ? { link, qrCode: qrCode() } : {}),
          ...(modes.includes('MODE_WHATSAPP')
            ? { whatsappRedirectUrl: `${base.url}/whatsapp/${secureId}` }
            : {}),
          communicationsResponse: input.disableCommunication
            ? []
            : modes
                .filter((m) => m !== 'MODE_WHATSAPP')
                .map((communicationMode) => ({ communicationMode, status: 'SENT' })),
        };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.bulkSecureLinks),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(bulkSecureLinksRequestSchema, body);
        const rows = Buffer.from(input.file, 'base64')
          .toString('utf8')
          .split(/\r?\n/)
          .map((line, index) => ({ line, row: index + 1 }))
          .filter(({ line }) => line.trim() !== '');
        // A header row naming the columns is optional.
        if (rows[0] && /^name;emailaddress;/i.test(rows[0].line.trim())) rows.shift();
        const errors: { message: string; row: number }[] = [];
        for (const { line, row } of rows) {
          const cols = line.split(';').map((c) => c.trim());
          const [name, emailAddress, phoneNumber, language, customerReference] = cols;
          if (cols.length !== 5) errors.push({ message: 'expected 5 columns', row });
          else if (!name) errors.push({ message: 'name is required', row });
          else if (!emailAddress && !phoneNumber)
            errors.push({ message: 'emailAddress or phoneNumber is required', row });
          else if (emailAddress && !/^[^@\s;]+@[^@\s;]+\.[^@\s;]+$/.test(emailAddress)) {
            errors.push({ message: 'emailAddress is not an e-mail address', row });
          } else if (phoneNumber && !/^\+[1-9][0-9]{6,14}$/.test(phoneNumber)) {
            errors.push({ message: 'phoneNumber is not in international format', row });
          } else if (language && !/^[a-z]{2}$/.test(language)) {
            errors.push({ message: 'language must be a two-letter lowercase code', row });
          } else {
            const t = newTransaction('bulk', {
              product: input.product,
              secureId: prngUuid(idPrng),
              ...(customerReference ? { customerReference } : {}),
            });
            schedule(t, { withUpload: true });
          }
        }
        if (rows.length === 0) errors.push({ message: 'the file has no rows', row: 0 });
        return { success: errors.length === 0, errors };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.faceQuality),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(faceQualityRequestSchema, body);
        return qualityOf([Buffer.from(input.image, 'base64')]);
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.quality),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(qualityRequestSchema, body);
        return qualityOf(input.images.map((i) => Buffer.from(i, 'base64')));
      },
    },
    {
      method: 'GET',
      pattern: exact(PATHS.sdkToken),
      auth: 'bearer',
      handler: ({ url }) => {
        const input = validate(sdkTokenRequestSchema, sdkQuery(url.searchParams));
        const t = newTransaction('sdk', {
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          sdk: {
            services: input.services,
            numberOfChallenges: input.numberOfChallenges ?? DEFAULT_NUMBER_OF_CHALLENGES,
          },
        });
        const token = randomBytes(32).toString('base64url');
        sdkTokens.set(token, t.transactionId);
        return { token, transactionId: t.transactionId };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.faceVerify),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(faceVerifyRequestSchema, body);
        const t = transactions.get(input.transactionId);
        if (t?.origin !== 'sdk') throw badRequest('transactionId', 'is not a transaction of an SDK token');
        if (t.state === 'completed') throw badRequest('transactionId', 'is already completed');
        if (!t.sdk?.services.includes('FACE_VERIFY')) {
          throw badRequest('transactionId', 'was not created with the FACE_VERIFY service');
        }
        for (const [i, img] of input.images.entries()) imageBytes(img, `images.${i}.data`);
        const live = input.images.filter((i) => i.type === 'LIVE').length;
        const required = Math.max(2, t.sdk.numberOfChallenges);
        if (live < required)
          throw badRequest('images', `must contain at least ${required} LIVE images (got ${live})`);
        if (!input.images.some((i) => i.type === 'COMPARE'))
          throw badRequest('images', 'must contain a COMPARE image');
        t.faceVerified = true;
        t.imageCustomerReferences.push(...input.images.map((i) => i.customerReference));
        if (t.state === 'created') schedule(t);
        return { success: true };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.idVerify),
      auth: 'bearer',
      handler: ({ req, body }) => {
        const mock = mockValue(req);
        const input = validate(idVerifyRequestSchema, body);
        const userId = checkUser(input.userId);
        input.images.forEach((image, i) => {
          const field = `images.${i}.data`;
          const dims = imageDimensions(imageBytes(image, field));
          if (!dims) throw badRequest(field, 'must be a JPEG or PNG image');
          if (dims.width < MIN_UPLOAD_WIDTH || dims.height < MIN_UPLOAD_HEIGHT) {
            throw badRequest(field, `is smaller than ${MIN_UPLOAD_WIDTH} x ${MIN_UPLOAD_HEIGHT} pixels`);
          }
        });
        let t: Transaction;
        if (input.transactionId !== undefined) {
          const existing = transactions.get(input.transactionId);
          if (existing?.origin !== 'sdk') {
            throw badRequest('transactionId', 'is not a transaction of an SDK token');
          }
          if (existing.identityUploaded || existing.state === 'completed') {
            throw badRequest('transactionId', 'already has an identity upload');
          }
          t = existing;
        } else {
          t = newTransaction('idverify', {});
        }
        Object.assign(t, {
          product: input.product,
          userId,
          identityUploaded: true,
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          ...(input.rtwType !== undefined ? { rtwType: input.rtwType } : {}),
          ...(mock !== undefined ? { mock } : {}),
        });
        t.imageCustomerReferences.unshift(...input.images.map((i) => i.customerReference));
        if (mock) complete(t);
        else if (t.state === 'created') schedule(t);
        return { transactionId: t.transactionId };
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.vog),
      auth: 'bearer',
      handler: ({ body }) => {
        const input = validate(vogRequestSchema, body);
        const userId = checkUser(input.userId);
        const t = newTransaction('vog', {
          userId,
          ...(input.customerReference !== undefined ? { customerReference: input.customerReference } : {}),
          vog: {
            createdAt: now(),
            givenNames: input.givenNames,
            surname: input.surname,
            companyName: input.vogRequest.companyName,
            profiles: input.vogRequest.profiles,
          },
        });
        schedule(t);
        return { transactionId: t.transactionId };
      },
    },
    {
      method: 'GET',
      pattern: exact(PATHS.poll),
      auth: 'bearer',
      handler: () => {
        const records: PollRecord[] = [];
        for (const r of results.values()) if (r.pollRecord) records.push(r.pollRecord);
        return { results: records };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v2\/result\/([^/]+)$/,
      auth: 'bearer',
      handler: ({ params }) => {
        const resultId = safeDecode(params[0]!);
        const r = results.get(resultId);
        if (!r) throw notFound();
        // §3: a successful retrieval removes the poll record; the result stays until retention ends.
        delete r.pollRecord;
        resultFetches[resultId] = (resultFetches[resultId] ?? 0) + 1;
        return serializeResult(r.doc);
      },
    },
    {
      method: 'POST',
      pattern: exact(PATHS.faceLinkPackage),
      auth: 'bearer',
      handler: ({ body }) => {
        const { token } = validate(faceLinkPackageRequestSchema, body);
        const transactionId = faceLinkTokens.get(token);
        if (transactionId === undefined) throw notFound();
        // §3.4: the package is deleted after it has been retrieved once.
        faceLinkTokens.delete(token);
        const packagePrng = createPrng(deriveSeed(seed, `package:${transactionId}`));
        const packageData = Buffer.from(Array.from({ length: 2048 }, () => packagePrng.int(256))).toString(
          'base64',
        );
        return { packageData, transactionId };
      },
    },
    {
      method: 'GET',
      pattern: exact(PATHS.reasons),
      auth: 'bearer',
      handler: () => ({ reasons: ALL_REASONS }),
    },
  ];

  // ------------------------------------------------------------------------------------------------
  // Controls
  // ------------------------------------------------------------------------------------------------

  const control: SimulatorControl = {
    expireTokens: () => {
      for (const t of tokens.values()) t.expiresAt = Math.min(t.expiresAt, now());
    },
    advanceTime: (ms) => {
      if (!Number.isFinite(ms) || ms < 0)
        throw new RangeError('advanceTime needs a non-negative number of ms');
      offsetMs += ms;
      tick();
    },
    completePending: () => {
      const all = [...pending];
      for (const t of all) complete(t);
      return all.length;
    },
    setFaults: (f) => faults.set(f),
    faceLinkToken: (transactionId) => {
      const t = transactions.get(transactionId);
      return t?.faceLinkToken && faceLinkTokens.has(t.faceLinkToken) ? t.faceLinkToken : undefined;
    },
    resultIdsOf: (transactionId) => [...(transactions.get(transactionId)?.resultIds ?? [])],
    stats: () => {
      tick();
      let pollRecords = 0;
      for (const r of results.values()) if (r.pollRecord) pollRecords++;
      return {
        transactions: transactions.size,
        pending: pending.size,
        completed: completedCount,
        pollRecords,
        results: results.size,
        resultFetches: { ...resultFetches },
        tokensIssued,
        requests: requestCount,
        webhooks: { ...webhooks.counts, pending: webhooks.pending },
        faults: { ...faults.counts },
      };
    },
    webhooksIdle: () => webhooks.idle(),
    now,
  };

  function controlRoute(method: string, url: URL, body: unknown): unknown {
    const tx = url.searchParams.get('transactionId') ?? '';
    switch (`${method} ${url.pathname}`) {
      case 'POST /__sim/complete':
        return { completed: control.completePending() };
      case 'POST /__sim/advance': {
        const ms = Number(url.searchParams.get('ms') ?? (body as { ms?: unknown } | undefined)?.ms);
        if (!Number.isFinite(ms) || ms < 0) throw badRequest('ms', 'must be a non-negative number');
        control.advanceTime(ms);
        return { now: new Date(now()).toISOString(), offsetMs };
      }
      case 'POST /__sim/faults':
        control.setFaults((body ?? {}) as FaultOptions);
        return { faults: faults.current };
      case 'GET /__sim/faults':
        return { faults: faults.current };
      case 'GET /__sim/stats':
        return control.stats();
      case 'POST /__sim/expire-tokens':
        control.expireTokens();
        return { expired: tokens.size };
      case 'GET /__sim/facelink-token': {
        const token = control.faceLinkToken(tx);
        if (!token) throw notFound();
        return { token };
      }
      case 'GET /__sim/result-ids':
        return { resultIds: control.resultIdsOf(tx) };
      case 'POST /__sim/webhooks-idle':
        return webhooks.idle().then(() => ({ webhooks: control.stats().webhooks }));
      default:
        throw notFound();
    }
  }

  // ------------------------------------------------------------------------------------------------
  // HTTP
  // ------------------------------------------------------------------------------------------------

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const method = req.method ?? 'GET';
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (err) {
      if (err instanceof HttpError) return sendError(res, err.error);
      throw err;
    }
    const text = raw.toString('utf8');
    let body: unknown;
    let malformed = false;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        malformed = true;
      }
    }

    if (url.pathname.startsWith('/__sim/')) {
      // Controls are never faulted, recorded or authenticated: they exist for tests and the local run.
      try {
        if (malformed) throw badRequest('(body)', 'is not valid JSON');
        return sendJson(res, 200, await controlRoute(method, url, body));
      } catch (err) {
        if (err instanceof HttpError) return sendError(res, err.error);
        throw err;
      }
    }

    requestCount++;
    requests.push({
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      at: now(),
    });
    if (requests.length > maxRecorded) requests.splice(0, requests.length - maxRecorded);
    tick();

    const fault = faults.decide(url.pathname);
    if (fault.delayMs > 0) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault.action === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault.action === 'rateLimit') {
      return sendError(res, {
        status: 429,
        code: CODE.resourceExhausted,
        message: 'TooManyRequests',
        headers: { 'retry-after': String(fault.retryAfterSeconds ?? 1) },
      });
    }
    if (fault.action === 'serverError') {
      const status = fault.status ?? 500;
      return sendError(res, {
        status,
        code: status === 503 ? CODE.unavailable : CODE.internal,
        message: status === 503 ? 'Unavailable' : 'Internal',
      });
    }
    const truncate = fault.action === 'truncate';

    try {
      const candidates = routes.filter((r) => r.pattern.test(url.pathname));
      if (candidates.length === 0) throw notFound();
      const route = candidates.find((r) => r.method === method);
      if (!route) {
        throw new HttpError({
          status: 405,
          code: CODE.unimplemented,
          message: 'MethodNotAllowed',
          headers: { allow: [...new Set(candidates.map((r) => r.method))].join(', ') },
        });
      }
      if (route.auth === 'basic') basic(req);
      else if (route.auth === 'bearer') bearer(req);
      if (malformed) throw badRequest('(body)', 'is not valid JSON');
      const params = route.pattern.exec(url.pathname)?.slice(1) ?? [];
      const payload = await route.handler({ req, url, body, params });
      sendJson(res, 200, payload, truncate);
    } catch (err) {
      if (err instanceof HttpError) return sendError(res, err.error, truncate);
      // An unexpected failure is a bug of the simulator: answer 500 without leaking internals.
      console.error('simulator: unexpected error', err instanceof Error ? err.name : 'unknown');
      sendError(res, { status: 500, code: CODE.internal, message: 'Internal' });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, { status: 500, code: CODE.internal, message: 'Internal' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const base = { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}` };

  // Completions and webhooks happen even when nobody polls; the timer never keeps the process alive.
  const ticker = setInterval(tick, 100);
  ticker.unref();
  let warming: NodeJS.Immediate | undefined;
  if (options.warmImagePool) {
    const slots = (Object.keys(IMAGE_SLOTS) as ImageSlot[]).flatMap((slot) =>
      Array.from({ length: POOL_VARIANTS }, (_, v) => [slot, v] as const),
    );
    const next = () => {
      const item = slots.shift();
      if (!item) return;
      pooledImage(item[0], item[1]);
      warming = setImmediate(next);
      warming.unref();
    };
    warming = setImmediate(next);
    warming.unref();
  }

  return {
    url: base.url,
    port,
    seed,
    environment,
    requests,
    control,
    close: async () => {
      clearInterval(ticker);
      if (warming) clearImmediate(warming);
      webhooks.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Throws a `TypeError` naming the option unless `url` is absent or an `http:`/`https:` address. */
function checkWebhookUrl(name: string, url: string | undefined): void {
  if (url === undefined) return;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    throw new TypeError(`${name} must be an http:// or https:// URL, got "${url}"`);
  }
}

function exact(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  // Compare equal-length buffers so the time does not reveal the matching prefix.
  return ab.length === bb.length ? timingSafeEqual(ab, bb) : timingSafeEqual(bb, bb) && false;
}

/**
 * The SDK token query as the schema expects it. Tolerant like the service likely is: snake_case names,
 * `services` repeated or comma-separated; unknown names are ignored.
 */
function sdkQuery(q: URLSearchParams): Record<string, unknown> {
  const get = (camel: string, snake: string) => q.get(camel) ?? q.get(snake) ?? undefined;
  const services = [...q.getAll('services'), ...q.getAll('services[]')]
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const out: Record<string, unknown> = { services };
  const challenges = get('numberOfChallenges', 'number_of_challenges');
  if (challenges !== undefined)
    out.numberOfChallenges = /^-?[0-9]+$/.test(challenges) ? Number(challenges) : challenges;
  const ref = get('customerReference', 'customer_reference');
  if (ref !== undefined) out.customerReference = ref;
  const watermark = get('validateWatermark', 'validate_watermark');
  if (watermark !== undefined) {
    out.validateWatermark = watermark === 'true' ? true : watermark === 'false' ? false : watermark;
  }
  return out;
}

/** Quality verdict from the pixels: unreadable → TECHNICAL_REJECT, too small → DISAPPROVED. */
function qualityOf(images: Buffer[]): { result: string; message?: string } {
  for (const bytes of images) {
    const dims = imageDimensions(bytes);
    if (!dims) return { result: 'TECHNICAL_REJECT', message: 'The image is not a readable JPEG or PNG.' };
    if (dims.width < MIN_UPLOAD_WIDTH || dims.height < MIN_UPLOAD_HEIGHT) {
      return { result: 'DISAPPROVED', message: 'The image resolution is too low.' };
    }
  }
  return { result: 'APPROVED' };
}

/** A response body already serialised as JSON, in pieces. */
class JsonParts {
  constructor(readonly parts: Buffer[]) {}
}

const PLACEHOLDER_NONCE = randomBytes(8).toString('hex');
const PLACEHOLDER_RE = new RegExp(`"__sim_image_${PLACEHOLDER_NONCE}_(\\d+)__"`, 'g');

/**
 * Serialises a result with its (pooled, multi-megabyte) image data spliced in as cached bytes: plain
 * `JSON.stringify` would scan every base64 character on every request. The nonce keeps placeholders from
 * colliding with caller-supplied strings such as a customerReference.
 */
function serializeResult(doc: VerificationResultDocument): JsonParts {
  const images = doc.images ?? [];
  const stripped = {
    ...doc,
    images: images.map((img, k) => ({ ...img, data: `__sim_image_${PLACEHOLDER_NONCE}_${k}__` })),
  };
  const json = JSON.stringify(stripped);
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of json.matchAll(PLACEHOLDER_RE)) {
    parts.push(Buffer.from(json.slice(last, m.index), 'utf8'));
    parts.push(jsonStringBytes(images[Number(m[1])]!.data));
    last = m.index + m[0].length;
  }
  parts.push(Buffer.from(json.slice(last), 'utf8'));
  return new JsonParts(parts);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError({ status: 413, code: CODE.invalidArgument, message: 'Request body too large' }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, payload: unknown, truncate = false): void {
  const body =
    payload instanceof JsonParts ? Buffer.concat(payload.parts) : Buffer.from(JSON.stringify(payload));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(body.length) });
  if (truncate) {
    // Promise the full length, send half, then cut the connection: the client sees a short body.
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
    return;
  }
  res.end(body);
}

function sendError(res: ServerResponse, error: ApiError, truncate = false): void {
  for (const [k, v] of Object.entries(error.headers ?? {})) res.setHeader(k, v);
  sendJson(
    res,
    error.status,
    { code: error.code, message: error.message, details: error.details ?? [] },
    truncate,
  );
}
