/**
 * One token refresh for many cold starts: before asking the service for a token, a container takes a
 * short lease on the cache secret's current version. Secrets Manager is the lock, through two documented
 * behaviours of `PutSecretValue`: the `ClientRequestToken` becomes the new version's id, and a second put
 * with the same token but a different value fails with `ResourceExistsException`. Every container that
 * finds version V stale derives the same token from V, so exactly one creates the lease version; it is
 * labelled with a stage of its own, so AWSCURRENT (the cached token) is untouched. The others re-read the
 * cache until AWSCURRENT moves to a usable token, until the holder reports that its refresh failed (then
 * they fail at once with its error instead of asking the service again), or until the lease's time is up
 * (its holder died): then the next lease attempt on V elects one of them.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { sleep as timerSleep } from '../client/http';

/** Staging label of lease versions (never AWSCURRENT, so readers of the cache never see one). */
export const LEASE_STAGE = 'IDV_TOKEN_REFRESH_LEASE';

/** Staging label of the versions in which a holder reports its failed refresh. */
export const LEASE_FAILED_STAGE = 'IDV_TOKEN_REFRESH_FAILED';

/**
 * What a holder whose refresh failed tells the waiters: the error's class name, our message (never a
 * body's text: the client's errors carry none) and the status, if the service answered.
 */
export interface LeaseFailure {
  readonly name: string;
  readonly message: string;
  readonly status?: number;
}

/** Tunables of the refresh lease. */
export interface RefreshLeaseOptions {
  /** How long the others wait for the holder's token before electing another holder. @default 10000 */
  readonly waitMs?: number;
  /** Pause between two reads of the cache while waiting. @default 250 */
  readonly pollMs?: number;
  /** Lease attempts per cache version before a container asks the service itself. @default 3 */
  readonly attempts?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Clock of the wait (real time even when the token clock is faked). @default Date.now */
  readonly now?: () => number;
}

/** The outcome of {@link RefreshLease.acquire}: refresh yourself, or use the token another container wrote. */
export type LeaseOutcome<T> =
  | { readonly kind: 'held' }
  | { readonly kind: 'refreshed'; readonly token: T }
  | { readonly kind: 'failed'; readonly failure: LeaseFailure }
  | { readonly kind: 'no-lease' };

/** The cache as the lease sees it: the current token (if usable for us) and its version. */
export interface CacheView<T> {
  readonly token?: T;
  readonly versionId?: string;
}

/** Version id of lease attempt `attempt` on cache version `generation` (32-64 characters, as required). */
export function leaseVersionId(generation: string, attempt: number): string {
  return `lease-${createHash('sha256').update(generation).digest('hex').slice(0, 40)}-${attempt}`;
}

/** Version id of the failure report of lease attempt `attempt` on cache version `generation`. */
export function leaseFailureVersionId(generation: string, attempt: number): string {
  return `failed-${createHash('sha256').update(generation).digest('hex').slice(0, 40)}-${attempt}`;
}

/** Elects one refresher per stale cache version among every container sharing the cache secret. */
export class RefreshLease {
  readonly #secrets: SecretsManagerClient;
  readonly #secretId: string;
  readonly #waitMs: number;
  readonly #pollMs: number;
  readonly #attempts: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  /** Attempts this container already used per generation: a retry after a failed refresh takes the next. */
  readonly #used = new Map<string, number>();

  constructor(secrets: SecretsManagerClient, secretId: string, options: RefreshLeaseOptions = {}) {
    this.#secrets = secrets;
    this.#secretId = secretId;
    this.#waitMs = options.waitMs ?? 10_000;
    this.#pollMs = options.pollMs ?? 250;
    this.#attempts = options.attempts ?? 3;
    this.#sleep = options.sleep ?? timerSleep;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Takes the lease on `generation` (the stale cache version) or waits for the token its holder writes.
   * `read` re-reads the cache and returns a token only when it is usable for the caller.
   */
  async acquire<T>(generation: string, read: () => Promise<CacheView<T>>): Promise<LeaseOutcome<T>> {
    for (let attempt = (this.#used.get(generation) ?? 0) + 1; attempt <= this.#attempts; attempt++) {
      const taken = await this.#tryTake(generation, attempt);
      if (taken === 'error') return { kind: 'no-lease' };
      if (taken === 'taken') {
        this.#used.set(generation, attempt);
        return { kind: 'held' };
      }
      const deadline = (await this.#takenAt(generation, attempt)) + this.#waitMs;
      while (this.#now() < deadline) {
        const failure = await this.#failure(generation, attempt);
        // The holder asked and failed: asking again now would most likely fail the same way.
        if (failure) return { kind: 'failed', failure };
        await this.#sleep(this.#pollMs);
        const view = await read();
        if (view.token !== undefined && view.versionId !== generation)
          return { kind: 'refreshed', token: view.token };
      }
    }
    return { kind: 'no-lease' };
  }

  /**
   * Called by the holder of the lease on `generation` when its refresh failed: the waiters fail with
   * `failure` at once instead of waiting the lease out. Best effort: if the report cannot be written, the
   * waiters fall back to the lease's time.
   */
  async fail(generation: string, failure: LeaseFailure): Promise<void> {
    const attempt = this.#used.get(generation);
    if (attempt === undefined) return;
    try {
      await this.#secrets.send(
        new PutSecretValueCommand({
          SecretId: this.#secretId,
          ClientRequestToken: leaseFailureVersionId(generation, attempt),
          SecretString: JSON.stringify({ failure, failedAt: new Date(this.#now()).toISOString() }),
          VersionStages: [LEASE_FAILED_STAGE],
        }),
      );
    } catch {
      // Nothing to do: the waiters wait out the lease as they would for a holder that died.
    }
  }

  /** The failure reported by the holder of lease attempt `attempt`, if it reported one. */
  async #failure(generation: string, attempt: number): Promise<LeaseFailure | undefined> {
    try {
      const report = await this.#secrets.send(
        new GetSecretValueCommand({
          SecretId: this.#secretId,
          VersionId: leaseFailureVersionId(generation, attempt),
        }),
      );
      const failure = (JSON.parse(report.SecretString ?? '{}') as { failure?: Partial<LeaseFailure> })
        .failure;
      if (typeof failure?.name !== 'string' || typeof failure.message !== 'string') return undefined;
      return {
        name: failure.name,
        message: failure.message,
        ...(typeof failure.status === 'number' && { status: failure.status }),
      };
    } catch {
      // No report (ResourceNotFoundException), or it cannot be read: keep waiting.
      return undefined;
    }
  }

  /** When the holder took the lease (its own clock), so every waiter gives up at the same moment. */
  async #takenAt(generation: string, attempt: number): Promise<number> {
    try {
      const lease = await this.#secrets.send(
        new GetSecretValueCommand({
          SecretId: this.#secretId,
          VersionId: leaseVersionId(generation, attempt),
        }),
      );
      const takenAt = Date.parse(
        (JSON.parse(lease.SecretString ?? '{}') as { takenAt?: string }).takenAt ?? '',
      );
      // Never later than now: a holder's clock ahead of ours must not make us wait longer.
      return Number.isNaN(takenAt) ? this.#now() : Math.min(takenAt, this.#now());
    } catch {
      return this.#now();
    }
  }

  async #tryTake(generation: string, attempt: number): Promise<'taken' | 'held-by-other' | 'error'> {
    try {
      await this.#secrets.send(
        new PutSecretValueCommand({
          SecretId: this.#secretId,
          ClientRequestToken: leaseVersionId(generation, attempt),
          // A value of our own: the same token with another holder's value is refused.
          SecretString: JSON.stringify({ lease: randomUUID(), takenAt: new Date(this.#now()).toISOString() }),
          VersionStages: [LEASE_STAGE],
        }),
      );
      return 'taken';
    } catch (error) {
      // Any other failure (no permission, throttling): without a lease the caller simply refreshes itself.
      return (error as { name?: string }).name === 'ResourceExistsException' ? 'held-by-other' : 'error';
    }
  }
}
