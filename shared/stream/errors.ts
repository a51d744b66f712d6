/**
 * Errors of a result body that cannot be stored as it came. Each carries a `reason` code for the log line
 * and the DLQ runbook, and says whether a redelivery may succeed (`transient`). None carries any part of
 * the body: it holds personal data.
 */
import { ResponseFormatError } from '../client/errors';

/** Why a result could not be stored (docs/pipeline.md, "Bad input"). */
export type ResultReason =
  | 'BODY_TRUNCATED'
  | 'BODY_NOT_JSON'
  | 'BODY_NOT_OBJECT'
  | 'DATA_NOT_STRING'
  | 'DATA_NOT_BASE64'
  | 'DATA_NOT_IMAGE'
  /** Ceilings of the stripped document (`DOCUMENT_LIMITS` in result-ingest.ts). */
  | 'STRING_TOO_LONG'
  | 'TOO_MANY_VALUES'
  | 'TOO_MANY_KEYS'
  | 'TOO_DEEP'
  | 'DOCUMENT_TOO_LARGE'
  | 'TOO_MANY_OBJECTS'
  /** A key twice in one object, at any level: which value counts is not defined. */
  | 'DUPLICATE_KEY';

/** Reasons a redelivery may cure: the same request can give a complete body next time. */
const TRANSIENT: ReadonlySet<ResultReason> = new Set(['BODY_TRUNCATED']);

/** The result body, or one value in it, is not what can be stored. */
export class ResultContentError extends ResponseFormatError {
  override readonly name: string = 'ResultContentError';
  readonly reason: ResultReason;
  readonly transient: boolean;

  constructor(reason: ResultReason, message: string, options?: { cause?: unknown }) {
    super(message, 200, options);
    this.reason = reason;
    this.transient = TRANSIENT.has(reason);
  }
}
