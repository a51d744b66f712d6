/**
 * The resultId rule, shared by everything that takes a resultId from outside (webhook, poll, queue
 * messages, the client, S3 keys) and kept free of any schema library: the functions bundle it.
 */

/**
 * What a resultId may look like before it goes into a path, an S3 key, a DynamoDB key or a message: it
 * starts with a letter or digit, then up to 255 letters, digits or `.` `_` `:` `~` `+` `=` `@` `-`.
 * Another implementation of the service may well use dots, colons or longer ids, and an id we refuse is
 * never fetched, so the set is as wide as stays safe: never `/`, `\`, whitespace, `?`, `#`, `%` or a
 * control character, and never a leading `.`, so an id can not become `..`, another path or a query.
 * In a URL path it is still percent-encoded (`encodeURIComponent`); S3 keys use `resultIdKeyPart`.
 */
export const RESULT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:~+=@-]{0,255}$/;

/** The rule of `RESULT_ID_PATTERN` in words, for error messages. */
export const RESULT_ID_RULE =
  'must be 1-256 characters: letters, digits and . _ : ~ + = @ -, starting with a letter or digit';

/**
 * A resultId as a JSON value may carry it (poll record, webhook body): a string as is, a JSON number
 * (a whole, exactly representable one) as its decimal string. Anything else is `undefined`.
 */
export function resultIdFromJson(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return undefined;
}
