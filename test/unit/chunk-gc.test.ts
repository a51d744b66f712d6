/**
 * The emulators' process collects dead stream chunks promptly (local/chunk-gc.ts): a young-generation GC
 * each time external memory has grown 16 MiB since the last one, a full GC when it still grew 48 MiB
 * over its lowest point since the last full one, and never otherwise.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startChunkGc } from '../../local/chunk-gc';

const MIB = 1024 * 1024;

describe('chunk GC', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a minor GC once external memory grew 16 MiB, then measures growth from after it', () => {
    // Prepare: external memory as a stream of chunks moves it
    vi.useFakeTimers();
    let external = 100 * MIB;
    const gc = vi.fn(() => {
      external -= 12 * MIB;
    });
    const stop = startChunkGc({ gc, externalBytes: () => external });

    // Act + Assess: 15 MiB of chunks: nothing yet
    external += 15 * MIB;
    vi.advanceTimersByTime(100);
    expect(gc).not.toHaveBeenCalled();

    // 16 MiB: one minor GC (it frees 12 of them)
    external += 1 * MIB;
    vi.advanceTimersByTime(20);
    expect(gc).toHaveBeenCalledTimes(1);
    expect(gc).toHaveBeenCalledWith({ type: 'minor' });

    // growth counts from after the GC (104 MiB): 15 more MiB is not enough, 16 is
    external += 15 * MIB;
    vi.advanceTimersByTime(100);
    expect(gc).toHaveBeenCalledTimes(1);
    external += 1 * MIB;
    vi.advanceTimersByTime(20);
    expect(gc).toHaveBeenCalledTimes(2);

    // stopped: no more
    stop();
    external += 64 * MIB;
    vi.advanceTimersByTime(100);
    expect(gc).toHaveBeenCalledTimes(2);
  });

  it('runs a full GC when young-generation GCs leave external memory 48 MiB above its lowest point', () => {
    // Prepare: minor GCs that free nothing (the chunks were promoted), a major one that frees it all
    vi.useFakeTimers();
    const base = 100 * MIB;
    let external = base;
    const gc = vi.fn(({ type }: { type: 'minor' | 'major' }) => {
      if (type === 'major') external = base;
    });
    const stop = startChunkGc({ gc, externalBytes: () => external });

    // Act: 16 MiB at a time, three times
    for (let i = 0; i < 3; i++) {
      external += 16 * MIB;
      vi.advanceTimersByTime(20);
    }
    stop();

    // Assess: two minor GCs at +16 and +32, then a full one at +48
    expect(gc.mock.calls.map(([options]) => options.type)).toEqual(['minor', 'minor', 'major']);
    expect(external).toBe(base);
  });

  it('follows external memory down, so growth is measured from its lowest point', () => {
    // Prepare
    vi.useFakeTimers();
    let external = 80 * MIB;
    const gc = vi.fn();
    const stop = startChunkGc({ gc, externalBytes: () => external });

    // Act: V8 freed 40 MiB by itself, then 16 MiB of chunks arrive
    external -= 40 * MIB;
    vi.advanceTimersByTime(20);
    external += 16 * MIB;
    vi.advanceTimersByTime(20);
    stop();

    // Assess
    expect(gc).toHaveBeenCalledTimes(1);
  });
});
