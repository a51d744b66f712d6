/**
 * The client against a hostile service (real HTTP on 127.0.0.1): whatever arrives, each call ends with
 * its typed outcome after a bounded number of bytes, and no error carries the service's words, personal
 * data or a credential. The full-size memory figures (1 GiB bombs, 600 MB floods, a child process per
 * attack) come from test/support/hostile-memory.ts and are published in docs/reliability.md.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  bombAnswer,
  floodAnswer,
  type HostileAnswer,
  type HostileService,
  jsonAnswer,
  startHostileService,
} from '../../bench/support/hostile-service';
import {
  ConnectionError,
  NotFoundError,
  ResponseFormatError,
  ResponseTooLargeError,
  ServerError,
  ServiceError,
} from '../../shared/client/errors';
import { DEFAULT_MAX_BODY_BYTES, ERROR_BODY_LIMIT_BYTES } from '../../shared/client/http';
import { fetchAccessToken } from '../../shared/client/oauth';
import { MAX_WHOLE_RESULT_BYTES, ResultsClient } from '../../shared/client/results-client';
import type { AccessToken } from '../../shared/client/token-provider';
import { describeError } from '../../shared/errors';

const MiB = 1024 * 1024;
const TOKEN: AccessToken = {
  accessToken: 'opaque-test-token',
  tokenType: 'Bearer',
  expiresAt: 8e15,
  scopes: [],
};
/**
 * What a socket may hold beyond what the client read: the loopback's send and receive buffers (a few MB).
 * An answer read whole would show hundreds of MB here.
 */
const SOCKET_SLACK = 12 * MiB;

let service: HostileService;

function client(): ResultsClient {
  return new ResultsClient({
    baseUrl: service.url,
    environment: 'staging',
    tokenProvider: { getToken: async () => TOKEN, refresh: async () => TOKEN },
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    sleep: async () => {},
  });
}

function token(credentials = { clientId: 'id', clientSecret: 'secret' }) {
  return fetchAccessToken({
    baseUrl: service.url,
    ...credentials,
    scopes: ['productapi.poll.read'],
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
  });
}

async function drain(stream: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += chunk.length;
  return bytes;
}

/** Runs `call` against `answer`; returns its error and what the double saw. */
async function attack(answer: HostileAnswer, call: () => Promise<unknown>) {
  service.answer(answer);
  service.resetCounts();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ...service.stats, headers: [...service.stats.headers] };
}

describe('client against a hostile service: bounded answers', () => {
  beforeAll(async () => {
    service = await startHostileService({ any: () => jsonAnswer(200, {}) });
  });
  afterAll(() => service.close());

  it('asks for identity encoding on every request', async () => {
    // Act
    const seen = await attack(jsonAnswer(200, { results: [] }), () => client().poll());

    // Assess
    expect(seen.error).toBeUndefined();
    expect(seen.headers[0]?.['accept-encoding']).toBe('identity');
  });

  it.each([
    ['token', () => token()],
    ['poll', () => client().poll()],
  ])('a 200 gzip bomb on %s is refused at the ceiling (ResponseTooLargeError)', async (_name, call) => {
    // Act
    const seen = await attack(bombAnswer(200, 64 * MiB), call);

    // Assess
    expect(seen.error).toBeInstanceOf(ResponseTooLargeError);
    expect(seen.error).toMatchObject({ limitBytes: DEFAULT_MAX_BODY_BYTES, status: 200 });
    expect(seen.requests).toBe(1);
  });

  it('a plain 200 past the ceiling is refused after the ceiling, the rest unread', async () => {
    // Act
    const seen = await attack(floodAnswer(200, 600 * MiB), () => client().poll());

    // Assess
    expect(seen.error).toBeInstanceOf(ResponseTooLargeError);
    expect(seen.bytesWritten).toBeLessThan(DEFAULT_MAX_BODY_BYTES + SOCKET_SLACK);
  });

  it('a result read whole may pass the 16 MiB call ceiling, up to its own (MAX_WHOLE_RESULT_BYTES)', async () => {
    // Prepare: a 20 MiB result, larger than any other answer may be
    const images = [{ documentType: 'PASSPORT', pageType: 'FRONT', data: 'A'.repeat(20 * MiB) }];

    // Act
    const seen = await attack(jsonAnswer(200, { images }), () => client().getResultBody('r-1'));
    const refused = await attack(jsonAnswer(200, { images }), () =>
      client().getResultBody('r-1', { maxBodyBytes: 8 * MiB }),
    );

    // Assess
    expect(seen.error).toBeUndefined();
    expect(MAX_WHOLE_RESULT_BYTES).toBeGreaterThan(DEFAULT_MAX_BODY_BYTES);
    expect(refused.error).toBeInstanceOf(ResponseTooLargeError);
    expect(refused.error).toMatchObject({ limitBytes: 8 * MiB });
  });

  it.each([
    [500, ServerError, 3],
    [404, NotFoundError, 1],
  ])('a %i gzip bomb keeps its meaning (its error class, its retries)', async (status, type, requests) => {
    // Act
    const seen = await attack(bombAnswer(status, 64 * MiB), () => client().poll());

    // Assess
    expect(seen.error).toBeInstanceOf(type);
    expect(seen.requests).toBe(requests);
  });

  it.each([
    [500, ServerError, 3],
    [404, NotFoundError, 1],
  ])(
    'a 600 MB %i body is read up to 64 KiB and keeps its meaning (its error class, its retries)',
    async (status, type, requests) => {
      // Act
      const seen = await attack(floodAnswer(status, 600 * MiB), () => client().poll());

      // Assess
      expect(seen.error).toBeInstanceOf(type);
      expect(seen.requests).toBe(requests);
      expect(seen.bytesWritten).toBeLessThan(requests * (ERROR_BODY_LIMIT_BYTES + SOCKET_SLACK));
    },
  );

  it('a 600 MB 404 on the streamed result is a NotFoundError, read up to 64 KiB', async () => {
    // Act
    const seen = await attack(floodAnswer(404, 600 * MiB), async () =>
      drain(await client().getResultStream('r-1')),
    );

    // Assess
    expect(seen.error).toBeInstanceOf(NotFoundError);
    expect(seen.bytesWritten).toBeLessThan(ERROR_BODY_LIMIT_BYTES + SOCKET_SLACK);
  });

  it('a streamed body left unread past the timeout fails when read, never ends as an empty body', async () => {
    // Prepare: the client gives up a body nobody reads within its timeout (its socket closes).
    const impatient = new ResultsClient({
      baseUrl: service.url,
      environment: 'staging',
      tokenProvider: { getToken: async () => TOKEN, refresh: async () => TOKEN },
      timeoutMs: 200,
    });
    service.answer(jsonAnswer(200, { resultId: 'r-1' }));
    // The client's own clock: its timer for an unread body fires when the test moves it on.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let body: AsyncIterable<Uint8Array>;
    try {
      body = await impatient.getResultStream('r-1');
      await vi.advanceTimersByTimeAsync(200);
    } finally {
      vi.useRealTimers();
    }

    // Act
    const read = await drain(body).then(
      (bytes) => ({ bytes }),
      (error: unknown) => ({ error }),
    );

    // Assess: a transient failure (redelivered), not 0 bytes taken for a complete, non-JSON result.
    expect(read).toMatchObject({ error: expect.any(ConnectionError) });
    expect((read as { error: ConnectionError }).error.message).toMatch(/interrupted after 0 bytes/);
  });

  it('a 5xx whose body dies mid-read is still a ServerError, and retried', async () => {
    // Act
    const seen = await attack(floodAnswer(502, 600 * MiB, { dieAfter: 20_000 }), () => client().poll());

    // Assess
    expect(seen.error).toBeInstanceOf(ServerError);
    expect(seen.requests).toBe(3);
  });

  it('an HTML token answer fails at once with a ResponseFormatError', async () => {
    // Act
    const seen = await attack(jsonAnswer(200, '<html><body>Login</body></html>'), () => token());

    // Assess
    expect(seen.error).toBeInstanceOf(ResponseFormatError);
    expect((seen.error as Error).message).toBe('token response is not JSON');
    expect(seen.requests).toBe(1);
  });
});

describe('client against a hostile service: no service text in errors', () => {
  const NAME = 'Jane Specimen';
  const BIRTH = '1984-03-07';
  const BEARER = 'Bearer abc.def.ghi';
  const BASIC = Buffer.from('id:secret').toString('base64');
  const LONG_BASIC = Buffer.from('client-7f3a9:Zq8sKd02LmXv91tR').toString('base64');
  const planted = [NAME, BIRTH, 'abc.def.ghi', BASIC, LONG_BASIC];
  const body = {
    code: 42,
    message: `${NAME} born ${BIRTH}; you sent authorization: ${BEARER} / Basic ${BASIC} ${LONG_BASIC}`,
    details: [{ name: NAME, dateOfBirth: BIRTH, authorization: BEARER, basic: BASIC }],
  };

  beforeAll(async () => {
    service = await startHostileService({ any: () => jsonAnswer(200, {}) });
  });
  afterAll(() => service.close());

  const calls: [string, () => Promise<unknown>][] = [
    ['token', () => token({ clientId: 'client-7f3a9', clientSecret: 'Zq8sKd02LmXv91tR' })],
    ['poll', () => client().poll()],
    ['result', async () => drain(await client().getResultStream('r-1'))],
  ];
  const cases = calls.flatMap(([name, call]) =>
    [400, 401, 403, 404, 429, 500, 503].map((status) => [name, status, call] as const),
  );

  it.each(cases)(
    '%s answered %i: status and code kept, nothing planted anywhere',
    async (_name, status, call) => {
      // Act
      const { error } = await attack(jsonAnswer(status, body), call);

      // Assess
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ status, code: 42 });
      const texts = [
        (error as Error).message,
        JSON.stringify(describeError(error)),
        JSON.stringify(error),
        inspect(error, { depth: 10 }),
      ];
      for (const text of texts) for (const secret of planted) expect(text).not.toContain(secret);
    },
  );
});
