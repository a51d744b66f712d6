/**
 * Public types of the simulator: its options, what a started simulator exposes (controls, stats, the
 * recorded requests). `simulator/server.ts` re-exports them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { CommunicationStatus, MockTestValue, Product, ServiceEnvironment } from '../shared/api/enums';
import type { FaultCounts, FaultOptions, ResultFault } from './faults';
import type { ResultControls } from './result-checks';
import type { WebhookCounts, WebhookRetryOptions } from './webhooks';

/** Options of `startSimulator` (`simulator/server.ts`). */
export interface SimulatorOptions {
  clientId: string;
  clientSecret: string;
  /** `mock-test` is honoured on staging only. @default 'staging' */
  environment?: ServiceEnvironment;
  /** @default '127.0.0.1' */
  host?: string;
  /**
   * When set, `/__sim/*` answers only requests carrying it in the `x-idv-sim-control` header (the
   * simulator of `npm start`, whose port another user of the machine reaches too). @default none
   */
  controlSecret?: string;
  /** @default 0 (a free port) */
  port?: number;
  /**
   * Keep the state in this directory across restarts (`simulator/persisted-state.ts`): pending
   * transactions stay pending, links keep working, results stay retrievable. @default none (in memory)
   */
  stateDir?: string;
  /**
   * Seed of the content: outcomes, fake data, images and faults. Never of ids, which always come from
   * `node:crypto`. @default a random seed (see `RunningSimulator.seed`)
   */
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
  /**
   * Users of the account (§2.2: a `userId` must name one); any other `userId` is a 400 with the default
   * error body. @default [defaultUserId]
   */
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
  /**
   * Refuse a token that lacks the scope an endpoint needs (403, code 7 `PermissionDenied`); endpoints
   * without a known scope take any live token. @default false in process (tests that are not about
   * scopes need not know them); `npm run simulator` turns it on.
   */
  enforceScopes?: boolean;
  /**
   * The customer setting of the driving license workflow (§4.1, §4.5): when on, an additional
   * DRIVING_LICENSE document of an RTW_STANDARD/RTW_PREMIUM transaction yields a `drivingLicense`
   * section; when off, no such section appears. @default true
   */
  drivingLicenseCheck?: boolean;
  /**
   * Outcome of every transaction completed without `mock-test` (one of the `mock-test` values).
   * @default a seeded mix of all of them
   */
  outcome?: MockTestValue;
  /**
   * Secure links wait for their end user in the browser (the hosted flow at the link, see
   * `simulator/hosted-flow.ts`) instead of a simulated end user who uploads half-way and completes
   * after `completionDelayMs`. @default false; `npm run simulator -- --links-await-browser` turns it on.
   */
  linksAwaitBrowser?: boolean;
  /** Receives debug lines (e.g. request fields that were ignored). @default none */
  onDebug?: (message: string) => void;
  /** Wall clock; the virtual clock adds `advanceTime` offsets to it. @default Date.now */
  now?: () => number;
}

/** What a start found of an earlier run's state in `stateDir` (`simulator/persisted-state.ts`). */
export interface RestoredState {
  transactions: number;
  /** Transactions not completed yet (pending, or waiting for an upload or their end user). */
  open: number;
  /** Results still retrievable. */
  results: number;
  /** Problems met and repaired (a damaged file moved aside, a result whose document was missing). */
  notes: string[];
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

/** One kind of seeded transaction and how many of it. */
export interface SeedGroup {
  readonly count: number;
  /**
   * `vog`: a VOG request (§4.12), a result without images (a few KB); `secureLink`: a secure link created
   * with `mockTest` (§4.1), whose result carries that outcome's images (0.5–2 MB).
   */
  readonly kind: 'vog' | 'secureLink';
  /** Product of a secure link. @default 'IDV_STANDARD' */
  readonly product?: Product;
  /** The `mock-test` outcome of a secure link. @default 'APPROVED' */
  readonly mockTest?: MockTestValue;
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
  /** The first `fetches` GET /result of one transaction's results go wrong (`fetches: 0` removes it). */
  setResultFault(fault: ResultFault): void;
  /** The one-time accept token of a FaceLink transaction (normally sent to the end user). */
  faceLinkToken(transactionId: string): string | undefined;
  /** Result ids of a transaction (empty until it completes). */
  resultIdsOf(transactionId: string): string[];
  stats(): SimulatorStats;
  /** Resolves when every webhook delivery started so far has finished (incl. retries). */
  webhooksIdle(): Promise<void>;
  /** The virtual clock (epoch ms). */
  now(): number;
  /**
   * Creates and completes many transactions at once (`simulator/seed.ts`): a backlog of pending results
   * without the create requests. Returns their resultIds.
   */
  seed(groups: readonly SeedGroup[]): string[];
  /**
   * Forces what the `mock-test` values never produce on one open transaction's result (an UNKNOWN result,
   * a check that HIT or was NOT_EXECUTED, NOT_APPLICABLE features, `digitalSigning`); see
   * `simulator/result-checks.ts`. Throws `HttpError` 404/409 for an unknown or completed transaction.
   */
  setTransactionControls(transactionId: string, controls: ResultControls): void;
  /** Status of every message the next secure links send (§2.3 `communicationsResponse`). */
  setCommunicationStatus(status: CommunicationStatus): void;
  /** Completes one transaction now (pending or waiting for its end user); returns its resultId. */
  completeTransaction(transactionId: string): string;
  /**
   * Changes a completed transaction's verdict as a manual review would, and announces it in one of the
   * two shapes of `simulator/overturn.ts`. Throws `HttpError` 404/409 for an unknown or open transaction.
   */
  overturn(request: OverturnRequest): OverturnOutcome;
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
  /** What the start found in `stateDir` of an earlier run (undefined: nothing, or no `stateDir`). */
  restored?: RestoredState;
}

/** The two shapes of an overturned verdict (`simulator/overturn.ts`). */
export const OVERTURN_SHAPES = ['new-result', 'same-result'] as const;
export type OverturnShape = (typeof OVERTURN_SHAPES)[number];

/** What to overturn, and how (`SimulatorControl.overturn`). */
export interface OverturnRequest {
  readonly transactionId: string;
  /** The outcome after the review. @default 'DISAPPROVED' */
  readonly outcome?: MockTestValue;
  /** @default 'same-result' */
  readonly shape?: OverturnShape;
}

/** What an overturn did. */
export interface OverturnOutcome {
  readonly transactionId: string;
  readonly shape: OverturnShape;
  /** The resultId that now holds the new verdict. */
  readonly resultId: string;
  /** The resultId that held the verdict before. */
  readonly previousResultId: string;
  readonly result: string | undefined;
  readonly previousResult: string | undefined;
  /** The new `completed` of the announcement (ISO 8601 UTC). */
  readonly completed: string;
}
