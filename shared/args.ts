/**
 * Plain-language messages for `node:util` `parseArgs` errors, shared by `idv`, `npm start`, the simulator
 * and the benches. Node's own texts ("Unknown option '--prodcut'. To specify a positional argument starting
 * with a '-' …") describe the parser, not the mistake; these name the flag and suggest the one meant.
 */
import type { ParseArgsConfig } from 'node:util';

/** The largest TCP port. */
export const MAX_PORT = 65_535;

/**
 * Longest delay `setTimeout` honours (2^31-1 ms): a longer one fires at once, with only a warning, so
 * second and millisecond flags above it would silently mean "now".
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Turns a `parseArgs` error into a message such as `unknown flag --prodcut for 'secure-link create'
 * (did you mean --product?)`, `--product needs a value` or `--once takes no value`.
 * `where` names the command (`secure-link create`) and is left out when undefined.
 */
export function describeArgsError(
  error: unknown,
  options: NonNullable<ParseArgsConfig['options']>,
  where?: string,
): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const forWhere = where ? ` for '${where}'` : '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /Unknown option '([^']*)'/.exec(message)?.[1] ?? '';
    // `-h=3` reaches the parser as the short options `-h`, `-=`, `-3`; name what was typed instead.
    const shown = flag === '' || flag === '-=' ? 'flag' : flag;
    const guess = flag.startsWith('--') ? closest(flag.slice(2), Object.keys(options)) : undefined;
    return `unknown flag ${shown}${forWhere}${guess ? ` (did you mean --${guess}?)` : ''}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /Option '(-[^' ]*)/.exec(message)?.[1];
    if (flag && /does not take an argument/.test(message)) return `${flag} takes no value${forWhere}`;
    // "is ambiguous": the next word starts with a dash (`--product --once`, `--port -1`).
    if (flag && /ambiguous/.test(message))
      return `${flag} needs a value${forWhere} (for one starting with "-", write ${flag}=VALUE)`;
    if (flag) return `${flag} needs a value${forWhere}`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const argument = /Unexpected argument '([^']*)'/.exec(message)?.[1];
    if (argument !== undefined) return `unexpected argument "${argument}"${forWhere}`;
  }
  // Anything else: Node's first line, without its parser advice.
  return message.split('\n')[0] ?? message;
}

/** The candidate closest to `word` by edit distance (transpositions count once), if at most 2 away. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * A whole number flag value in `[min, max]`; `undefined` when absent. Only digits count: `Number` would
 * also take `''`, `0x10` and `1e3`. Returns a message instead of the number when the value is wrong.
 */
export function wholeNumber(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
): { value: number | undefined } | { problem: string } {
  if (value === undefined) return { value: undefined };
  const parsed = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    return { problem: `--${name} must be a whole number from ${min} to ${max}` };
  }
  return { value: parsed };
}
