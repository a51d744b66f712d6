/**
 * A fast path to a backlog: many finished transactions at once (`POST /__sim/seed`, `sim.control.seed`),
 * for benches that need thousands of pending results without thousands of create requests. Each one is
 * made as its endpoint makes it and completed through the same lifecycle (`SimulatorState.complete`):
 * a poll record and a result, removed and kept exactly as for any other transaction (§3). Only the
 * create requests are skipped, so they are neither recorded nor rate limited.
 */
import { MOCK_TEST_VALUES, PRODUCTS } from '../shared/api/enums';
import { isJsonObject } from '../shared/json-object';
import { newLinkCapability } from './link-access';
import type { SimulatorState } from './state';
import type { SeedGroup } from './types';

/** Most transactions one seed call may create. */
export const MAX_SEED = 100_000;

/** Checks a seed request; returns the problem, if any. */
export function seedProblem(value: unknown): string | undefined {
  const groups = (value as { groups?: unknown } | undefined)?.groups;
  if (!Array.isArray(groups) || groups.length === 0) return 'groups must be a non-empty list';
  let total = 0;
  for (const g of groups as unknown[]) {
    if (!isJsonObject(g)) return 'each group must be an object';
    if (!Number.isInteger(g['count']) || (g['count'] as number) < 1)
      return 'count must be a whole number ≥ 1';
    total += g['count'] as number;
    if (g['kind'] !== 'vog' && g['kind'] !== 'secureLink') return 'kind must be vog or secureLink';
    if (g['product'] !== undefined && !(PRODUCTS as readonly unknown[]).includes(g['product']))
      return `product must be one of ${PRODUCTS.join(', ')}`;
    if (g['product'] === 'FACE_LINK') return 'FACE_LINK needs a linked transaction: not seeded';
    if (g['mockTest'] !== undefined && !(MOCK_TEST_VALUES as readonly unknown[]).includes(g['mockTest']))
      return `mockTest must be one of ${MOCK_TEST_VALUES.join(', ')}`;
  }
  if (total > MAX_SEED) return `at most ${MAX_SEED} transactions per call`;
  return undefined;
}

/**
 * Creates and completes the transactions of `groups`, interleaved so the poll lists the kinds mixed;
 * returns the resultIds in completion order. `customerReference` is `seed-{n}`.
 */
export function seedResults(state: SimulatorState, groups: readonly SeedGroup[]): string[] {
  const left = groups.map((g) => g.count);
  const total = left.reduce((a, b) => a + b, 0);
  const resultIds: string[] = [];
  // Spread each group evenly over the sequence (largest remainder first), so the backlog is mixed.
  for (let n = 0; n < total; n++) {
    let pick = 0;
    for (let i = 1; i < groups.length; i++) {
      if (left[i]! / groups[i]!.count > left[pick]! / groups[pick]!.count) pick = i;
    }
    left[pick]!--;
    const group = groups[pick]!;
    const customerReference = `seed-${n}`;
    const t =
      group.kind === 'vog'
        ? state.newTransaction('vog', {
            customerReference,
            vog: {
              createdAt: state.now(),
              givenNames: 'Specimen',
              surname: 'Voorbeeld',
              companyName: 'Seeded BV',
              profiles: ['11'],
            },
          })
        : state.newTransaction('secureLink', {
            product: group.product ?? 'IDV_STANDARD',
            customerReference,
            ...newLinkCapability(),
            mock: group.mockTest ?? 'APPROVED',
          });
    resultIds.push(state.complete(t).resultId);
  }
  return resultIds;
}
