/**
 * A printable copy of an error body's `message` and `details` (spec §7), for the person who made the
 * request (the `idv` CLI prints it) and for nobody else: only a client built with `keepErrorText` makes one,
 * and it sits on the error as non-enumerable fields that `JSON.stringify`, `util.inspect` and loggers skip.
 * The copy is bounded (lengths and entry count), printable ASCII only (no control characters or terminal
 * escape sequences) and passed through `scrubSecrets`, so an echoed token or a hostile body cannot reach
 * a terminal whole.
 */
import { scrubSecrets } from '../scrub';

/** Longest `message` kept, in characters. */
export const MAX_ERROR_MESSAGE_CHARS = 300;
/** Longest `field` and description of a `details` entry kept, in characters. */
export const MAX_DETAIL_FIELD_CHARS = 100;
export const MAX_DETAIL_DESCRIPTION_CHARS = 200;
/** Most `details` entries kept. */
export const MAX_ERROR_DETAILS = 10;

/** One entry of an error body's `details`: the field it names, if any, and what it says. */
export interface ServiceErrorDetail {
  readonly field?: string;
  readonly description: string;
}

/** The printable copy of an error body's words. */
export interface ServiceErrorText {
  readonly message?: string;
  readonly details: readonly ServiceErrorDetail[];
  /** How many `details` entries the body had in all (more than `details` holds when some were left out). */
  readonly detailsTotal: number;
}

/** Terminal escape sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ESC \`) and two-character ones. */
const ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|\x9b[0-?]*[ -/]*[@-~]/g;

/** `text` as one line of printable ASCII, credentials redacted, at most `max` characters (`...` marks a cut). */
export function printableText(text: string, max: number): string {
  // Bound the work first: a 1 MB message is cut before any pattern runs over it.
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text;
  const clean = scrubSecrets(
    head
      .replace(ESCAPES, '')
      .replace(/[^\x20-\x7e]+/g, ' ')
      .replace(/ {2,}/g, ' ')
      .trim(),
  );
  const cut = clean.length > max || head.length < text.length;
  return cut ? `${clean.slice(0, Math.max(0, max - 3)).trimEnd()}...` : clean;
}

const FIELD_KEYS = ['field', 'fieldPath', 'path', 'property', 'parameter'] as const;
const DESCRIPTION_KEYS = ['description', 'message', 'reason', 'detail', 'error'] as const;

/**
 * The printable copy of `message` and `details` of an error body (`undefined` fields when absent). A details
 * entry is a string, or an object whose field name and description come from the usual keys (`field`,
 * `description`, `message`, …); any other object says its simple `key=value` pairs. Google-style
 * `fieldViolations` lists are unfolded into one entry each.
 */
/**
 * What keeps an error body's words: {@link serviceErrorText}, handed in as the client's `keepErrorText` option
 * by whoever wants them (the CLI), so a bundle that never keeps them (the functions) does not carry this file.
 */
export type ErrorTextKeeper = (message: unknown, details: unknown) => ServiceErrorText;

export function serviceErrorText(message: unknown, details: unknown): ServiceErrorText {
  const entries = Array.isArray(details) ? details.flatMap(unfold) : [];
  const kept = entries.slice(0, MAX_ERROR_DETAILS).map(detailOf);
  return {
    ...(typeof message === 'string' &&
      message.trim() !== '' && { message: printableText(message, MAX_ERROR_MESSAGE_CHARS) }),
    details: kept.filter((d): d is ServiceErrorDetail => d !== undefined),
    detailsTotal: entries.length,
  };
}

function unfold(entry: unknown): unknown[] {
  if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
    const violations = (entry as Record<string, unknown>)['fieldViolations'];
    if (Array.isArray(violations)) return violations;
  }
  return [entry];
}

function detailOf(entry: unknown): ServiceErrorDetail | undefined {
  if (typeof entry === 'string') return { description: printableText(entry, MAX_DETAIL_DESCRIPTION_CHARS) };
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
  const object = entry as Record<string, unknown>;
  const pick = (keys: readonly string[]) => keys.map((k) => object[k]).find((v) => typeof v === 'string');
  const field = pick(FIELD_KEYS) as string | undefined;
  let description = pick(DESCRIPTION_KEYS) as string | undefined;
  if (description === undefined) {
    const pairs = Object.entries(object)
      .filter(
        ([key, value]) => !key.startsWith('@') && ['string', 'number', 'boolean'].includes(typeof value),
      )
      .slice(0, 8)
      .map(([key, value]) => `${key}=${String(value)}`);
    description = pairs.join(', ');
  }
  const text = printableText(description, MAX_DETAIL_DESCRIPTION_CHARS);
  const name = field === undefined ? '' : printableText(field, MAX_DETAIL_FIELD_CHARS);
  if (text === '' && name === '') return undefined;
  return { ...(name !== '' && { field: name }), description: text };
}
