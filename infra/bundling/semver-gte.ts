/**
 * Stands in for `semver` in the function bundles (see `LAMBDA_BUNDLING` in
 * `infra/constructs/pipeline-function.ts`). The X-Ray SDK that the Powertools tracer loads requires
 * `semver` in one place only: its patcher for the AWS SDK v2 (`captureAWS`) checks `semver.gte(VERSION,
 * '2.7.15')`. The functions use SDK v3 and never call that patcher, yet the whole `semver` package (~29 KB
 * minified, every range and comparator class) was in every bundle. This module answers `gte` for the
 * versions it is asked about (`major.minor.patch`, an optional `v` and a pre-release or build suffix),
 * and refuses anything else rather than guess. Tests, the local run and the CLI are not bundled and load
 * the real package wherever something needs it.
 */

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(version: string): { core: [number, number, number]; pre: string | undefined } {
  const match = VERSION.exec(typeof version === 'string' ? version.trim() : '');
  if (!match) throw new TypeError(`Invalid Version: ${String(version)}`);
  return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] };
}

/** `a >= b` by semantic versioning precedence (a pre-release ranks below its release). */
export function gte(a: string, b: string): boolean {
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    if (x.core[i] !== y.core[i]) return x.core[i]! > y.core[i]!;
  }
  if (x.pre === y.pre) return true;
  if (x.pre === undefined) return true;
  if (y.pre === undefined) return false;
  return comparePre(x.pre, y.pre) >= 0;
}

function comparePre(a: string, b: string): number {
  const xs = a.split('.');
  const ys = b.split('.');
  for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
    const x = xs[i];
    const y = ys[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn) return -1;
    if (yn) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

export default { gte };
