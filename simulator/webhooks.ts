/**
 * Delivery of the result and upload webhooks: a JSON POST, retried with capped exponential backoff
 * when the receiver answers non-2xx or cannot be reached, up to a bounded number of attempts.
 * Backoff has no jitter so a run repeats.
 */

/** Retry settings of webhook deliveries. */
export interface WebhookRetryOptions {
  /** Attempts in total, including the first. @default 5 */
  maxAttempts?: number;
  /** Delay before the second attempt; doubles per attempt. @default 250 */
  initialDelayMs?: number;
  /** Upper bound of the delay. @default 5000 */
  maxDelayMs?: number;
  /** Timeout of one attempt. @default 5000 */
  timeoutMs?: number;
}

/** Counts of webhook deliveries. */
export interface WebhookCounts {
  /** Deliveries that ended with a 2xx. */
  sent: number;
  /** Attempts that failed (non-2xx or network). */
  failed: number;
  /** Deliveries abandoned after the last attempt. */
  gaveUp: number;
  /** Attempts in total. */
  attempts: number;
}

/** Sends webhooks in the background and tracks them so tests can wait until all are done. */
export class WebhookSender {
  readonly counts: WebhookCounts = { sent: 0, failed: 0, gaveUp: 0, attempts: 0 };
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly retry: Required<WebhookRetryOptions>;

  constructor(retry: WebhookRetryOptions = {}) {
    this.retry = {
      maxAttempts: retry.maxAttempts ?? 5,
      initialDelayMs: retry.initialDelayMs ?? 250,
      maxDelayMs: retry.maxDelayMs ?? 5000,
      timeoutMs: retry.timeoutMs ?? 5000,
    };
  }

  /** Starts delivering `body` to `url`; returns at once. */
  send(url: string, body: unknown): void {
    const p = this.deliver(url, JSON.stringify(body)).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Resolves when every delivery started so far (and its retries) has finished. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Number of deliveries not finished yet. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Abandons every delivery (used on shutdown). */
  close(): void {
    this.abort.abort();
  }

  private async deliver(url: string, payload: string): Promise<void> {
    for (let attempt = 1; attempt <= this.retry.maxAttempts; attempt++) {
      if (this.abort.signal.aborted) return;
      this.counts.attempts++;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'idv-simulator-webhook/1' },
          body: payload,
          signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.retry.timeoutMs)]),
        });
        // Drain the body so the connection can be reused.
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) {
          this.counts.sent++;
          return;
        }
      } catch {
        // Network failure or timeout: retried like a non-2xx answer.
      }
      this.counts.failed++;
      if (attempt === this.retry.maxAttempts) break;
      const delay = Math.min(this.retry.maxDelayMs, this.retry.initialDelayMs * 2 ** (attempt - 1));
      await sleep(delay, this.abort.signal);
    }
    if (!this.abort.signal.aborted) this.counts.gaveUp++;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
