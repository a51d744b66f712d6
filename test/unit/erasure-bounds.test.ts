/**
 * The erasure's registry of traces and its copy bounds (shared/erasure/traces.ts, bounds.ts): every kind
 * is claimed by exactly one key maker, keys of a neighbouring id are not claimed, the bounds are checked
 * where they arrive, and the receipt gives each store its date.
 */
import { describe, expect, it } from 'vitest';
import {
  CopyBoundsError,
  DEFAULT_COPY_BOUNDS,
  erasureReceipt,
  formatCopyBounds,
  LAZY_REMOVAL_DAYS,
  parseCopyBounds,
  resolveCopyBounds,
} from '../../shared/erasure/bounds';
import {
  ERASURE_RECORD_TRACE,
  ITEM_TRACES,
  itemTraceKind,
  OBJECT_TRACES,
  objectTraceKind,
  REACHED_TRACES,
  TRACE_KINDS,
} from '../../shared/erasure/traces';
import { imageKey, resultJsonKey, stagingKey } from '../../shared/store/keys';

describe("the registry of a result's traces", () => {
  it('lists each kind once, and every item kind has its own key', () => {
    // Act
    const keys = [...ITEM_TRACES, ERASURE_RECORD_TRACE].map((t) => `${t.table}:${t.key('res-1')}`);

    // Assess
    expect(new Set(TRACE_KINDS).size).toBe(TRACE_KINDS.length);
    expect(TRACE_KINDS).toEqual([
      'result-objects',
      'staged-uploads',
      'result-item',
      'publication-record',
      'poll-record',
      'enqueue-marker',
      'erasure-record',
      'analytics-row',
      'queue-messages',
      'local-journals',
    ]);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual([
      'results:res-1',
      'results:res-1#publication',
      'results:res-1#poll',
      'markers:res-1',
      'results:res-1#erasure',
    ]);
    expect(REACHED_TRACES.map((t) => t.reach)).toEqual(['projection', 'queues', 'journals']);
    for (const trace of [...ITEM_TRACES, ERASURE_RECORD_TRACE, ...OBJECT_TRACES, ...REACHED_TRACES])
      expect(trace.holds).not.toBe('');
  });

  it('claims the keys a store writes for the result, and none of another result', () => {
    // Assess: items
    expect(itemTraceKind('results', 'res-1', 'res-1')).toBe('result-item');
    expect(itemTraceKind('results', 'res-1#poll', 'res-1')).toBe('poll-record');
    expect(itemTraceKind('results', 'res-1#erasure', 'res-1')).toBe('erasure-record');
    expect(itemTraceKind('markers', 'res-1', 'res-1')).toBe('enqueue-marker');
    expect(itemTraceKind('markers', 'res-1#poll', 'res-1')).toBeUndefined();
    expect(itemTraceKind('results', 'res-10', 'res-1')).toBeUndefined();
    expect(itemTraceKind('results', 'res-1#new-kind', 'res-1')).toBeUndefined();
    // … objects, with the store's own key makers and an escaped id
    const image = imageKey('res-1', 0, { documentType: 'PASSPORT', pageType: 'FRONT' }, 'jpg');
    expect(objectTraceKind(image, 'res-1')).toBe('result-objects');
    expect(objectTraceKind(resultJsonKey('a.b'), 'a.b')).toBe('result-objects');
    expect(objectTraceKind(stagingKey('res-1', 'files', 2), 'res-1')).toBe('staged-uploads');
    expect(objectTraceKind(resultJsonKey('res-10'), 'res-1')).toBeUndefined();
    expect(objectTraceKind('exports/res-1/result.json', 'res-1')).toBeUndefined();
  });
});

describe('copy bounds', () => {
  it('defaults to a week at most, the archive as long as the results, the analytics prefixes capped', () => {
    // Assess
    expect(resolveCopyBounds()).toEqual(DEFAULT_COPY_BOUNDS);
    expect(DEFAULT_COPY_BOUNDS).toEqual({
      tableRecoveryDays: 7,
      queryResultsDays: 7,
      deliveryErrorsDays: 7,
      snapshotRetentionDays: 7,
      orphanFileDays: 3,
      eventArchiveDays: 7,
    });
    expect(resolveCopyBounds({}, 30)).toEqual({ ...DEFAULT_COPY_BOUNDS, eventArchiveDays: 30 });
    expect(resolveCopyBounds({}, 2)).toEqual({
      ...DEFAULT_COPY_BOUNDS,
      queryResultsDays: 2,
      deliveryErrorsDays: 2,
      eventArchiveDays: 2,
    });
    expect(resolveCopyBounds({ queryResultsDays: 10, eventArchiveDays: 1 }, 2)).toMatchObject({
      queryResultsDays: 10,
      eventArchiveDays: 1,
    });
    expect(resolveCopyBounds({ tableRecoveryDays: undefined }, 30).tableRecoveryDays).toBe(7);
  });

  it.each([
    [{ tableRecoveryDays: 0 }, 'copyBounds.tableRecoveryDays must be a whole number of days from 1 to 35'],
    [{ tableRecoveryDays: 36 }, 'copyBounds.tableRecoveryDays must be a whole number of days from 1 to 35'],
    [{ orphanFileDays: 1.5 }, 'copyBounds.orphanFileDays must be a whole number of days from 1 to 3650'],
    [{ eventArchiveDays: 3651 }, 'copyBounds.eventArchiveDays must be a whole number of days from 1 to 3650'],
    [
      { deliveryErrorsDays: 0 },
      'copyBounds.deliveryErrorsDays must be a whole number of days from 1 to 3650',
    ],
    [
      { snapshotRetentionDays: 3651 },
      'copyBounds.snapshotRetentionDays must be a whole number of days from 1 to 3650',
    ],
    [{ queryResultsDays: 0 }, 'copyBounds.queryResultsDays must be a whole number of days from 1 to 3650'],
    [{ snapshotRetentionDays: Number.NaN }, 'copyBounds.snapshotRetentionDays'],
    [{ backupDays: 3 }, 'copyBounds.backupDays is not a bound'],
  ])('refuses %j, naming the bound', (given, message) => {
    // Act / Assess
    expect(() => resolveCopyBounds(given as never)).toThrow(CopyBoundsError);
    expect(() => resolveCopyBounds(given as never)).toThrow(message);
  });

  it('accepts the ends of each range', () => {
    // Assess
    expect(resolveCopyBounds({ tableRecoveryDays: 1, orphanFileDays: 3650 })).toMatchObject({
      tableRecoveryDays: 1,
      orphanFileDays: 3650,
    });
    expect(resolveCopyBounds({ tableRecoveryDays: 35 }).tableRecoveryDays).toBe(35);
  });

  it('reads back what the stack output carries, and refuses a broken output with its reason', () => {
    // Prepare
    const bounds = resolveCopyBounds({ tableRecoveryDays: 3 }, 30);

    // Act / Assess
    expect(parseCopyBounds(formatCopyBounds(bounds))).toEqual(bounds);
    expect(() => parseCopyBounds('{')).toThrow('the ErasureBounds output is not JSON');
    expect(() => parseCopyBounds('[]')).toThrow('the ErasureBounds output is not an object');
    expect(() => parseCopyBounds('null')).toThrow('the ErasureBounds output is not an object');
    const { orphanFileDays: _, ...partial } = bounds;
    expect(() => parseCopyBounds(JSON.stringify(partial))).toThrow(
      'the ErasureBounds output lacks orphanFileDays',
    );
    expect(() => parseCopyBounds(JSON.stringify({ ...bounds, queryResultsDays: -1 }))).toThrow(
      'copyBounds.queryResultsDays',
    );
    expect(() => parseCopyBounds('{')).toThrow(CopyBoundsError);
    const error = (() => {
      try {
        parseCopyBounds('{');
      } catch (e) {
        return e as CopyBoundsError;
      }
    })();
    expect(error?.name).toBe('CopyBoundsError');
    expect(error?.cause).toBeInstanceOf(SyntaxError);
    expect(() => parseCopyBounds('7')).toThrow('the ErasureBounds output is not an object');
  });
});

describe('the receipt', () => {
  const erasedAt = '2026-09-01T10:00:00.000Z';
  const bounds = resolveCopyBounds({ tableRecoveryDays: 5, orphanFileDays: 9 }, 30);

  it('dates each copy out of reach on AWS: PITR exact, the lazy stores with their lag', () => {
    // Act
    const receipt = erasureReceipt(erasedAt, { local: false, analytics: true, bounds });

    // Assess
    const at = (days: number) => new Date(Date.parse(erasedAt) + days * 86_400_000).toISOString();
    expect(LAZY_REMOVAL_DAYS).toBe(2);
    expect(receipt).toEqual({
      dataBucket: { erased: true },
      tables: { erased: true },
      analyticsRow: { erased: true },
      tableBackups: { expiresBy: at(5) },
      eventArchive: { expiresBy: at(32) },
      // The later of snapshot retention (7) and orphan files (9).
      analyticsSnapshots: { expiresBy: at(11) },
      queryResults: { expiresBy: at(9) },
      deliveryErrors: { expiresBy: at(9) },
    });
  });

  it('names no analytics copies without analytics, and only erased stores locally', () => {
    // Act
    const aws = erasureReceipt(erasedAt, { local: false, analytics: false, bounds });
    const local = erasureReceipt(erasedAt, { local: true, analytics: false, bounds });

    // Assess
    expect(Object.keys(aws)).toEqual(['dataBucket', 'tables', 'tableBackups', 'eventArchive']);
    expect(local).toEqual({
      dataBucket: { erased: true },
      tables: { erased: true },
      analyticsRow: { erased: true },
      localFiles: { erased: true },
    });
  });
});
