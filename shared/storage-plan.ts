/**
 * Which S3 storage class each stored result object should end its retention in (docs/storage.md): the
 * class that costs least for what is left of the retention, among those that read at once — Standard,
 * Standard-IA, Glacier Instant Retrieval and Intelligent-Tiering's instant tiers; never a class that
 * needs a restore. Pure arithmetic at list prices: the data bucket's lifecycle rules come from
 * {@link storagePlan}, the bench's cost model prices the same plan with {@link objectCost}.
 */

/** The classes a GET reads at once (milliseconds), so readers never see a difference. */
export const INSTANT_STORAGE_CLASSES = [
  'STANDARD',
  'STANDARD_IA',
  'GLACIER_IR',
  'INTELLIGENT_TIERING',
] as const;

/** One of {@link INSTANT_STORAGE_CLASSES}. */
export type InstantStorageClass = (typeof INSTANT_STORAGE_CLASSES)[number];

/** A class a lifecycle rule moves objects into (Standard is where every object is written). */
export type TransitionClass = Exclude<InstantStorageClass, 'STANDARD'>;

/** What one class costs (USD). */
export interface ClassPrices {
  /** Storage per GB-month (Intelligent-Tiering: its Frequent Access tier). */
  readonly gbMonth: number;
  /** One GET. */
  readonly get: number;
  /** Data retrieval per GB read. */
  readonly retrievalGb: number;
  /** One lifecycle transition request into the class (none for Standard). */
  readonly transition: number;
  /** Days billed at least once an object is in the class (an earlier delete pays the rest). */
  readonly minDays: number;
  /** Bytes billed at least per object. */
  readonly minBytes: number;
}

/** S3 list prices of the instant classes, and the Intelligent-Tiering tiers and monitoring. */
export interface S3StoragePrices {
  readonly region: string;
  /** When the prices were taken from their page. */
  readonly date: string;
  readonly source: string;
  readonly classes: Readonly<Record<InstantStorageClass, ClassPrices>>;
  /** Intelligent-Tiering: Infrequent Access tier (after 30 days unread) and Archive Instant Access (after 90). */
  readonly intelligentTiering: {
    readonly infrequentGbMonth: number;
    readonly archiveInstantGbMonth: number;
    /** Monitoring and automation per object-month, objects of at least `monitoredBytes`. */
    readonly monitoringObjectMonth: number;
    /** Smaller objects are not monitored: they stay in the Frequent Access tier. */
    readonly monitoredBytes: number;
  };
}

const KIB = 1024;
/** Bytes in a GB as AWS bills them (2^30). */
export const GB = 1024 ** 3;
/** Days in the average month (S3 bills storage per GB-month). */
export const DAYS_PER_MONTH = 365 / 12;

/**
 * us-east-1 list prices (first 50 TB tier), from the Amazon S3 pricing page ("Storage", "Requests &
 * data retrievals": lifecycle transition requests, data retrieval per GB) and the S3 User Guide's
 * storage class table (minimum duration, minimum billable object size). As of 2025-11, the date of
 * every price in bench/support/prices.ts; check the page before quoting a figure.
 */
export const S3_STORAGE_PRICES: S3StoragePrices = {
  region: 'us-east-1',
  date: '2025-11',
  source: 'https://aws.amazon.com/s3/pricing/',
  classes: {
    STANDARD: { gbMonth: 0.023, get: 0.0004 / 1e3, retrievalGb: 0, transition: 0, minDays: 0, minBytes: 0 },
    STANDARD_IA: {
      gbMonth: 0.0125,
      get: 0.001 / 1e3,
      retrievalGb: 0.01,
      transition: 0.01 / 1e3,
      minDays: 30,
      minBytes: 128 * KIB,
    },
    GLACIER_IR: {
      gbMonth: 0.004,
      get: 0.01 / 1e3,
      retrievalGb: 0.03,
      transition: 0.02 / 1e3,
      minDays: 90,
      minBytes: 128 * KIB,
    },
    INTELLIGENT_TIERING: {
      gbMonth: 0.023,
      get: 0.0004 / 1e3,
      retrievalGb: 0,
      transition: 0.01 / 1e3,
      minDays: 0,
      minBytes: 0,
    },
  },
  intelligentTiering: {
    infrequentGbMonth: 0.0125,
    archiveInstantGbMonth: 0.004,
    monitoringObjectMonth: 0.0025 / 1e3,
    monitoredBytes: 128 * KIB,
  },
};

/** Days without access before Intelligent-Tiering moves an object to Infrequent, then Archive Instant Access. */
const IT_INFREQUENT_AFTER_DAYS = 30;
const IT_ARCHIVE_INSTANT_AFTER_DAYS = 90;
/** S3 refuses a lifecycle transition to Standard-IA earlier than this many days after creation. */
export const STANDARD_IA_EARLIEST_DAY = 30;

/** Where an object spends its life: written in Standard, moved to `storageClass` after `transitionDay` days. */
export interface StorageOption {
  readonly storageClass: InstantStorageClass;
  /** Days after creation of the lifecycle transition (ignored for Standard). */
  readonly transitionDay: number;
}

/** How long an object lives and how it is read after its first days. */
export interface ObjectLife {
  /** Days from the write to the removal of its last version (retention, midnight rounding, noncurrent days). */
  readonly lifeDays: number;
  /** Full reads of the object after `transitionDay`: each pays the class's GET and retrieval. */
  readonly lateReads: number;
  /** The day every version is deleted before `lifeDays` (an erasure): the class's minimum duration still bills. */
  readonly deletedAtDay?: number;
}

/** An object's cost (USD) under one option, by kind. */
export interface ObjectCost {
  readonly storage: number;
  readonly transition: number;
  readonly reads: number;
  readonly total: number;
}

/**
 * What one object of `bytes` costs over `life` under `option`, beyond its PUT and the reads of its first
 * days (the same under every option): storage in Standard until the transition, then in the class
 * (at least its minimum bytes, at least its minimum days once moved, even when deleted earlier), the
 * transition request, and each late read's GET and retrieval. Intelligent-Tiering starts in its
 * Frequent tier, moves an object unread for 30 days to Infrequent and unread for 90 to Archive Instant
 * Access, monitors objects of 128 KiB or more (smaller ones stay Frequent) and charges no retrieval; a
 * late read brings the object back to Frequent for 30 days.
 */
export function objectCost(
  bytes: number,
  option: StorageOption,
  life: ObjectLife,
  prices: S3StoragePrices = S3_STORAGE_PRICES,
): ObjectCost {
  const standard = prices.classes.STANDARD;
  const end = Math.min(life.lifeDays, life.deletedAtDay ?? Number.POSITIVE_INFINITY);
  const gb = bytes / GB;
  const monthly = (gbMonth: number, days: number, billedGb = gb) =>
    billedGb * gbMonth * (days / DAYS_PER_MONTH);
  const readsIn = (c: ClassPrices) => life.lateReads * (c.get + gb * c.retrievalGb);
  if (option.storageClass === 'STANDARD' || end <= option.transitionDay) {
    const storage = monthly(standard.gbMonth, end);
    const reads = readsIn(standard);
    return { storage, transition: 0, reads, total: storage + reads };
  }
  const c = prices.classes[option.storageClass];
  const inStandard = monthly(standard.gbMonth, option.transitionDay);
  const daysIn = Math.max(end - option.transitionDay, c.minDays);
  let inClass: number;
  let reads = readsIn(c);
  if (option.storageClass === 'INTELLIGENT_TIERING') {
    const it = prices.intelligentTiering;
    if (bytes < it.monitoredBytes) {
      inClass = monthly(c.gbMonth, daysIn);
    } else {
      const frequent = Math.min(daysIn, IT_INFREQUENT_AFTER_DAYS);
      const infrequent =
        Math.min(daysIn, IT_ARCHIVE_INSTANT_AFTER_DAYS) - Math.min(daysIn, IT_INFREQUENT_AFTER_DAYS);
      const archive = Math.max(0, daysIn - IT_ARCHIVE_INSTANT_AFTER_DAYS);
      inClass =
        monthly(c.gbMonth, frequent) +
        monthly(it.infrequentGbMonth, infrequent) +
        monthly(it.archiveInstantGbMonth, archive) +
        it.monitoringObjectMonth * (daysIn / DAYS_PER_MONTH);
      // A read makes the object Frequent again for 30 days, wherever it was.
      reads += life.lateReads * monthly(c.gbMonth - it.infrequentGbMonth, IT_INFREQUENT_AFTER_DAYS);
    }
  } else {
    inClass = monthly(c.gbMonth, daysIn, Math.max(bytes, c.minBytes) / GB);
  }
  const storage = inStandard + inClass;
  return { storage, transition: c.transition, reads, total: storage + c.transition + reads };
}

/**
 * Days every object stays in Standard first: results are read in their first hours (downstream systems,
 * a reviewer), and a transition after 1 day (at the first midnight UTC after it) never meets those reads.
 */
export const DEFAULT_STANDARD_DAYS = 1;
/**
 * Full reads of each object after its first day, on average: about one result in ten opened again
 * later (a dispute, an audit, a customer's request). An assumption, stated in docs/storage.md with
 * what the plan and the cost become at 0, 1 and 3 reads.
 */
export const DEFAULT_LATE_READS_PER_OBJECT = 0.1;

/** What the plan is computed from. */
export interface StoragePlanInput {
  /** Days a result's objects are kept (the expiration rule's days). */
  readonly retentionDays: number;
  /** Days an expired object's version is kept as noncurrent before it is removed. */
  readonly noncurrentDays: number;
  /** Days every object stays in Standard first, for the reads right after the result is stored. */
  readonly standardDays: number;
  /** Full reads of each object expected after `standardDays` (a dispute, an audit). */
  readonly lateReadsPerObject: number;
  readonly prices?: S3StoragePrices;
}

/** One lifecycle transition of the plan: objects of a size band move to a class. */
export interface PlanTransition {
  readonly storageClass: TransitionClass;
  /** Days after creation (S3 lifecycle `Days`). */
  readonly days: number;
  /** Objects of more bytes than this move (S3 lifecycle `ObjectSizeGreaterThan`). */
  readonly objectSizeGreaterThan: number;
  /** Objects of fewer bytes than this, when the band has an upper end (`ObjectSizeLessThan`). */
  readonly objectSizeLessThan?: number;
}

/** A class the plan did not consider, and why. */
export interface ExcludedClass {
  readonly storageClass: TransitionClass;
  readonly reason: string;
}

/** The plan: the transitions (none when nothing gains), the options weighed, the classes left out. */
export interface StoragePlan {
  readonly transitions: readonly PlanTransition[];
  /** The options the plan compared (Standard first), each with its transition day. */
  readonly options: readonly StorageOption[];
  readonly excluded: readonly ExcludedClass[];
  /** Days from the write to the removal of the last version, as the cost is computed. */
  readonly lifeDays: number;
}

/**
 * Days from the write to the removal of an object's last version: the expiration and the noncurrent
 * expiry each happen at the first midnight UTC after their day (half a day on average, each).
 */
export function lifeDaysOf(retentionDays: number, noncurrentDays: number): number {
  return retentionDays + noncurrentDays + 1;
}

function check(name: string, value: number, min: number, max: number, integer: boolean): void {
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new RangeError(
      `storage plan: ${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
    );
  }
}

/**
 * The lifecycle transitions that make each result object cost least until it is removed, with reads
 * staying instant. Every object is written to Standard and stays there `standardDays` (its first
 * reads pay no retrieval). Candidates: Glacier Instant Retrieval after `standardDays`, Standard-IA
 * after max(`standardDays`, 30) (S3's earliest), Intelligent-Tiering after `standardDays`. A candidate
 * whose minimum billed duration exceeds what is left (days from its transition to the removal of the
 * last version, counted without the midnight rounding: the least an object gets) is left out: an early
 * move would bill days the retention never uses. The rest are priced per object size with
 * {@link objectCost}; each size band whose cheapest option is not Standard becomes one transition, so
 * objects too small to gain (the 128 KiB minimum, the per-request transition fee) stay in Standard.
 * Ties go to Standard.
 */
export function storagePlan(input: StoragePlanInput): StoragePlan {
  check('retentionDays', input.retentionDays, 1, 36_500, true);
  check('noncurrentDays', input.noncurrentDays, 0, 36_500, true);
  check('standardDays', input.standardDays, 0, 36_500, true);
  check('lateReadsPerObject', input.lateReadsPerObject, 0, 1000, false);
  const prices = input.prices ?? S3_STORAGE_PRICES;
  const lifeDays = lifeDaysOf(input.retentionDays, input.noncurrentDays);
  const candidates: StorageOption[] = [
    { storageClass: 'GLACIER_IR', transitionDay: input.standardDays },
    {
      storageClass: 'STANDARD_IA',
      transitionDay: Math.max(input.standardDays, STANDARD_IA_EARLIEST_DAY),
    },
    { storageClass: 'INTELLIGENT_TIERING', transitionDay: input.standardDays },
  ];
  const options: StorageOption[] = [{ storageClass: 'STANDARD', transitionDay: 0 }];
  const excluded: ExcludedClass[] = [];
  for (const option of candidates) {
    const storageClass = option.storageClass as TransitionClass;
    const left = input.retentionDays + input.noncurrentDays - option.transitionDay;
    const minDays = prices.classes[storageClass].minDays;
    if (left <= 0) {
      excluded.push({
        storageClass,
        reason: `objects are gone before day ${option.transitionDay}, when they could move`,
      });
    } else if (left < minDays) {
      excluded.push({
        storageClass,
        reason: `${left} days left after day ${option.transitionDay} are fewer than the ${minDays} days billed at least`,
      });
    } else {
      options.push(option);
    }
  }
  const life: ObjectLife = { lifeDays, lateReads: input.lateReadsPerObject };
  const cost = (option: StorageOption, bytes: number) => objectCost(bytes, option, life, prices).total;
  const transitions = cheapestBands(options, cost, prices).map(
    ({ option, above, below }): PlanTransition => ({
      storageClass: option.storageClass as TransitionClass,
      days: option.transitionDay,
      objectSizeGreaterThan: Math.floor(above),
      ...(below !== undefined && { objectSizeLessThan: Math.floor(below) + 1 }),
    }),
  );
  return { transitions, options, excluded, lifeDays };
}

/** Sizes beyond which no band is searched: S3's largest object (5 TiB). */
const MAX_OBJECT_BYTES = 5 * 1024 ** 4;

/**
 * The size bands (bytes, `above` < size ≤ `below`) in which an option other than the first (Standard)
 * costs least. Each option's cost is linear in the size on either side of the per-object minimums
 * (128 KiB), so the cheapest option can change only where two costs cross or at a minimum: the bands
 * come from those points, each judged at its middle.
 */
function cheapestBands(
  options: readonly StorageOption[],
  cost: (option: StorageOption, bytes: number) => number,
  prices: S3StoragePrices,
): { option: StorageOption; above: number; below?: number }[] {
  const kinks = [
    ...new Set([
      ...Object.values(prices.classes).map((c) => c.minBytes),
      prices.intelligentTiering.monitoredBytes,
    ]),
  ]
    .filter((b) => b > 0)
    .sort((a, b) => a - b);
  const pieces: [number, number][] = [];
  let from = 0;
  for (const kink of [...kinks, MAX_OBJECT_BYTES]) {
    pieces.push([from, kink]);
    from = kink;
  }
  const points = new Set<number>([0, ...kinks, MAX_OBJECT_BYTES]);
  for (const [lo, hi] of pieces) {
    // Two sizes inside the piece give each difference's line there; its root, if inside, is a point.
    const a = lo + (hi - lo) / 4;
    const b = lo + (hi - lo) / 2;
    for (let i = 0; i < options.length; i++) {
      for (let j = i + 1; j < options.length; j++) {
        const da = cost(options[i]!, a) - cost(options[j]!, a);
        const db = cost(options[i]!, b) - cost(options[j]!, b);
        if (da === db) continue;
        const root = a - (da * (b - a)) / (db - da);
        if (root > lo && root < hi) points.add(root);
      }
    }
  }
  const sorted = [...points].sort((x, y) => x - y);
  const bands: { option: StorageOption; above: number; below?: number }[] = [];
  for (let k = 0; k + 1 < sorted.length; k++) {
    const lo = sorted[k]!;
    const hi = sorted[k + 1]!;
    const mid = (lo + hi) / 2;
    let best = options[0]!;
    for (const option of options.slice(1)) if (cost(option, mid) < cost(best, mid)) best = option;
    const last = bands.at(-1);
    if (best === options[0]) continue;
    if (last?.option === best && last.below === lo) last.below = hi;
    else bands.push({ option: best, above: lo, below: hi });
  }
  return bands.map((band) =>
    band.below === MAX_OBJECT_BYTES ? { option: band.option, above: band.above } : band,
  );
}
