/**
 * The service responses the pipeline functions read — the default error body (§7), the token response
 * (§4.6) and the polling response (§2.4, §4.7) — parsed by hand rather than with zod, so the function
 * bundles carry no schema library (docs/deploy.md, "Bundle size"). They follow the rules of every response
 * schema (`shared/api/schemas.ts`): tolerant, unknown fields kept, only the shape the pipeline relies on
 * enforced, and a failure names paths, never values.
 */
import { isJsonObject } from '../json-object';
import type { PRODUCTS } from './enums';
import { resultIdFromJson } from './result-id';

/** A parsed response, or the paths (`expiresIn`, `(body)`) that are not the documented shape. */
export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly paths: string[] };

type Loose = Record<string, unknown>;

/** Default error body (§7). */
export interface ErrorBody extends Loose {
  code?: number;
  message?: string;
  details?: unknown[];
}

/** The default error body of `body`, or `{}` when `body` is not of that shape (any field of another type). */
export function parseErrorBody(body: unknown): ErrorBody {
  if (!isJsonObject(body)) return {};
  const { code, message, details } = body;
  if (code !== undefined && !Number.isSafeInteger(code)) return {};
  if (message !== undefined && typeof message !== 'string') return {};
  if (details !== undefined && !Array.isArray(details)) return {};
  return body as ErrorBody;
}

/** Longest `expiresIn` believed (ten years, in seconds); more is not a number of seconds. Zero or less is refused. */
const MAX_EXPIRES_IN_SECONDS = 10 * 365 * 86_400;
const SECONDS_TEXT = /^[0-9]+(\.[0-9]+)?$/;

/**
 * Token response (§4.6). The spec says `expiresIn` is a string of seconds; a JSON number is accepted too,
 * and so is a missing `tokenType` (presented as `Bearer` anyway). Both come out normalised: `expiresIn` as
 * a number of seconds, `tokenType` as `Bearer` for any spelling of it.
 */
export interface TokenResponse extends Loose {
  accessToken: string;
  expiresIn: number;
  tokenType: string;
}

/** Parses a token response (never echoing it: it holds the token). */
export function parseTokenResponse(body: unknown): Parsed<TokenResponse> {
  if (!isJsonObject(body)) return { ok: false, paths: ['(body)'] };
  const paths: string[] = [];
  const { accessToken, expiresIn, tokenType } = body;
  if (typeof accessToken !== 'string' || accessToken.length === 0) paths.push('accessToken');
  const seconds =
    typeof expiresIn === 'number'
      ? expiresIn
      : typeof expiresIn === 'string' && SECONDS_TEXT.test(expiresIn.trim())
        ? Number(expiresIn.trim())
        : Number.NaN;
  // 0 is refused too: a token that is already expired is no answer (and would be fetched on every call).
  if (!(seconds > 0 && seconds <= MAX_EXPIRES_IN_SECONDS)) paths.push('expiresIn');
  if (tokenType !== undefined && tokenType !== null && typeof tokenType !== 'string') paths.push('tokenType');
  if (paths.length > 0) return { ok: false, paths };
  const type =
    typeof tokenType === 'string' && tokenType && tokenType.toLowerCase() !== 'bearer' ? tokenType : 'Bearer';
  return {
    ok: true,
    value: { ...body, accessToken: accessToken as string, expiresIn: seconds, tokenType: type },
  };
}

/**
 * Polling record (§2.4). One broken record must not block every other result, so nothing in a record
 * fails the poll: a `resultId` that is missing or unusable parses as `''` (a JSON number is another
 * implementation's numeric id, taken as its decimal string: `resultIdFromJson`), an optional field of
 * the wrong type (e.g. `completed` as epoch milliseconds) is dropped, and an entry that is not an object
 * at all becomes `{ resultId: '' }`. Callers check the id before use (the pipeline counts and reports such
 * records). Unknown fields are kept.
 */
export interface PollRecord extends Loose {
  resultId: string;
  transactionId?: string;
  product?: (typeof PRODUCTS)[number] | (string & {});
  customerReference?: string;
  completed?: string;
  userId?: string;
}

/** GET /api/v2/poll (§4.7): `results` missing or `null` means no records. */
export interface PollResponse extends Loose {
  results: PollRecord[];
}

const POLL_RECORD_STRINGS = ['transactionId', 'product', 'customerReference', 'completed', 'userId'] as const;

/** One polling record, as tolerant as {@link PollRecord} says. */
export function parsePollRecord(entry: unknown): PollRecord {
  if (!isJsonObject(entry)) return { resultId: '' };
  const record: PollRecord = { ...entry, resultId: resultIdFromJson(entry['resultId']) ?? '' };
  for (const key of POLL_RECORD_STRINGS) {
    if (key in record && typeof record[key] !== 'string') delete record[key];
  }
  return record;
}

/** Parses a polling response: only a body that is not an object, or `results` not a list, fails. */
export function parsePollResponse(body: unknown): Parsed<PollResponse> {
  if (!isJsonObject(body)) return { ok: false, paths: ['(body)'] };
  const { results } = body;
  if (results !== undefined && results !== null && !Array.isArray(results)) {
    return { ok: false, paths: ['results'] };
  }
  return { ok: true, value: { ...body, results: (results ?? []).map(parsePollRecord) } };
}
