/**
 * The contents of a rule file, as the CLI and the local run read it: either a bare event pattern or a
 * rule object `{ "Name"?, "EventPattern": {…} | "<json>" }` (the shape `aws events describe-rule` prints,
 * so a deployed rule can be tried as it is).
 */

import { PipelineError } from '../errors';
import { isJsonObject } from '../json-object';
import { type CompiledEventPattern, compileEventPattern, EventPatternError } from './pattern';

/** A rule file that cannot be used: not a pattern, a bad name. The message names the file. */
export class RuleDocumentError extends PipelineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RuleDocumentError';
  }
}

/** A validated rule. */
export interface RuleDocument {
  name: string;
  pattern: CompiledEventPattern;
}

/** EventBridge rule names: letters, digits, `.`, `-`, `_`, at most 64. They also name files locally. */
const RULE_NAME = /^[.\-_A-Za-z0-9]{1,64}$/;

/** The pattern of a rule file's JSON value: its `EventPattern` when it has one, else the value itself. */
export function patternOfRuleDocument(value: unknown): unknown {
  if (isJsonObject(value) && 'EventPattern' in value) return value.EventPattern;
  return value;
}

/**
 * Validates a rule file's JSON value. `fallbackName` (the file's base name) names a bare pattern or a
 * rule without `Name`. `source` (the file name) prefixes every message.
 */
export function parseRuleDocument(value: unknown, fallbackName: string, source: string): RuleDocument {
  const rawName = isJsonObject(value) && 'EventPattern' in value ? value.Name : undefined;
  if (rawName !== undefined && typeof rawName !== 'string') {
    throw new RuleDocumentError(`${source}: "Name" must be a string`);
  }
  const name = rawName ?? fallbackName;
  if (!RULE_NAME.test(name)) {
    throw new RuleDocumentError(
      `${source}: rule name "${name}" must be 1 to 64 letters, digits, ".", "-" or "_" (give the rule a "Name")`,
    );
  }
  try {
    return { name, pattern: compileEventPattern(patternOfRuleDocument(value)) };
  } catch (error) {
    if (error instanceof EventPatternError)
      throw new RuleDocumentError(`${source}: ${error.message}`, { cause: error });
    throw error;
  }
}
