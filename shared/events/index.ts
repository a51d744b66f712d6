/**
 * Public API for the consumers of the pipeline's events (`idv-pipeline/events`): the detail types, the
 * `source` and `detail-type` values, the JSON Schemas of every `detail`, and the pattern tester that
 * answers as EventBridge's `TestEventPattern` does (try a rule before deploying it). No AWS SDK.
 */

export type {
  DocumentsUploadedDetail,
  ResultChangedDetail,
  ResultErasedDetail,
  ResultIdentifiers,
  ResultStoredDetail,
  ResultUnavailableDetail,
  VerificationOutcome,
} from './detail-types';
export { DETAIL_TYPES, type DetailType, EVENT_SOURCE } from './names';
export {
  type CompiledEventPattern,
  compileEventPattern,
  EventPatternError,
  testEventPattern,
} from './pattern';
export { EVENT_DETAIL_SCHEMAS, type JsonSchema } from './schemas';
