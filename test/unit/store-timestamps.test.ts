/**
 * Completion times from the poll (shared/store/timestamps.ts): only ISO 8601 is read, a time without an
 * offset as UTC; anything else is unknown (the item then falls back to its storedAt).
 */
import { describe, expect, it } from 'vitest';
import { parseCompleted } from '../../shared/store/timestamps';

describe('parseCompleted', () => {
  it('reads only ISO 8601 completion times, without an offset as UTC', () => {
    // Assess
    expect(parseCompleted('2026-08-10T12:00:00Z')).toBe(Date.UTC(2026, 7, 10, 12));
    expect(parseCompleted('2026-08-10 12:00:00')).toBe(Date.UTC(2026, 7, 10, 12));
    expect(parseCompleted('2026-08-10T14:00:00.250+02:00')).toBe(Date.UTC(2026, 7, 10, 12, 0, 0, 250));
    expect(parseCompleted('2026-08-10T14:00:00+0200')).toBe(Date.UTC(2026, 7, 10, 12));
    expect(parseCompleted('2026-08-10')).toBe(Date.UTC(2026, 7, 10));
    expect(parseCompleted('10/08/2026 12:00')).toBeUndefined();
    expect(parseCompleted(1786364400000)).toBeUndefined();
    expect(parseCompleted('yesterday')).toBeUndefined();
  });
});
