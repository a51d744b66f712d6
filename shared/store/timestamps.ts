/**
 * Reading the service's timestamps. Kept apart from the result store so the poll function can use it
 * without bundling the S3 and DynamoDB clients.
 */

/** ISO 8601 date or date-time, `T` or a space between, optional fraction and offset (`Z`, `UTC`, `±hh[:mm]`). */
const ISO_TIMESTAMP_RE =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Epoch milliseconds of a poll record's `completed` (spec §2.4: "UTC timestamp of completion"), or
 * undefined. Only ISO 8601 forms are read, and one without an offset is UTC as the spec says: `Date.parse`
 * would read it as local time, and a form like `10/08/2026` as month/day in whatever locale rules the
 * engine has. It is only a hint, so anything else is "unknown" rather than a wrong date in the index.
 */
export function parseCompleted(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = ISO_TIMESTAMP_RE.exec(value.trim());
  if (!match) return undefined;
  const [, date, hourMinute = '00:00', seconds = '00', fraction = '', zone = 'Z'] = match;
  const offset = /^(Z|UTC|GMT)$/i.test(zone)
    ? 'Z'
    : `${zone.slice(0, 3)}:${zone.length > 3 ? zone.slice(-2) : '00'}`;
  const ms = Date.parse(`${date}T${hourMinute}:${seconds}.${fraction.padEnd(3, '0').slice(0, 3)}${offset}`);
  return Number.isNaN(ms) ? undefined : ms;
}
