import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LATE_READS_PER_OBJECT,
  DEFAULT_STANDARD_DAYS,
  lifeDaysOf,
  type ObjectLife,
  objectCost,
  S3_STORAGE_PRICES,
  type StorageOption,
  type StoragePlan,
  type StoragePlanInput,
  storagePlan,
} from '../../shared/storage-plan';

const KIB = 1024;
const MIB = 1024 * 1024;

const plan = (overrides: Partial<StoragePlanInput> = {}): StoragePlan =>
  storagePlan({
    retentionDays: 90,
    noncurrentDays: 1,
    standardDays: DEFAULT_STANDARD_DAYS,
    lateReadsPerObject: DEFAULT_LATE_READS_PER_OBJECT,
    ...overrides,
  });

const STANDARD: StorageOption = { storageClass: 'STANDARD', transitionDay: 0 };

/** The option the plan gives an object of `bytes` (Standard when no band holds it). */
function planned(p: StoragePlan, bytes: number): StorageOption {
  const band = p.transitions.find(
    (t) =>
      bytes > t.objectSizeGreaterThan && (t.objectSizeLessThan === undefined || bytes < t.objectSizeLessThan),
  );
  return band ? { storageClass: band.storageClass, transitionDay: band.days } : STANDARD;
}

/** Sizes from 1 KiB to 4 GiB, 16 a doubling. */
const SIZES = Array.from({ length: 22 * 16 }, (_, i) => Math.round(KIB * 2 ** (i / 16)));

describe('the storage plan', () => {
  it('moves objects large enough to gain to Glacier Instant Retrieval after a day at 90 days of retention', () => {
    // Act
    const p = plan();

    // Assess
    expect(p.transitions).toHaveLength(1);
    const [t] = p.transitions;
    expect(t).toMatchObject({ storageClass: 'GLACIER_IR', days: 1 });
    expect(t!.objectSizeLessThan).toBeUndefined();
    // Above the 128 KiB billed at least, below the 768 KiB images of a 10 MB result.
    expect(t!.objectSizeGreaterThan).toBeGreaterThan(128 * KIB);
    expect(t!.objectSizeGreaterThan).toBeLessThan(768 * KIB);
  });

  it('gives every size the option that costs least over its life among those the plan weighs, Standard on a tie', () => {
    for (const input of [
      {},
      { retentionDays: 60 },
      { retentionDays: 365, lateReadsPerObject: 1 },
      { retentionDays: 365, lateReadsPerObject: 3 },
      { retentionDays: 2555, lateReadsPerObject: 0 },
    ]) {
      // Prepare
      const p = plan(input);
      const life: ObjectLife = { lifeDays: p.lifeDays, lateReads: input.lateReadsPerObject ?? 0.1 };

      for (const bytes of SIZES) {
        // Act
        const chosen = objectCost(bytes, planned(p, bytes), life).total;
        const cheapest = Math.min(...p.options.map((o) => objectCost(bytes, o, life).total));

        // Assess: within a band's rounding of a byte, never dearer than the best option.
        expect(chosen, `${JSON.stringify(input)} at ${bytes} B`).toBeLessThanOrEqual(cheapest * (1 + 1e-6));
        expect(chosen).toBeLessThanOrEqual(objectCost(bytes, STANDARD, life).total);
      }
    }
  });

  it('keeps objects too small to gain in Standard: the 128 KiB billed at least and the transition fee outweigh', () => {
    // Prepare
    const p = plan();
    const life: ObjectLife = { lifeDays: p.lifeDays, lateReads: 0.1 };
    const small = 50 * KIB;

    // Act
    const option = planned(p, small);

    // Assess
    expect(option).toEqual(STANDARD);
    expect(objectCost(small, { storageClass: 'GLACIER_IR', transitionDay: 1 }, life).total).toBeGreaterThan(
      objectCost(small, STANDARD, life).total,
    );
  });

  it.each([
    [7, ['GLACIER_IR', 'STANDARD_IA']],
    [30, ['GLACIER_IR', 'STANDARD_IA']],
    [58, ['GLACIER_IR', 'STANDARD_IA']],
    [59, ['GLACIER_IR']],
    [89, ['GLACIER_IR']],
    [90, []],
  ])('at %i days of retention leaves out %j: their minimum billed days exceed what is left', (days, out) => {
    // Act
    const p = plan({ retentionDays: days });

    // Assess
    expect(p.excluded.map((e) => e.storageClass).sort()).toEqual([...out].sort());
    for (const e of p.excluded) expect(e.reason).toMatch(/days|gone/);
    for (const t of p.transitions) expect(out).not.toContain(t.storageClass);
  });

  it('plans no transition for a short retention where none pays', () => {
    // Act
    const p = plan({ retentionDays: 30 });

    // Assess
    expect(p.transitions).toEqual([]);
  });

  it('moves to Standard-IA no earlier than day 30, the earliest S3 accepts', () => {
    // Act
    const p = plan({ retentionDays: 75, lateReadsPerObject: 0 });

    // Assess
    const ia = p.transitions.find((t) => t.storageClass === 'STANDARD_IA');
    expect(ia?.days).toBe(30);
  });

  it('plans nothing when every object is read often after its first day: retrieval costs more than it saves', () => {
    // Act
    const p = plan({ retentionDays: 365, lateReadsPerObject: 50 });

    // Assess
    expect(p.transitions).toEqual([]);
  });

  it('stays in Standard for the days asked before the move', () => {
    // Act
    const p = plan({ retentionDays: 400, standardDays: 7 });

    // Assess
    expect(p.transitions.map((t) => t.days)).toEqual([7]);
  });

  it('counts a day for each midnight rounding: expiry and the noncurrent version removal', () => {
    expect(lifeDaysOf(90, 1)).toBe(92);
  });

  it.each([
    [{ retentionDays: 0 }, 'retentionDays'],
    [{ retentionDays: 1.5 }, 'retentionDays'],
    [{ standardDays: -1 }, 'standardDays'],
    [{ lateReadsPerObject: Number.NaN }, 'lateReadsPerObject'],
    [{ lateReadsPerObject: -0.1 }, 'lateReadsPerObject'],
  ])('refuses %j naming %s', (input, name) => {
    expect(() => plan(input)).toThrow(RangeError);
    expect(() => plan(input)).toThrow(name);
  });
});

describe('the cost of one object', () => {
  const GIR: StorageOption = { storageClass: 'GLACIER_IR', transitionDay: 1 };
  const gbMonths = (bytes: number, days: number) => (bytes / 1024 ** 3) * (days / (365 / 12));

  it('bills the minimum days once an object moved, even when an erasure deletes it earlier', () => {
    // Prepare
    const bytes = 4 * MIB;
    const prices = S3_STORAGE_PRICES.classes;

    // Act
    const erased = objectCost(bytes, GIR, { lifeDays: 92, lateReads: 0, deletedAtDay: 10 });
    const standardErased = objectCost(bytes, STANDARD, { lifeDays: 92, lateReads: 0, deletedAtDay: 10 });

    // Assess
    expect(erased.storage).toBeCloseTo(
      gbMonths(bytes, 1) * prices.STANDARD.gbMonth + gbMonths(bytes, 90) * prices.GLACIER_IR.gbMonth,
      12,
    );
    expect(standardErased.storage).toBeCloseTo(gbMonths(bytes, 10) * prices.STANDARD.gbMonth, 12);
  });

  it('pays no transition for an object erased before its move', () => {
    // Act
    const cost = objectCost(
      MIB,
      { storageClass: 'STANDARD_IA', transitionDay: 30 },
      {
        lifeDays: 92,
        lateReads: 1,
        deletedAtDay: 5,
      },
    );

    // Assess
    expect(cost.transition).toBe(0);
    expect(cost.storage).toBeCloseTo(gbMonths(MIB, 5) * S3_STORAGE_PRICES.classes.STANDARD.gbMonth, 12);
  });

  it('bills an object under 128 KiB as 128 KiB in Glacier Instant Retrieval and Standard-IA', () => {
    // Act
    const tiny = objectCost(10 * KIB, GIR, { lifeDays: 91, lateReads: 0 });
    const min = objectCost(128 * KIB, GIR, { lifeDays: 91, lateReads: 0 });

    // Assess: the same storage in the class; only the Standard day before the move differs.
    const standardDay = (bytes: number) => gbMonths(bytes, 1) * S3_STORAGE_PRICES.classes.STANDARD.gbMonth;
    expect(tiny.storage - standardDay(10 * KIB)).toBeCloseTo(min.storage - standardDay(128 * KIB), 12);
  });

  it('prices each late read with the class GET and its retrieval per GB', () => {
    // Act
    const unread = objectCost(GB_BYTES, GIR, { lifeDays: 92, lateReads: 0 });
    const read = objectCost(GB_BYTES, GIR, { lifeDays: 92, lateReads: 2 });

    // Assess
    const c = S3_STORAGE_PRICES.classes.GLACIER_IR;
    expect(read.reads - unread.reads).toBeCloseTo(2 * (c.get + c.retrievalGb), 12);
  });

  it('keeps an Intelligent-Tiering object under 128 KiB in its Frequent tier, unmonitored', () => {
    // Act
    const cost = objectCost(
      64 * KIB,
      { storageClass: 'INTELLIGENT_TIERING', transitionDay: 0 },
      {
        lifeDays: 200,
        lateReads: 0,
      },
    );

    // Assess
    expect(cost.storage).toBeCloseTo(
      gbMonths(64 * KIB, 200) * S3_STORAGE_PRICES.classes.STANDARD.gbMonth,
      12,
    );
  });
});

const GB_BYTES = 1024 ** 3;
