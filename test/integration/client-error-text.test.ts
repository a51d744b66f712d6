/**
 * The service's own words of an error answer (spec §7 `message` and `details`) and the token's type, over
 * real HTTP against a hostile double: with `keepErrorText` (the CLI) a bounded, printable, scrubbed copy
 * is kept apart from the error's message; without it (the pipeline) nothing of the body is kept; and no
 * serialiser a logger uses ever shows it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileService, jsonAnswer, startHostileService } from '../../bench/support/hostile-service';
import {
  MAX_DETAIL_DESCRIPTION_CHARS,
  MAX_ERROR_DETAILS,
  MAX_ERROR_MESSAGE_CHARS,
  serviceErrorText,
} from '../../shared/client/error-text';
import { BadRequestError, type ServiceError } from '../../shared/client/errors';
import { ResultsClient } from '../../shared/client/results-client';
import { describeError } from '../../shared/errors';

const TOKEN_SHAPED = 'Zq8sKd02LmXv91tRaB7cD3eF5gH';
const HOSTILE = {
  code: 3,
  message: `bad\u001b[31m red\u001b[0m\r\nline\u0007 ${TOKEN_SHAPED} \u001b]0;title\u0007é${'x'.repeat(5_000)}`,
  details: [
    { field: 'images[0].data', description: 'image too small\u001b[2J' },
    {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'product', description: 'unknown' }],
    },
    { requiredScope: 'productapi.idverify.write' },
    'plain words',
    ...Array.from({ length: 20 }, (_, i) => ({ field: `f${i}`, message: 'y'.repeat(1_000) })),
  ],
};

let service: HostileService;
beforeAll(async () => {
  service = await startHostileService({ any: () => jsonAnswer(400, HOSTILE) });
});
afterAll(() => service.close());

function client(keepErrorText: boolean, tokenType = 'Bearer'): ResultsClient {
  const token = { accessToken: 'opaque-test-token', tokenType, expiresAt: 8e15, scopes: [] };
  return new ResultsClient({
    baseUrl: service.url,
    environment: 'staging',
    tokenProvider: { getToken: async () => token, refresh: async () => token },
    retry: { maxAttempts: 1 },
    ...(keepErrorText && { keepErrorText: serviceErrorText }),
  });
}

async function failure(keepErrorText: boolean): Promise<ServiceError> {
  const error = await client(keepErrorText)
    .poll()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BadRequestError);
  return error as ServiceError;
}

describe('error body words', () => {
  it('with keepErrorText: code kept, message and details bounded, printable ASCII and scrubbed', async () => {
    // Act
    const error = await failure(true);

    // Assess
    const text = error.serviceText!;
    expect(error.code).toBe(3);
    expect(error.message).toBe('service answered 400 (bad request, code 3)');
    expect(text.message!.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(text.message).toMatch(/^bad red line \[redacted\] x+\.\.\.$/);
    expect(text.details).toHaveLength(MAX_ERROR_DETAILS);
    expect(text.detailsTotal).toBe(24);
    expect(text.details.slice(0, 4)).toEqual([
      { field: 'images[0].data', description: 'image too small' },
      { field: 'product', description: 'unknown' },
      { description: 'requiredScope=productapi.idverify.write' },
      { description: 'plain words' },
    ]);
    for (const detail of text.details) {
      expect(detail.description.length).toBeLessThanOrEqual(MAX_DETAIL_DESCRIPTION_CHARS);
    }
    const all = JSON.stringify(text);
    expect(all).toMatch(/^[\x20-\x7e]*$/);
    expect(all).not.toContain(TOKEN_SHAPED);
  });

  it('kept out of everything a log line is made of', async () => {
    // Act
    const error = await failure(true);

    // Assess
    for (const printed of [
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
      JSON.stringify(describeError(error)),
    ]) {
      expect(printed).not.toContain('image too small');
      expect(printed).not.toContain('bad red');
    }
  });

  it('without keepErrorText (the pipeline) nothing of the body is kept', async () => {
    // Act
    const error = await failure(false);

    // Assess
    expect(error.code).toBe(3);
    expect(error.serviceText).toBeUndefined();
  });

  it('a 1 MB message is not read at all: the error is the status alone', async () => {
    // Arrange
    service.answer(jsonAnswer(400, { code: 3, message: 'm'.repeat(1024 * 1024) }));

    // Act
    const error = await failure(true);

    // Assess
    expect(error.message).toBe('service answered 400 (bad request)');
    expect(error.serviceText).toBeUndefined();
    service.answer(jsonAnswer(400, HOSTILE));
  });
});

describe('token type', () => {
  it.each([
    ['Bearer', 'Bearer'],
    ['bearer', 'Bearer'],
    ['DPoP', 'DPoP'],
    ['dpop', 'DPoP'],
    ['MAC', 'Bearer'],
    ['Bearer\r\nX-Evil: 1', 'Bearer'],
  ])('tokenType %j is presented as %s', async (tokenType, scheme) => {
    // Arrange
    service.answer(jsonAnswer(200, { results: [] }));
    const before = service.stats.headers.length;

    // Act
    await client(false, tokenType).poll();

    // Assess
    expect(service.stats.headers[before]?.authorization).toBe(`${scheme} opaque-test-token`);
    service.answer(jsonAnswer(400, HOSTILE));
  });
});

describe('the pipeline never keeps the words', () => {
  it('no pipeline or function source turns keepErrorText on or reads serviceText', () => {
    // Prepare
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
      });

    // Act
    const offenders = ['shared/pipeline', 'shared/token-cache', 'functions']
      .flatMap((dir) => files(join(import.meta.dirname, '../..', dir)))
      .filter((file) => /keepErrorText|serviceText/.test(readFileSync(file, 'utf8')));

    // Assess
    expect(offenders).toEqual([]);
  });
});
