/**
 * A small seeded pseudo-random generator (mulberry32). The simulator draws its content from one of these
 * (outcomes, fake identities, images, faults), so a run with the same seed and the same request sequence
 * repeats that content. Never an id: a 32-bit seed and a stream one leaked value reveals are no secret,
 * so every id that grants access (transactionId, secureId, resultId, tokens, link keys) comes from
 * `node:crypto` instead.
 */

/** A seeded random source. */
export interface Prng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** `count` hex characters. */
  hex(count: number): string;
}

/** Mixes a seed and a label into a 32-bit seed, so independent streams (ids, faults, data) don't interfere. */
export function deriveSeed(seed: number, label: string): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h = Math.imul(h ^ label.charCodeAt(i), 0x85ebca6b) >>> 0;
    h = (h ^ (h >>> 13)) >>> 0;
  }
  return Math.imul(h ^ (h >>> 16), 0xc2b2ae35) >>> 0;
}

/** A mulberry32 generator seeded with `seed`. */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
    hex: (count: number): string => {
      let out = '';
      for (let i = 0; i < count; i++) out += int(16).toString(16);
      return out;
    },
  };
}
