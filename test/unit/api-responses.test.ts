import { describe, expect, it } from 'vitest';
import {
  parseErrorBody,
  parsePollRecord,
  parsePollResponse,
  parseTokenResponse,
} from '../../shared/api/responses';

describe('token response (§4.6)', () => {
  it('reads expiresIn as the spec writes it (a string of seconds) or as a JSON number, tokenType as Bearer', () => {
    // Act
    const asString = parseTokenResponse({
      accessToken: 'a',
      expiresIn: ' 3600 ',
      tokenType: 'bearer',
      extra: 1,
    });
    const asNumber = parseTokenResponse({ accessToken: 'a', expiresIn: 59.5 });
    const nullType = parseTokenResponse({ accessToken: 'a', expiresIn: '60', tokenType: null });

    // Assess
    expect(asString).toEqual({
      ok: true,
      value: { accessToken: 'a', expiresIn: 3600, tokenType: 'Bearer', extra: 1 },
    });
    expect(asNumber).toEqual({ ok: true, value: { accessToken: 'a', expiresIn: 59.5, tokenType: 'Bearer' } });
    expect(nullType.ok && nullType.value.tokenType).toBe('Bearer');
    expect(parseTokenResponse({ accessToken: 'a', expiresIn: 1, tokenType: 'MAC' })).toMatchObject({
      value: { tokenType: 'MAC' },
    });
  });

  it.each([
    [{ expiresIn: '60' }, ['accessToken']],
    [{ accessToken: '', expiresIn: '60' }, ['accessToken']],
    [{ accessToken: 'a', expiresIn: '-5' }, ['expiresIn']],
    [{ accessToken: 'a', expiresIn: '0' }, ['expiresIn']],
    [{ accessToken: 'a', expiresIn: 0 }, ['expiresIn']],
    [{ accessToken: 'a', expiresIn: 'abc' }, ['expiresIn']],
    [{ accessToken: 'a', expiresIn: -5 }, ['expiresIn']],
    [{ accessToken: 'a', expiresIn: '1h' }, ['expiresIn']],
    [{ accessToken: 'a', expiresIn: 10 * 365 * 86_400 + 1 }, ['expiresIn']],
    [{ accessToken: 'a' }, ['expiresIn']],
    [{ accessToken: 'a', expiresIn: 60, tokenType: 5 }, ['tokenType']],
    [{ accessToken: 7, expiresIn: true }, ['accessToken', 'expiresIn']],
    ['token', ['(body)']],
    [[{ accessToken: 'a', expiresIn: 60 }], ['(body)']],
    [null, ['(body)']],
  ])('refuses %j, naming %j and never a value', (body, paths) => {
    // Assess
    expect(parseTokenResponse(body)).toEqual({ ok: false, paths });
  });
});

describe('error body (§7)', () => {
  it('reads code, message and details, keeping other fields', () => {
    // Assess
    const body = { code: 40001, message: 'bad', details: [{ field: 'x' }], other: true };
    expect(parseErrorBody(body)).toEqual(body);
  });

  it.each([[{ code: 'E1' }], [{ code: 1.5 }], [{ message: 3 }], [{ details: 'x' }], ['text'], [[1]], [null]])(
    'reads %j as no error body at all',
    (body) => {
      // Assess
      expect(parseErrorBody(body)).toEqual({});
    },
  );
});

describe('polling response (§2.4, §4.7)', () => {
  it('drops optional fields of another type, keeps unknown ones, and never fails on a record', () => {
    // Assess
    expect(
      parsePollRecord({
        resultId: 'r',
        completed: 1786364400000,
        product: ['x'],
        userId: 'u',
        extra: { a: 1 },
      }),
    ).toEqual({ resultId: 'r', userId: 'u', extra: { a: 1 } });
    expect(parsePollRecord([1])).toEqual({ resultId: '' });
    expect(parsePollRecord({ resultId: 2 ** 60 })).toEqual({ resultId: '' });
    expect(parsePollRecord({ resultId: -1 })).toEqual({ resultId: '' });
    expect(parsePollRecord({ resultId: 90817 })).toEqual({ resultId: '90817' });
  });

  it('fails only for a body that is not an object or results that are not a list', () => {
    // Assess
    expect(parsePollResponse([])).toEqual({ ok: false, paths: ['(body)'] });
    expect(parsePollResponse({ results: 'none' })).toEqual({ ok: false, paths: ['results'] });
    expect(parsePollResponse({ results: null, nextPage: 2 })).toEqual({
      ok: true,
      value: { results: [], nextPage: 2 },
    });
  });
});
