/**
 * The last line of defence for text that goes into an error message or a log line: anything shaped like
 * a credential is replaced by `[redacted]`. Errors are built so that they never carry a body's text or a
 * request's headers in the first place (shared/client/errors.ts); this catches what slips through anyway,
 * e.g. the message of a third-party error that quotes a header.
 */

/** `Bearer …` / `Basic …` (any case, `:` or `=` allowed in between, as in `authorization: Basic …`). */
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)(\s*[:=]?\s*)[A-Za-z0-9._~+/=-]+/gi;

/** A JWT: three base64url parts, the first an encoded JSON object (`eyJ` = `{"`). */
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/**
 * A long run of base64/base64url characters. Only runs of at least {@link LONG_TOKEN_MIN} characters that
 * mix upper case, lower case and digits are redacted: a UUID (lower-case hex), a hex digest or an
 * upper-case code stay readable, an encoded `clientId:clientSecret` or an opaque token does not.
 */
const LONG_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const LONG_TOKEN_MIN = 24;

function looksLikeToken(run: string): boolean {
  return run.length >= LONG_TOKEN_MIN && /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run);
}

/** `text` with every credential-shaped part replaced by `[redacted]`. */
export function scrubSecrets(text: string): string {
  return text
    .replace(SCHEME_CREDENTIAL, '$1$2[redacted]')
    .replace(JWT, '[redacted]')
    .replace(LONG_RUN, (run) => (looksLikeToken(run) ? '[redacted]' : run));
}
