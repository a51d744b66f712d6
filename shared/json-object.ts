/** True for a JSON object: not `null`, not an array (what `typeof … === 'object'` alone lets through). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
