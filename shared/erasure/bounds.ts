/**
 * How long each copy of a result that an erasure cannot delete at once may outlive it, and the receipt
 * that says so (docs/erasure.md): the one place these bounds are set. The stack configures its stores
 * from them (PITR recovery period, lifecycle rules of the analytics bucket, Iceberg snapshot retention and
 * orphan-file deletion, the event archive), publishes them as the `ErasureBounds` output, and the erasure
 * turns them into the receipt it stores and announces — per store `erased` (gone when the erasure ended)
 * or `expiresBy` (the latest moment a copy out of its reach is gone) — so the receipt names what the
 * stack really does.
 */

import { PipelineError } from '../errors';
import type { ErasedNow, ErasureReceipt, ExpiresBy } from '../store/erasure-receipt';

/** Days each delayed copy may live; every one is a whole number of days. */
export interface CopyBounds {
  /**
   * Days DynamoDB point-in-time recovery can restore the results table to (`RecoveryPeriodInDays`, 1–35):
   * an erased item stays restorable from the backups for this long.
   */
  readonly tableRecoveryDays: number;
  /** Days Athena's query results (`athena-results/` of the analytics bucket) are kept. */
  readonly queryResultsDays: number;
  /** Days Firehose's failed records (`delivery-errors/` of the analytics bucket) are kept. */
  readonly deliveryErrorsDays: number;
  /** Days the Iceberg table keeps old snapshots (time travel) before their files are removed. */
  readonly snapshotRetentionDays: number;
  /** Days an Iceberg file no snapshot names (an aborted write) is kept before it is removed. */
  readonly orphanFileDays: number;
  /**
   * Days the event archive keeps the result events for replay. They carry identifiers, results and times,
   * no personal data, unless `eventCustomerReference` is `include` (then the customer reference too).
   */
  readonly eventArchiveDays: number;
}

/**
 * The defaults: a week at most, the orphan files Glue's own default. The archive's default is a week too
 * when the retention is unknown; a stack keeps its events as long as its results (see
 * {@link resolveCopyBounds}), since they hold no personal data by default and a replay needs them.
 */
export const DEFAULT_COPY_BOUNDS: CopyBounds = {
  tableRecoveryDays: 7,
  queryResultsDays: 7,
  deliveryErrorsDays: 7,
  snapshotRetentionDays: 7,
  orphanFileDays: 3,
  eventArchiveDays: 7,
};

/** The allowed range of each bound (DynamoDB takes 1–35 recovery days; the others need at least one). */
const LIMITS: Record<keyof CopyBounds, readonly [number, number]> = {
  tableRecoveryDays: [1, 35],
  queryResultsDays: [1, 3650],
  deliveryErrorsDays: [1, 3650],
  snapshotRetentionDays: [1, 3650],
  orphanFileDays: [1, 3650],
  eventArchiveDays: [1, 3650],
};

/**
 * Days a store may take past its bound to remove what expired: S3 lifecycle rules, Glue's optimizers and
 * the event archive delete lazily (the same grace as the retention check's). PITR needs none: its
 * window is exact.
 */
export const LAZY_REMOVAL_DAYS = 2;

/** A bound that breaks its range, naming it. */
export class CopyBoundsError extends PipelineError {
  override readonly name = 'CopyBoundsError';
}

/**
 * The bounds of a deployment: `given` over the defaults, each checked (a whole number in its range).
 * With `retentionDays` (the results' retention), the archive keeps events that long by default, and the
 * two analytics prefixes' defaults are capped by it, so a stack that keeps results for fewer days does not
 * keep query results or failed records longer than the results themselves.
 */
export function resolveCopyBounds(given: Partial<CopyBounds> = {}, retentionDays?: number): CopyBounds {
  const capped = (days: number) => (retentionDays === undefined ? days : Math.min(days, retentionDays));
  const bounds: CopyBounds = {
    ...DEFAULT_COPY_BOUNDS,
    queryResultsDays: capped(DEFAULT_COPY_BOUNDS.queryResultsDays),
    deliveryErrorsDays: capped(DEFAULT_COPY_BOUNDS.deliveryErrorsDays),
    eventArchiveDays: retentionDays ?? DEFAULT_COPY_BOUNDS.eventArchiveDays,
    ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)),
  };
  for (const name of Object.keys(LIMITS) as (keyof CopyBounds)[]) {
    const value = bounds[name];
    const [min, max] = LIMITS[name];
    if (!Number.isInteger(value) || value < min || value > max)
      throw new CopyBoundsError(`copyBounds.${name} must be a whole number of days from ${min} to ${max}`);
  }
  for (const name of Object.keys(given))
    if (!(name in LIMITS)) throw new CopyBoundsError(`copyBounds.${name} is not a bound`);
  return bounds;
}

/** The bounds as the stack output `ErasureBounds` carries them (JSON). */
export function formatCopyBounds(bounds: CopyBounds): string {
  return JSON.stringify(bounds);
}

/** The stack output `ErasureBounds` read back (a bad one is refused with its reason). */
export function parseCopyBounds(text: string): CopyBounds {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new CopyBoundsError('the ErasureBounds output is not JSON', { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CopyBoundsError('the ErasureBounds output is not an object');
  const given = parsed as Partial<CopyBounds>;
  for (const name of Object.keys(LIMITS) as (keyof CopyBounds)[])
    if (given[name] === undefined) throw new CopyBoundsError(`the ErasureBounds output lacks ${name}`);
  return resolveCopyBounds(given);
}

/** Where the erasure ran. */
export interface ReceiptScope {
  /** The local run: every store is erased at once (no backups, archive or query results). */
  readonly local: boolean;
  /** The deployment has the analytics projection. */
  readonly analytics: boolean;
  /** The deployment's bounds (AWS). */
  readonly bounds: CopyBounds;
}

/** `erasedAt` plus `days` (and the lazy stores' lag), as ISO 8601. */
function after(erasedAt: string, days: number, lag: number): ExpiresBy {
  return { expiresBy: new Date(Date.parse(erasedAt) + (days + lag) * 86_400_000).toISOString() };
}

/** The receipt of an erasure that ended at `erasedAt`. */
export function erasureReceipt(erasedAt: string, scope: ReceiptScope): ErasureReceipt {
  const now: ErasedNow = { erased: true };
  if (scope.local) return { dataBucket: now, tables: now, analyticsRow: now, localFiles: now };
  const { bounds } = scope;
  return {
    dataBucket: now,
    tables: now,
    // The recovery window is exact: a restore can reach back this far, and no further.
    tableBackups: after(erasedAt, bounds.tableRecoveryDays, 0),
    eventArchive: after(erasedAt, bounds.eventArchiveDays, LAZY_REMOVAL_DAYS),
    ...(scope.analytics && {
      analyticsRow: now,
      // A snapshot older than the retention is expired with its files; a file no snapshot names goes
      // after the orphan period: the later of the two.
      analyticsSnapshots: after(
        erasedAt,
        Math.max(bounds.snapshotRetentionDays, bounds.orphanFileDays),
        LAZY_REMOVAL_DAYS,
      ),
      queryResults: after(erasedAt, bounds.queryResultsDays, LAZY_REMOVAL_DAYS),
      deliveryErrors: after(erasedAt, bounds.deliveryErrorsDays, LAZY_REMOVAL_DAYS),
    }),
  };
}
