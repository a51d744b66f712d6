/**
 * EventBridge event patterns, evaluated locally: the same answers `TestEventPattern` gives, so a
 * downstream team can try a rule against the pipeline's events before anything is deployed.
 *
 * Semantics (EventBridge user guide, "Event patterns" and "Content filtering"):
 * - every field named in the pattern must match (AND); the values in a leaf array are alternatives (OR);
 * - a leaf matches an event array when any element matches; an object pattern matches an event array of
 *   objects when one element matches the whole object pattern (fields of different elements never combine);
 * - strings are compared exactly (case-sensitive), numbers by value (`300` = `3.0e2`), `true`/`false`/`null`
 *   as JSON literals; `prefix`, `suffix`, `equals-ignore-case`, `wildcard` and `cidr` apply to strings only,
 *   `numeric` to numbers only;
 * - `exists` looks at leaves only: an object value counts as absent (`exists: false` matches it);
 * - `$or` holds two or more sub-patterns, at least one of which must match.
 * An invalid pattern is refused with an {@link EventPatternError} naming the path, as EventBridge refuses it.
 * No package dependencies: the CLI, the local run and tests all use this one module.
 */

import { PipelineError } from '../errors';
import { isJsonObject } from '../json-object';

/** An invalid event pattern. `path` is the dotted path of the offending field (`detail.result`). */
export class EventPatternError extends PipelineError {
  readonly path: string;
  readonly reason: string;
  constructor(reason: string, path: string) {
    super(`Event pattern is not valid. Reason: ${reason}${path ? ` at ${path}` : ''}`);
    this.name = 'EventPatternError';
    this.path = path;
    this.reason = reason;
  }
}

/** A validated pattern, ready to match many events. Build it with {@link compileEventPattern}. */
export interface CompiledEventPattern {
  /** True when the event matches the pattern. */
  matches(event: unknown): boolean;
}

type Scalar = string | number | boolean | null;

/** One alternative of a leaf array. `absent` answers for a missing (or object-valued) field. */
interface ValueMatcher {
  absent: boolean;
  test(value: Scalar): boolean;
}

interface ObjectNode {
  kind: 'object';
  fields: Array<[string, PatternNode]>;
  /** Each entry is one `$or`: at least one of its alternatives must match. */
  ors: ObjectNode[][];
}

interface LeafNode {
  kind: 'leaf';
  matchers: ValueMatcher[];
}

type PatternNode = ObjectNode | LeafNode;

const OR_KEY = '$or';

/**
 * Validates `pattern` (an object, or its JSON text) and returns a matcher.
 * @throws EventPatternError naming the path of the first problem found.
 */
export function compileEventPattern(pattern: unknown): CompiledEventPattern {
  let value = pattern;
  if (typeof pattern === 'string') {
    try {
      value = JSON.parse(pattern);
    } catch {
      throw new EventPatternError('the pattern is not valid JSON', '');
    }
  }
  if (!isJsonObject(value)) throw new EventPatternError('the pattern must be a JSON object', '');
  const root = compileObject(value, '');
  return { matches: (event) => matchObject(root, event) };
}

/** One-shot convenience: validates `pattern` and matches `event` against it (TestEventPattern). */
export function testEventPattern(pattern: unknown, event: unknown): boolean {
  return compileEventPattern(pattern).matches(event);
}

// ---------------------------------------------------------------------------------------------------
// Compilation (validation happens here, once per pattern)

function compileObject(value: Record<string, unknown>, path: string): ObjectNode {
  const keys = Object.keys(value);
  if (keys.length === 0) throw new EventPatternError('empty objects are not allowed', path || '(root)');
  const node: ObjectNode = { kind: 'object', fields: [], ors: [] };
  for (const key of keys) {
    const child = value[key];
    const childPath = path ? `${path}.${key}` : key;
    if (key === OR_KEY) {
      node.ors.push(compileOr(child, childPath));
    } else if (Array.isArray(child)) {
      node.fields.push([key, compileLeaf(child, childPath)]);
    } else if (isJsonObject(child)) {
      node.fields.push([key, compileObject(child, childPath)]);
    } else {
      throw new EventPatternError(`"${key}" must be an object or an array`, childPath);
    }
  }
  return node;
}

function compileOr(value: unknown, path: string): ObjectNode[] {
  if (!Array.isArray(value) || value.length < 2 || !value.every(isJsonObject)) {
    throw new EventPatternError('"$or" must be an array of at least two objects', path);
  }
  return value.map((alternative, index) => compileObject(alternative, `${path}[${index}]`));
}

function compileLeaf(values: unknown[], path: string): LeafNode {
  if (values.length === 0) throw new EventPatternError('empty arrays are not allowed', path);
  return { kind: 'leaf', matchers: values.map((value) => compileValue(value, path)) };
}

function compileValue(value: unknown, path: string): ValueMatcher {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    return { absent: false, test: (candidate) => candidate === value };
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new EventPatternError('numbers must be finite', path);
    return { absent: false, test: (candidate) => candidate === value };
  }
  if (!isJsonObject(value)) {
    throw new EventPatternError('match value must be a string, number, true, false, null or an object', path);
  }
  const keys = Object.keys(value);
  if (keys.length !== 1) {
    throw new EventPatternError('a match object must hold exactly one operator', path);
  }
  const operator = keys[0]!;
  const operand = value[operator];
  const compile = OPERATORS[operator];
  if (!compile) throw new EventPatternError(`unrecognized match type ${operator}`, path);
  return compile(operand, `${path}.${operator}`);
}

type OperatorCompiler = (operand: unknown, path: string) => ValueMatcher;

/** Strings-only matcher: a number, boolean or null never matches a string operator. */
const onStrings = (test: (value: string) => boolean): ValueMatcher => ({
  absent: false,
  test: (candidate) => typeof candidate === 'string' && test(candidate),
});

const OPERATORS: Record<string, OperatorCompiler> = {
  prefix: (operand, path) => onStrings(affixTest(operand, path, 'prefix')),
  suffix: (operand, path) => onStrings(affixTest(operand, path, 'suffix')),
  'equals-ignore-case': (operand, path) => {
    const expected = requireString(operand, path, 'equals-ignore-case').toLowerCase();
    return onStrings((value) => value.toLowerCase() === expected);
  },
  wildcard: (operand, path) => onStrings(wildcardTest(requireString(operand, path, 'wildcard'), path)),
  cidr: (operand, path) => {
    const range = parseCidr(operand, path);
    return onStrings((value) => inCidr(range, value));
  },
  exists: (operand, path) => {
    if (typeof operand !== 'boolean')
      throw new EventPatternError('exists match pattern must be either true or false', path);
    return { absent: !operand, test: () => operand };
  },
  numeric: (operand, path) => numericMatcher(operand, path),
  'anything-but': (operand, path) => anythingBut(operand, path),
};

function requireString(operand: unknown, path: string, operator: string): string {
  if (typeof operand !== 'string')
    throw new EventPatternError(`${operator} match pattern must be a string`, path);
  return operand;
}

/** `prefix`/`suffix`: a string, or `{ "equals-ignore-case": string }` for the case-insensitive form. */
function affixTest(operand: unknown, path: string, kind: 'prefix' | 'suffix'): (value: string) => boolean {
  let affix: string;
  let ignoreCase = false;
  if (isJsonObject(operand) && Object.keys(operand).length === 1 && 'equals-ignore-case' in operand) {
    affix = requireString(operand['equals-ignore-case'], `${path}.equals-ignore-case`, kind);
    ignoreCase = true;
  } else {
    affix = requireString(operand, path, kind);
  }
  const expected = ignoreCase ? affix.toLowerCase() : affix;
  return (value) => {
    const subject = ignoreCase ? value.toLowerCase() : value;
    return kind === 'prefix' ? subject.startsWith(expected) : subject.endsWith(expected);
  };
}

/**
 * `*` matches any run of characters, `\*` a literal asterisk and `\\` a backslash. EventBridge refuses
 * consecutive wildcards and a backslash before any other character; so do we.
 */
function wildcardTest(pattern: string, path: string): (value: string) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\') {
      const next = pattern[i + 1];
      if (next !== '*' && next !== '\\') {
        throw new EventPatternError('a backslash in a wildcard may only escape * or \\', path);
      }
      source += escapeRegExp(next);
      i++;
    } else if (char === '*') {
      if (pattern[i + 1] === '*')
        throw new EventPatternError('consecutive wildcard characters are not allowed', path);
      source += '.*';
    } else {
      source += escapeRegExp(char);
    }
  }
  const regex = new RegExp(`^${source}$`, 's');
  return (value) => regex.test(value);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

// --- numeric -----------------------------------------------------------------------------------------

const LOWER = new Set(['>', '>=']);
const UPPER = new Set(['<', '<=']);

/** `[op, n]`, `[op, n, op, n]` (one lower and one upper bound) or `["=", n]`. */
function numericMatcher(operand: unknown, path: string): ValueMatcher {
  if (!Array.isArray(operand) || operand.length === 0) {
    throw new EventPatternError('value of numeric must be an array', path);
  }
  if (operand.length !== 2 && operand.length !== 4) {
    throw new EventPatternError('numeric expects one or two operator/number pairs', path);
  }
  const checks: Array<(value: number) => boolean> = [];
  let lower: number | undefined;
  let upper: number | undefined;
  for (let i = 0; i < operand.length; i += 2) {
    const operator = operand[i];
    const bound = operand[i + 1];
    if (typeof operator !== 'string' || !(LOWER.has(operator) || UPPER.has(operator) || operator === '=')) {
      throw new EventPatternError(`unrecognized numeric range operator: ${JSON.stringify(operator)}`, path);
    }
    if (typeof bound !== 'number' || !Number.isFinite(bound)) {
      throw new EventPatternError(`value of ${operator} must be numeric`, path);
    }
    if (operator === '=') {
      if (operand.length !== 2) throw new EventPatternError('"=" cannot be combined with a range', path);
      checks.push((value) => value === bound);
    } else if (LOWER.has(operator)) {
      if (lower !== undefined) throw new EventPatternError('numeric has two lower bounds', path);
      lower = bound;
      checks.push(operator === '>' ? (value) => value > bound : (value) => value >= bound);
    } else {
      if (upper !== undefined) throw new EventPatternError('numeric has two upper bounds', path);
      upper = bound;
      checks.push(operator === '<' ? (value) => value < bound : (value) => value <= bound);
    }
  }
  if (lower !== undefined && upper !== undefined && lower >= upper) {
    throw new EventPatternError('bottom must be less than top', path);
  }
  return {
    absent: false,
    test: (value) => typeof value === 'number' && checks.every((check) => check(value)),
  };
}

// --- anything-but ------------------------------------------------------------------------------------

/**
 * `anything-but`: a string or number, a list of strings or of numbers, or one of `prefix`, `suffix`,
 * `equals-ignore-case`, `wildcard`. It matches any present value that is not excluded — a value of another
 * type included (EventBridge compares the JSON values, so `5` is "anything but" `"initializing"`).
 */
function anythingBut(operand: unknown, path: string): ValueMatcher {
  const negate = (test: (value: Scalar) => boolean): ValueMatcher => ({
    absent: false,
    test: (v) => !test(v),
  });
  if (typeof operand === 'string' || typeof operand === 'number') {
    return negate((value) => value === operand);
  }
  if (Array.isArray(operand)) {
    const allStrings = operand.every((item) => typeof item === 'string');
    const allNumbers = operand.every((item) => typeof item === 'number' && Number.isFinite(item));
    if (operand.length === 0 || (!allStrings && !allNumbers)) {
      throw new EventPatternError(
        'inside anything-but list, all values must be strings or all numbers',
        path,
      );
    }
    const excluded = new Set<unknown>(operand);
    return negate((value) => excluded.has(value));
  }
  if (isJsonObject(operand) && Object.keys(operand).length === 1) {
    const [key] = Object.keys(operand) as [string];
    const inner = operand[key];
    const innerPath = `${path}.${key}`;
    const strings = (test: (value: string) => boolean) =>
      negate((value) => typeof value === 'string' && test(value));
    switch (key) {
      case 'prefix':
      case 'suffix':
        return strings(affixTest(requireString(inner, innerPath, key), innerPath, key));
      case 'equals-ignore-case': {
        const list = stringList(inner, innerPath, key).map((item) => item.toLowerCase());
        return strings((value) => list.includes(value.toLowerCase()));
      }
      case 'wildcard': {
        const tests = stringList(inner, innerPath, key).map((item) => wildcardTest(item, innerPath));
        return strings((value) => tests.some((test) => test(value)));
      }
    }
  }
  throw new EventPatternError(
    'value inside anything-but must be a string, a number, a list of them, or prefix, suffix, equals-ignore-case or wildcard',
    path,
  );
}

function stringList(operand: unknown, path: string, operator: string): string[] {
  if (typeof operand === 'string') return [operand];
  if (Array.isArray(operand) && operand.length > 0 && operand.every((item) => typeof item === 'string')) {
    return operand;
  }
  throw new EventPatternError(`${operator} inside anything-but must be a string or a list of strings`, path);
}

// --- cidr ----------------------------------------------------------------------------------------------

interface CidrRange {
  version: 4 | 6;
  network: bigint;
  mask: bigint;
}

function parseCidr(operand: unknown, path: string): CidrRange {
  const text = requireString(operand, path, 'cidr');
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const parsed = parseIp(address);
  if (!parsed) throw new EventPatternError(`malformed CIDR, "${text}" is not an IP address range`, path);
  const bits = parsed.version === 4 ? 32 : 128;
  const lengthText = slash === -1 ? String(bits) : text.slice(slash + 1);
  const length = /^\d{1,3}$/.test(lengthText) ? Number(lengthText) : Number.NaN;
  if (!(length >= 0 && length <= bits)) {
    throw new EventPatternError(`malformed CIDR, prefix length of "${text}" must be 0 to ${bits}`, path);
  }
  const all = (1n << BigInt(bits)) - 1n;
  const mask = (all << BigInt(bits - length)) & all;
  return { version: parsed.version, network: parsed.value & mask, mask };
}

function inCidr(range: CidrRange, value: string): boolean {
  const ip = parseIp(value);
  return ip !== undefined && ip.version === range.version && (ip.value & range.mask) === range.network;
}

/** Parses a dotted IPv4 or an IPv6 address (with `::` and an embedded IPv4 tail) into an integer. */
function parseIp(text: string): { version: 4 | 6; value: bigint } | undefined {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === undefined ? undefined : { version: 6, value };
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { version: 4, value };
}

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined): string[] | undefined => (half ? half.split(':') : []);
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : undefined;
  const words: number[] = [];
  const push = (list: string[], isLast: boolean): boolean => {
    for (let i = 0; i < list.length; i++) {
      const group = list[i]!;
      if (isLast && i === list.length - 1 && group.includes('.')) {
        const v4 = parseIpv4(group);
        if (v4 === undefined) return false;
        words.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-f]{1,4}$/i.test(group)) {
        words.push(Number.parseInt(group, 16));
      } else {
        return false;
      }
    }
    return true;
  };
  if (!head || !push(head, tail === undefined)) return undefined;
  const headLength = words.length;
  if (tail !== undefined && !push(tail, true)) return undefined;
  if (tail === undefined ? words.length !== 8 : words.length > 7) return undefined;
  const full = [
    ...words.slice(0, headLength),
    ...new Array(8 - words.length).fill(0),
    ...words.slice(headLength),
  ];
  return full.reduce((acc: bigint, word: number) => (acc << 16n) | BigInt(word), 0n);
}

// ---------------------------------------------------------------------------------------------------
// Matching

function matchObject(node: ObjectNode, value: unknown): boolean {
  if (Array.isArray(value)) {
    // One element must match the whole object pattern, so fields of different elements never combine.
    const objects = flatten(value).filter(isJsonObject);
    if (objects.length > 0) return objects.some((element) => matchObject(node, element));
    return matchFields(node, undefined);
  }
  return matchFields(node, isJsonObject(value) ? value : undefined);
}

function matchFields(node: ObjectNode, object: Record<string, unknown> | undefined): boolean {
  for (const [key, child] of node.fields) {
    const value = object && Object.hasOwn(object, key) ? object[key] : undefined;
    const ok = child.kind === 'object' ? matchObject(child, value) : matchLeaf(child, value);
    if (!ok) return false;
  }
  return node.ors.every((alternatives) =>
    alternatives.some((alternative) => matchFields(alternative, object)),
  );
}

function matchLeaf(node: LeafNode, value: unknown): boolean {
  const scalars = leafValues(value);
  if (scalars.length === 0) return node.matchers.some((matcher) => matcher.absent);
  return node.matchers.some((matcher) => !matcher.absent && scalars.some((scalar) => matcher.test(scalar)));
}

/** The scalar values at a leaf: none for a missing field or an object; every element of an array. */
function leafValues(value: unknown): Scalar[] {
  if (value === undefined || isJsonObject(value)) return [];
  if (Array.isArray(value)) return flatten(value).filter((item): item is Scalar => !isJsonObject(item));
  return [value as Scalar];
}

function flatten(values: unknown[]): unknown[] {
  return values.flatMap((item) => (Array.isArray(item) ? flatten(item) : [item]));
}
