/**
 * When V8 starts marking the old generation, for the fetch-result function (docs/benchmarks.md, "Many
 * images: GC and the HTTP client").
 *
 * The function's old generation is small: about 15 MB live. Its new space grows to 16 MB or more while
 * a result streams. V8's own rule starts incremental marking whenever the old generation's room below
 * its limit is no larger than the new space's capacity. V8 sets that limit at about the live size times
 * a growing factor plus the new space's capacity, so on a heap this small the rule is true right after
 * every mark-compact. A result of 1,000 images therefore went through 12 to 19 full collections, while
 * less than 1 MB/s was promoted, and they took about 40 % of its CPU.
 *
 * V8's marking triggers replace that rule with a share of the limit:
 * - the soft trigger starts marking by a task once the old generation (or the whole heap) has used
 *   that percentage of its limit;
 * - the hard trigger starts it at once.
 * The limit itself is unchanged. So is the collection V8 forces when an allocation reaches it, so the
 * heap never grows past what V8 would allow.
 *
 * Node accepts these flags only on its command line, which a Lambda function does not control: the
 * runtime's bootstrap builds that line, and NODE_OPTIONS refuses them. They are read each time V8
 * decides, so setting them at cold start with `v8.setFlagsFromString` takes effect from the next
 * allocation. Node warns that changing flags after start may behave unpredictably. These two are plain
 * integers, read only where V8 asks whether the marking limit is reached (`Heap::IncrementalMarkingLimitReached`).
 *
 * `IDV_GC_MARKING_TRIGGERS` (shared/config.ts) overrides the default, or leaves V8's rule in place with
 * `v8`.
 */
import { setFlagsFromString } from 'node:v8';

/** Percentages of the old generation's limit: marking starts by a task at `soft`, at once at `hard`. */
export interface MarkingTriggers {
  readonly soft: number;
  readonly hard: number;
}

/** The default: chosen by `npm run bench` (docs/benchmarks.md, "Many images: GC and the HTTP client"). */
export const DEFAULT_MARKING_TRIGGERS: MarkingTriggers = { soft: 80, hard: 90 };

/** Sets V8's marking triggers for this process; `undefined` leaves V8's own rule. */
export function applyMarkingTriggers(triggers: MarkingTriggers | undefined): void {
  if (!triggers) return;
  setFlagsFromString(`--incremental-marking-soft-trigger=${triggers.soft}`);
  setFlagsFromString(`--incremental-marking-hard-trigger=${triggers.hard}`);
}
