import { describe, expect, it } from 'vitest';
import { MalformedMessageError } from '../../shared/errors';
import { parseQueueMessage } from '../../shared/pipeline/messages';

describe('queue message contract', () => {
  it('keeps the known fields of a result message and drops the rest', () => {
    // Act
    const message = parseQueueMessage(
      JSON.stringify({
        resultId: 'r-1',
        source: 'poll',
        product: 'IDV_LITE',
        completed: '2026-11-24',
        extra: 1,
      }),
    );

    // Assess
    expect(message).toEqual({
      resultId: 'r-1',
      source: 'poll',
      product: 'IDV_LITE',
      completed: '2026-11-24',
    });
  });

  it('reads an upload message, keeping only its confirmed identifiers', () => {
    // Act
    const message = parseQueueMessage(
      JSON.stringify({
        kind: 'upload',
        transactionId: 't-1',
        secureId: 's-1',
        customerReference: 'c',
        other: 2,
      }),
    );

    // Assess
    expect(message).toEqual({ kind: 'upload', transactionId: 't-1', secureId: 's-1' });
  });

  it.each([
    [{ source: 'poll' }, 'queue message field resultId is missing'],
    [{ resultId: 7, source: 'poll' }, 'queue message field resultId must be a string'],
    [{ resultId: '../x', source: 'poll' }, 'queue message field resultId must be 1-256 characters'],
    [{ resultId: 'r', source: 'email' }, 'queue message field source must be one of webhook, poll, redrive'],
    [{ resultId: 'r' }, 'queue message field source must be one of webhook, poll, redrive'],
    [
      { kind: 'other', resultId: 'r', source: 'poll' },
      'queue message field kind must be "result" or "upload"',
    ],
    [{ resultId: 'r', source: 'poll', userId: 5 }, 'queue message field userId must be a string'],
    [{ resultId: 'r', source: 'poll', product: '' }, 'queue message field product must be 1-256 characters'],
    [
      { resultId: 'r', source: 'poll', completed: 'x'.repeat(257) },
      'queue message field completed must be 1-256',
    ],
    [{ kind: 'upload' }, 'queue message field transactionId is missing'],
    [{ kind: 'upload', transactionId: ['t'] }, 'queue message field transactionId must be a string'],
    [[1], 'queue message is not a JSON object'],
    ['text', 'queue message is not a JSON object'],
  ])('refuses %j as malformed, naming the field and not its value', (body, problem) => {
    // Act
    const parse = () => parseQueueMessage(JSON.stringify(body));

    // Assess
    expect(parse).toThrow(MalformedMessageError);
    expect(parse).toThrow(problem);
  });

  it('never echoes a value in its error', () => {
    // Assess
    expect(() =>
      parseQueueMessage(JSON.stringify({ resultId: 'r', source: 'poll', userId: 'x'.repeat(300) })),
    ).toThrow(/^queue message field userId must be 1-256 characters$/);
  });
});
