/**
 * Versions of a verdict (docs/changed-verdicts.md). The service may change a result after it
 * was stored (a manual review disapproves what was approved at first) and says so in one of two shapes:
 * the same resultId announced again with a later `completed` and a changed body, or a new resultId for
 * the same transactionId. Either is stored as a new version: the result item keeps the latest verdict and
 * the history of every version, each version's objects have their own prefix (`keys.ts`). Pure: no I/O.
 */
import { parseCompleted } from './timestamps';

/** One stored verdict of a transaction, as the history of the latest item lists it. */
export interface ResultVersion {
  /** 1 for the first verdict stored for the transaction, then 2, 3, … */
  readonly version: number;
  readonly resultId: string;
  /** `completed` of the version (ISO 8601 UTC); `storedAt` when the service's was unknown. */
  readonly completed: string;
  readonly completedKnown: boolean;
  /** Overall result value of the version. */
  readonly result?: string;
  /** Result value per section of the version. */
  readonly sections?: Record<string, string>;
  readonly storedAt: string;
  /** Where the version's result.json is. */
  readonly resultKey?: string;
}

/** What a version is made of: the fields of a STORED item it copies (version 1 when it names none). */
export interface VersionedFields extends Omit<ResultVersion, 'version'> {
  readonly version?: number;
  readonly versions?: readonly ResultVersion[];
}

/**
 * Most versions an item lists: the oldest go first beyond it (the item must stay far under DynamoDB's
 * 400 KB; a verdict changed a hundred times is a fault at the service, not a review).
 */
export const MAX_VERSIONS_KEPT = 100;

/** The version number of an item: items stored before versions existed are version 1. */
export function versionOf(item: { readonly version?: number }): number {
  return item.version ?? 1;
}

/** The entry of `item`'s own version in a history. */
export function versionEntry(item: VersionedFields): ResultVersion {
  return {
    version: versionOf(item),
    resultId: item.resultId,
    completed: item.completed,
    completedKnown: item.completedKnown,
    ...(item.result !== undefined && { result: item.result }),
    ...(item.sections !== undefined && { sections: item.sections }),
    storedAt: item.storedAt,
    ...(item.resultKey !== undefined && { resultKey: item.resultKey }),
  };
}

/** The history of `item`, oldest first: its own list, or (for a first version) the version itself. */
export function historyOf(item: VersionedFields): ResultVersion[] {
  return item.versions && item.versions.length > 0 ? [...item.versions] : [versionEntry(item)];
}

/**
 * Whether an announcement with `completed` is a new version of `item`: its completion time is later than
 * the item's (the latest version's). The item's `completed` is `storedAt` when the service's was unknown,
 * so a result stored without its polling record counts as changed only when the service completed it
 * again after it was stored. An unreadable or missing `completed` is no change: a duplicate costs no
 * fetch.
 */
export function isLaterCompletion(
  item: { readonly completed: string },
  completed: string | undefined,
): boolean {
  const announced = parseCompleted(completed);
  const stored = Date.parse(item.completed);
  return announced !== undefined && !Number.isNaN(stored) && announced > stored;
}

/**
 * The version fields of `next`, a verdict stored after `previous` (the same resultId announced again, or a
 * new resultId of the same transaction): its number follows the previous one and its history is the
 * previous history plus itself (at most {@link MAX_VERSIONS_KEPT}).
 */
export function followingVersion(
  previous: VersionedFields,
  next: VersionedFields,
): { version: number; versions: ResultVersion[] } {
  const version = versionOf(previous) + 1;
  const versions = [...historyOf(previous), versionEntry({ ...next, version })];
  return { version, versions: versions.slice(-MAX_VERSIONS_KEPT) };
}

/** The version before the latest in `item`'s history, when it has one. */
export function previousVersionOf(item: VersionedFields): ResultVersion | undefined {
  const history = historyOf(item);
  return history.length > 1 ? history[history.length - 2] : undefined;
}
