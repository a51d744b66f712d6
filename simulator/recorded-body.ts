/**
 * What `sim.requests` keeps of a request body: the body itself when it is small, else its shape with
 * every long string cut to a marker, so the last 1,000 requests of a run hold kilobytes each, not the
 * megabytes of the images they carried. Tests still see an upload's fields (type, customerReference).
 */

/** A body up to this many bytes (as it arrived) is kept whole. */
export const RECORDED_BODY_BYTES = 16 * 1024;
/** In a larger body, a string longer than this becomes a marker. */
export const RECORDED_STRING_CHARS = 256;
/** In a larger body, at most this many values are kept (the rest become markers). */
const RECORDED_VALUES = 512;

/** `body` (parsed JSON or raw text) as recorded, given the size it arrived with. */
export function recordedBody(body: unknown, rawBytes: number): unknown {
  if (rawBytes <= RECORDED_BODY_BYTES) return body;
  let budget = RECORDED_VALUES;
  const walk = (value: unknown): unknown => {
    if (--budget < 0) return '[omitted]';
    if (typeof value === 'string') {
      return value.length > RECORDED_STRING_CHARS ? `[${value.length} characters omitted]` : value;
    }
    if (Array.isArray(value)) {
      const kept = value.slice(0, Math.max(0, budget)).map(walk);
      return kept.length < value.length ? [...kept, `[${value.length - kept.length} more omitted]`] : kept;
    }
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      const kept = entries.slice(0, Math.max(0, budget)).map(([k, v]) => [k, walk(v)]);
      if (kept.length < entries.length)
        kept.push(['[omitted]', `${entries.length - kept.length} more fields`]);
      return Object.fromEntries(kept);
    }
    return value;
  };
  return walk(body);
}
