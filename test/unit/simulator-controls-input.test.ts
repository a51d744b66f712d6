/**
 * The simulator's `/__sim` controls check what they are sent before acting on it: a seed request and a
 * result fault name the problem, and an array where an object belongs is refused like any other non-object.
 */
import { describe, expect, it } from 'vitest';
import { resultFaultProblem } from '../../simulator/faults';
import { seedProblem } from '../../simulator/seed';

describe('POST /__sim/seed input', () => {
  it('accepts groups of known kinds with a whole count', () => {
    // Act / Assess
    expect(seedProblem({ groups: [{ kind: 'vog', count: 3 }] })).toBeUndefined();
  });

  it.each([
    ['no groups', {}, 'groups must be a non-empty list'],
    ['an array as a group', { groups: [[1]] }, 'each group must be an object'],
    ['null as a group', { groups: [null] }, 'each group must be an object'],
    ['a count of zero', { groups: [{ kind: 'vog', count: 0 }] }, 'count must be a whole number ≥ 1'],
    ['an unknown kind', { groups: [{ kind: 'other', count: 1 }] }, 'kind must be vog or secureLink'],
  ])('refuses %s', (_label, body, problem) => {
    // Act / Assess
    expect(seedProblem(body)).toBe(problem);
  });
});

describe('POST /__sim/result-faults input', () => {
  it.each([
    ['an array', []],
    ['null', null],
    ['a string', 'dataNotBase64'],
  ])('refuses %s as the fault', (_label, body) => {
    // Act / Assess
    expect(resultFaultProblem(body)).toBe('must be an object');
  });
});
