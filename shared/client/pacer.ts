/**
 * The service client's pace, shared by every request of one client (in a Lambda container: every record
 * in flight). Two rules, one gate:
 *
 * - a steady pace: with `ratePerSecond`, requests leave at least `1000 / ratePerSecond` ms apart, so the
 *   container stays within its share of the service's rate (docs/deploy.md, "Service rate and concurrency");
 * - a hold: a 429 (or 503) with `Retry-After` tells the service's wait to the whole client
 *   (`holdOff`), so one 429 slows every record in flight instead of each finding out on its own.
 *
 * Which errors hold the client, and for how long, is the retry policy's call (`holdOffMs` in
 * `retry.ts`); the pacer only keeps time. Its clock and sleep are injected, so it is tested without
 * timers.
 */

/** Options of {@link RequestPacer}. */
export interface PacerOptions {
  /** Requests per second this client may send; undefined: no steady pace, only holds. */
  readonly ratePerSecond?: number | undefined;
  /** Clock (epoch ms). @default Date.now */
  readonly now?: () => number;
  /** @default setTimeout-based */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** What {@link RequestPacer.stats} counts. */
export interface PacerStats {
  /** Requests let through. */
  readonly sent: number;
  /** Holds asked for (`holdOff` calls that moved the gate). */
  readonly holds: number;
  /** Total ms requests waited at the gate. */
  readonly waitedMs: number;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A per-client "not before" gate with an optional steady pace. */
export class RequestPacer {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  /** Earliest time of the next request by the steady pace. */
  #nextSlot = Number.NEGATIVE_INFINITY;
  /** No request before this time: the service's last `Retry-After`. */
  #heldUntil = Number.NEGATIVE_INFINITY;
  #sent = 0;
  #holds = 0;
  #waitedMs = 0;

  constructor(options: PacerOptions = {}) {
    const rate = options.ratePerSecond;
    if (rate !== undefined && !(rate > 0 && Number.isFinite(rate))) {
      throw new RangeError('ratePerSecond must be a positive number');
    }
    this.#intervalMs = rate === undefined ? 0 : 1000 / rate;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? defaultSleep;
  }

  /** Epoch ms from which a request may leave (now or later). */
  openAt(): number {
    return Math.max(this.#now(), this.#nextSlot, this.#heldUntil);
  }

  /**
   * Waits for the gate, then takes the slot. Returns false, without taking a slot or waiting, when the gate
   * opens at or after `deadlineMs`: the caller's budget ends first. Waiters re-check after each sleep, so a
   * hold that arrives while they sleep keeps them back too.
   */
  async acquire(deadlineMs?: number): Promise<boolean> {
    for (;;) {
      const now = this.#now();
      const at = this.openAt();
      if (deadlineMs !== undefined && at >= deadlineMs) return false;
      if (at <= now) {
        this.#nextSlot = now + this.#intervalMs;
        this.#sent++;
        return true;
      }
      this.#waitedMs += at - now;
      await this.#sleep(at - now);
    }
  }

  /** The service asked for `ms` of quiet: no request of this client leaves before now + `ms`. */
  holdOff(ms: number): void {
    if (!(ms > 0)) return;
    const until = this.#now() + ms;
    if (until <= this.#heldUntil) return;
    this.#heldUntil = until;
    this.#holds++;
  }

  /** Counters since the pacer was made. */
  stats(): PacerStats {
    return { sent: this.#sent, holds: this.#holds, waitedMs: this.#waitedMs };
  }
}
