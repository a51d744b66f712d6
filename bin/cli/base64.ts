/**
 * Decoding of the base64 `data` of result images and files (spec §2.5: "data (base64 string)"). The spec
 * does not say which base64: another implementation may send a `data:` URL, MIME-style line breaks or the
 * URL-safe alphabet. Node's own decoder silently turns a `data:image/jpeg;base64,` prefix into garbage
 * bytes in front of the image, so every form is normalised first and anything else is refused instead of
 * being decoded into corrupt bytes.
 */

/** `data:[<media type>][;params];base64,` in front of the payload. */
const DATA_URL_RE = /^data:[^,]*;base64,/i;
/** Standard or URL-safe alphabet, padding stripped beforehand. */
const BASE64_BODY_RE = /^[A-Za-z0-9+/_-]*$/;

/**
 * The bytes of a base64 `data` value, exactly as a correct decoder gives them: a `data:…;base64,` prefix is
 * dropped, whitespace (line breaks) ignored, the URL-safe alphabet accepted, padding optional. `undefined`
 * when the value is not base64 at all (then nothing should be stored as if it were the image).
 */
export function decodeBase64Data(value: string): Buffer | undefined {
  let text = value.trim();
  const prefix = DATA_URL_RE.exec(text);
  if (prefix) text = text.slice(prefix[0].length);
  text = text.replace(/\s+/g, '');
  // Padding only at the end, at most two characters.
  const body = text.replace(/={1,2}$/, '');
  if (!BASE64_BODY_RE.test(body) || body.length % 4 === 1) return undefined;
  // Both alphabets at once would mean a mangled value, not a dialect.
  if (/[+/]/.test(body) && /[-_]/.test(body)) return undefined;
  return Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}
