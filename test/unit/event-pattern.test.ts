import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DETAIL_TYPES } from '../../shared/events/names';
import { compileEventPattern, EventPatternError, testEventPattern } from '../../shared/events/pattern';
import { eventValidators } from '../support/pipeline-fakes';

/**
 * The sample event of the EventBridge user guide's pattern pages (an EC2 state change, fields added for
 * the content-filtering examples). Every expected answer below is the one the guide documents.
 */
const ec2Event = {
  version: '0',
  id: 'ddddd4-aaaa-7777-4444-345dd43cc333',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '012345679012',
  time: '2017-10-02T16:24:49Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'],
  detail: {
    'c-count': 5,
    'd-count': 3,
    'x-limit': 301.8,
    'source-ip': '10.0.0.33',
    'source-ip6': '2001:db8:85a3::8a2e:370:7334',
    'instance-id': 'i-000000aaaaaa00000',
    state: 'running',
    'file-name': 'photo.png',
    'event-bus-arn': 'arn:aws:events:us-east-1:123456789012:event-bus/orders',
    'is-spot': false,
    owner: null,
    tags: ['blue', 'green'],
    volumes: [
      { id: 'v-1', size: 8 },
      { id: 'v-2', size: 100 },
    ],
    literal: 'a*b\\c',
  },
};

const cases: Array<[name: string, pattern: object, expected: boolean]> = [
  // Exact values and structure
  ['exact string', { source: ['aws.ec2'] }, true],
  ['exact string is case-sensitive', { source: ['AWS.EC2'] }, false],
  ['any value of the list', { detail: { state: ['initializing', 'running'] } }, true],
  ['all fields must match (AND)', { source: ['aws.ec2'], detail: { state: ['stopped'] } }, false],
  ['nested object', { detail: { state: ['running'] }, region: ['us-east-1'] }, true],
  ['missing field never matches a value', { detail: { missing: ['x'] } }, false],
  ['exact number', { detail: { 'c-count': [5] } }, true],
  ['number is compared by value', { detail: { 'x-limit': [3.018e2] } }, true],
  ['a number never equals its string', { detail: { 'c-count': ['5'] } }, false],
  ['boolean literal', { detail: { 'is-spot': [false] } }, true],
  ['null literal', { detail: { owner: [null] } }, true],
  ['null does not match a missing field', { detail: { missing: [null] } }, false],
  ['empty string matches only an empty string', { detail: { state: [''] } }, false],
  ['event array: intersection with the pattern list', { resources: ['arn:x', ec2Event.resources[0]!] }, true],
  ['event array of scalars', { detail: { tags: ['green'] } }, true],
  [
    'event array of objects: one element matches',
    { detail: { volumes: { id: ['v-2'], size: [100] } } },
    true,
  ],
  [
    'event array of objects: fields of two elements never combine',
    { detail: { volumes: { id: ['v-1'], size: [100] } } },
    false,
  ],
  // prefix / suffix / equals-ignore-case
  ['prefix', { time: [{ prefix: '2017-10-02' }] }, true],
  ['prefix no match', { time: [{ prefix: '2018' }] }, false],
  ['prefix ignores numbers', { detail: { 'c-count': [{ prefix: '5' }] } }, false],
  [
    'prefix equals-ignore-case',
    { 'detail-type': [{ prefix: { 'equals-ignore-case': 'ec2 INSTANCE' } }] },
    true,
  ],
  ['suffix', { detail: { 'file-name': [{ suffix: '.png' }] } }, true],
  ['suffix no match', { detail: { 'file-name': [{ suffix: '.jpg' }] } }, false],
  [
    'suffix equals-ignore-case',
    { detail: { 'file-name': [{ suffix: { 'equals-ignore-case': '.PNG' } }] } },
    true,
  ],
  ['equals-ignore-case', { source: [{ 'equals-ignore-case': 'AWS.EC2' }] }, true],
  ['equals-ignore-case is whole-value', { source: [{ 'equals-ignore-case': 'AWS' }] }, false],
  // anything-but
  ['anything-but string', { detail: { state: [{ 'anything-but': 'initializing' }] } }, true],
  ['anything-but string excluded', { detail: { state: [{ 'anything-but': 'running' }] } }, false],
  ['anything-but number', { detail: { 'x-limit': [{ 'anything-but': 123 }] } }, true],
  ['anything-but string list', { detail: { state: [{ 'anything-but': ['stopped', 'overloaded'] }] } }, true],
  [
    'anything-but string list excluded',
    { detail: { state: [{ 'anything-but': ['stopped', 'running'] }] } },
    false,
  ],
  ['anything-but number list', { detail: { 'c-count': [{ 'anything-but': [100, 200, 300] }] } }, true],
  ['anything-but number list excluded', { detail: { 'c-count': [{ 'anything-but': [5, 6] }] } }, false],
  ['anything-but prefix', { detail: { state: [{ 'anything-but': { prefix: 'init' } }] } }, true],
  ['anything-but prefix excluded', { detail: { state: [{ 'anything-but': { prefix: 'run' } }] } }, false],
  [
    'anything-but suffix excluded',
    { detail: { 'file-name': [{ 'anything-but': { suffix: '.png' } }] } },
    false,
  ],
  [
    'anything-but equals-ignore-case',
    { detail: { state: [{ 'anything-but': { 'equals-ignore-case': 'RUNNING' } }] } },
    false,
  ],
  ['anything-but wildcard', { detail: { 'file-name': [{ 'anything-but': { wildcard: '*/lib/*' } }] } }, true],
  ['anything-but needs the field', { detail: { missing: [{ 'anything-but': 'x' }] } }, false],
  // numeric
  ['numeric range', { detail: { 'c-count': [{ numeric: ['>', 0, '<=', 5] }] } }, true],
  ['numeric range, upper bound exclusive', { detail: { 'c-count': [{ numeric: ['>', 0, '<', 5] }] } }, false],
  ['numeric one comparator', { detail: { 'd-count': [{ numeric: ['<', 10] }] } }, true],
  ['numeric equality', { detail: { 'x-limit': [{ numeric: ['=', 3.018e2] }] } }, true],
  ['numeric >=', { detail: { 'c-count': [{ numeric: ['>=', 6] }] } }, false],
  ['numeric never matches a string', { detail: { state: [{ numeric: ['>', 0] }] } }, false],
  ['numeric on an array of objects', { detail: { volumes: { size: [{ numeric: ['>', 50] }] } } }, true],
  // exists
  ['exists true', { detail: { 'c-count': [{ exists: true }] } }, true],
  ['exists true, field missing', { detail: { missing: [{ exists: true }] } }, false],
  ['exists false, field missing', { detail: { missing: [{ exists: false }] } }, true],
  ['exists false, field present', { detail: { 'c-count': [{ exists: false }] } }, false],
  ['exists false matches an object (leaves only)', { detail: [{ exists: false }] }, true],
  ['exists true does not match an object', { detail: [{ exists: true }] }, false],
  ['exists true matches null', { detail: { owner: [{ exists: true }] } }, true],
  // wildcard
  [
    'wildcard',
    { detail: { 'event-bus-arn': [{ wildcard: 'arn:aws:events:us-east-1:*:event-bus/*' }] } },
    true,
  ],
  ['wildcard no match', { source: [{ wildcard: 'aws.*2x' }] }, false],
  ['wildcard zero characters', { source: [{ wildcard: 'aws.ec2*' }] }, true],
  ['wildcard escaped asterisk and backslash', { detail: { literal: [{ wildcard: 'a\\*b\\\\c' }] } }, true],
  ['wildcard escaped asterisk is literal', { detail: { state: [{ wildcard: 'run\\*' }] } }, false],
  // cidr
  ['cidr IPv4', { detail: { 'source-ip': [{ cidr: '10.0.0.0/24' }] } }, true],
  ['cidr IPv4 outside', { detail: { 'source-ip': [{ cidr: '10.0.1.0/24' }] } }, false],
  ['cidr IPv4 /8', { detail: { 'source-ip': [{ cidr: '10.0.0.0/8' }] } }, true],
  ['cidr IPv6', { detail: { 'source-ip6': [{ cidr: '2001:db8::/32' }] } }, true],
  ['cidr IPv6 outside', { detail: { 'source-ip6': [{ cidr: '2001:db9::/32' }] } }, false],
  ['cidr IPv4 range vs IPv6 value', { detail: { 'source-ip6': [{ cidr: '0.0.0.0/0' }] } }, false],
  ['cidr on a value that is not an IP', { detail: { state: [{ cidr: '10.0.0.0/8' }] } }, false],
  // $or
  ['$or one branch matches', { $or: [{ source: ['aws.s3'] }, { detail: { state: ['running'] } }] }, true],
  ['$or no branch matches', { $or: [{ source: ['aws.s3'] }, { detail: { state: ['stopped'] } }] }, false],
  [
    '$or with AND around it',
    { source: ['aws.s3'], $or: [{ region: ['us-east-1'] }, { account: ['x'] }] },
    false,
  ],
  [
    '$or nested in detail',
    { detail: { $or: [{ 'c-count': [{ numeric: ['>', 10] }] }, { 'd-count': [3] }] } },
    true,
  ],
  ['two values in one list are OR', { detail: { state: [{ prefix: 'stop' }, { suffix: 'ing' }] } }, true],
];

describe('EventBridge pattern matching (answers from the EventBridge user guide)', () => {
  it.each(cases)('%s', (_name, pattern, expected) => {
    // Act
    const result = testEventPattern(pattern, ec2Event);

    // Assess
    expect(result).toBe(expected);
  });

  it('accepts the pattern as JSON text, as EventBridge rules store it', () => {
    expect(testEventPattern('{"source":["aws.ec2"]}', ec2Event)).toBe(true);
  });
});

const invalid: Array<[name: string, pattern: unknown, path: string, reason: RegExp]> = [
  [
    'a leaf that is not an array',
    { detail: { state: 'running' } },
    'detail.state',
    /must be an object or an array/,
  ],
  ['a top-level leaf that is not an array', { source: 'aws.ec2' }, 'source', /must be an object or an array/],
  [
    'an unknown operator',
    { detail: { state: [{ contains: 'run' }] } },
    'detail.state',
    /unrecognized match type contains/,
  ],
  [
    'two operators in one object',
    { source: [{ prefix: 'a', suffix: 'b' }] },
    'source',
    /exactly one operator/,
  ],
  ['an empty list', { source: [] }, 'source', /empty arrays/],
  ['a nested list', { source: [['a']] }, 'source', /match value must be/],
  [
    'numeric with an unknown operator',
    { n: [{ numeric: ['>>', 1] }] },
    'n.numeric',
    /numeric range operator/,
  ],
  [
    'numeric with a string bound',
    { n: [{ numeric: ['>', 'one'] }] },
    'n.numeric',
    /value of > must be numeric/,
  ],
  ['numeric with three elements', { n: [{ numeric: ['>', 0, '<'] }] }, 'n.numeric', /one or two/],
  [
    'numeric with bottom above top',
    { n: [{ numeric: ['>', 5, '<', 1] }] },
    'n.numeric',
    /bottom must be less/,
  ],
  ['numeric with two lower bounds', { n: [{ numeric: ['>', 1, '>=', 2] }] }, 'n.numeric', /two lower bounds/],
  ['a malformed cidr', { ip: [{ cidr: '10.0.0.300/24' }] }, 'ip.cidr', /malformed CIDR/],
  ['a cidr prefix too long', { ip: [{ cidr: '10.0.0.0/33' }] }, 'ip.cidr', /prefix length/],
  ['a malformed IPv6 cidr', { ip: [{ cidr: '2001:::1/64' }] }, 'ip.cidr', /malformed CIDR/],
  ['exists that is not a boolean', { a: [{ exists: 'yes' }] }, 'a.exists', /true or false/],
  ['prefix that is not a string', { a: [{ prefix: 1 }] }, 'a.prefix', /must be a string/],
  ['consecutive wildcards', { a: [{ wildcard: 'a**b' }] }, 'a.wildcard', /consecutive wildcard/],
  ['a bad wildcard escape', { a: [{ wildcard: 'a\\b' }] }, 'a.wildcard', /backslash/],
  [
    'anything-but mixing strings and numbers',
    { a: [{ 'anything-but': ['a', 1] }] },
    'a.anything-but',
    /all values/,
  ],
  [
    'anything-but with an unknown operator',
    { a: [{ 'anything-but': { numeric: ['>', 1] } }] },
    'a.anything-but',
    /inside anything-but/,
  ],
  ['$or with one branch', { $or: [{ a: ['x'] }] }, '$or', /at least two/],
  ['$or branch invalid', { $or: [{ a: ['x'] }, { b: 'y' }] }, '$or[1].b', /must be an object or an array/],
  ['an empty pattern', {}, '(root)', /empty objects/],
  ['a pattern that is not an object', ['source'], '', /must be a JSON object/],
  ['a pattern that is not JSON', '{"source": [', '', /not valid JSON/],
];

describe('invalid patterns are refused with the path, as EventBridge refuses them', () => {
  it.each(invalid)('%s', (_name, pattern, path, reason) => {
    // Act
    let error: unknown;
    try {
      compileEventPattern(pattern);
    } catch (caught) {
      error = caught;
    }

    // Assess
    expect(error).toBeInstanceOf(EventPatternError);
    expect((error as EventPatternError).path).toBe(path);
    expect((error as EventPatternError).message).toMatch(/^Event pattern is not valid\. Reason: /);
    expect((error as EventPatternError).reason).toMatch(reason);
  });
});

/** The JSON code blocks of docs/events.md: the five sample events and the named rule patterns. */
function docsSamples() {
  const text = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
  const events: Record<string, { source: string; 'detail-type': string; detail: object }> = {};
  for (const match of text.matchAll(/```json\n([\s\S]*?)```/g)) {
    const value = JSON.parse(match[1]!);
    if (value.source === 'idv.pipeline' && value.detail) events[value['detail-type']] = value;
  }
  const section = text.slice(text.indexOf('## Rule patterns'));
  const patterns: Record<string, object> = {};
  for (const match of section.matchAll(/\*\*([\w-]+)\*\* —[^\n]*\n(?:[^\n]*\n)*?\n```json\n([\s\S]*?)```/g)) {
    patterns[match[1]!] = JSON.parse(match[2]!);
  }
  return { events, patterns };
}

describe('the sample patterns of docs/events.md against the project’s own events', () => {
  const { events, patterns } = docsSamples();
  const stored = DETAIL_TYPES.resultStored;
  const unavailable = DETAIL_TYPES.resultUnavailable;
  const uploaded = DETAIL_TYPES.documentsUploaded;
  const erased = DETAIL_TYPES.resultErased;
  const changed = DETAIL_TYPES.resultChanged;

  it('the sample events are valid against the shipped schemas', () => {
    const validators = eventValidators();
    expect(Object.keys(events).sort()).toEqual([uploaded, stored, unavailable, erased, changed].sort());
    for (const [type, event] of Object.entries(events)) {
      const validate = validators[type as keyof typeof validators];
      expect(validate(event.detail), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  const expected: Record<string, string[]> = {
    disapproved: [stored],
    'right-to-work': [stored],
    'expired-document': [stored],
    'needs-attention': [stored, unavailable],
    'production-uploads': [uploaded],
    'many-objects': [stored],
    'overturned-to-disapproved': [changed],
  };

  it.each(Object.entries(expected))('%s matches exactly %j', (name, matching) => {
    // Prepare
    const pattern = compileEventPattern(patterns[name]);

    // Act
    const matched = Object.entries(events)
      .filter(([, event]) => pattern.matches(event))
      .map(([type]) => type);

    // Assess
    expect(matched.sort()).toEqual([...matching].sort());
  });

  it('every pattern on the page is covered here, and rules/disapproved.json is the page’s pattern', () => {
    expect(Object.keys(patterns).sort()).toEqual(Object.keys(expected).sort());
    const rule = JSON.parse(readFileSync(new URL('../../rules/disapproved.json', import.meta.url), 'utf8'));
    expect(rule.EventPattern).toEqual(patterns['disapproved']);
    const overturned = JSON.parse(
      readFileSync(new URL('../../rules/overturned-to-disapproved.json', import.meta.url), 'utf8'),
    );
    expect(overturned.EventPattern).toEqual(patterns['overturned-to-disapproved']);
  });

  it('a stored result that is approved, or of another product, is not "disapproved"', () => {
    const base = events[stored]!;
    const pattern = compileEventPattern(patterns['disapproved']);
    expect(pattern.matches({ ...base, detail: { ...base.detail, result: 'APPROVED' } })).toBe(false);
    expect(pattern.matches({ ...base, 'detail-type': unavailable })).toBe(false);
  });
});
