/**
 * What another, spec-conforming implementation of the service may reasonably do differently from our
 * simulator, and how the client, the poll, fetch-result and the store cope without losing or corrupting a
 * result: other resultId characters, token response variations, base64 dialects, odd poll records, 410.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { resultSchema } from '../../shared/api/schemas';
import { decodeBase64Data } from '../../shared/client/base64';
import { IdvClient } from '../../shared/client/client';
import {
  ForbiddenError,
  GoneError,
  NotFoundError,
  ResponseFormatError,
  UnauthorizedError,
} from '../../shared/client/errors';
import { fetchAccessToken } from '../../shared/client/oauth';
import { type FetchResultDeps, processMessage, processQueueRecord } from '../../shared/pipeline/fetch-result';
import { pollAndEnqueue } from '../../shared/pipeline/poll';
import { buildStoredItem } from '../../shared/store/item';
import { resultIdKeyPart, resultJsonKey } from '../../shared/store/keys';
import { ResultStore } from '../../shared/store/result-store';
import { parseCompleted } from '../../shared/store/timestamps';
import { ResultContentError } from '../../shared/stream/errors';
import { FakePublisher, FakeStore, memoryLogger, pollOf, sourceOf } from '../support/pipeline-fakes';

const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xfb, 0xff, 0xfe, 0xd9,
]);
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 37) & 0xff)),
]);
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A fetch that answers the token endpoint with `token` and every other call with `respond`. */
function fakeFetch(token: unknown, respond: (url: URL) => Response = () => Response.json({ results: [] })) {
  const calls: { url: URL; headers: Headers; body: string | undefined }[] = [];
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    calls.push({ url, headers: new Headers(init?.headers), body: init?.body as string | undefined });
    if (url.pathname.endsWith('/oauth/token')) return Response.json(token);
    return respond(url);
  }) as typeof fetch;
  return { fetch: fetchFn, calls };
}

describe('resultIds of another implementation', () => {
  it('keeps UUIDs and plain ids as they are in S3 keys', () => {
    // Assess
    expect(resultJsonKey('0b7e3c52-7f0e-4f7e-9a51-3c2f8d9e6a10')).toBe(
      'results/0b7e3c52-7f0e-4f7e-9a51-3c2f8d9e6a10/result.json',
    );
    expect(resultIdKeyPart('res_1-A')).toBe('res_1-A');
  });

  it('escapes every other character into an S3-safe, collision-free key segment', () => {
    // Act
    const parts = ['res.2026:0001', 'R~42', 'acct@eu+7=', 'res.2E2026', 'a..b'].map(resultIdKeyPart);

    // Assess
    expect(parts).toEqual(['res.2E2026.3A0001', 'R.7E42', 'acct.40eu.2B7.3D', 'res.2E2E2026', 'a.2E.2Eb']);
    for (const part of parts) expect(part).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
    expect(new Set(parts).size).toBe(parts.length);
  });

  it('percent-encodes the id in the result URL', async () => {
    // Prepare
    const fake = fakeFetch({ accessToken: 't', expiresIn: '3600', tokenType: 'Bearer' }, () =>
      Response.json({ result: 'APPROVED' }),
    );
    const client = new IdvClient({
      baseUrl: 'http://127.0.0.1:9',
      environment: 'staging',
      credentials: { clientId: 'c', clientSecret: 's' },
      fetch: fake.fetch,
    });

    // Act
    await client.getResult('res.2026:0001');
    await client.getResult('acct@eu+7=');

    // Assess
    const paths = fake.calls.filter((c) => c.url.pathname.includes('/result/')).map((c) => c.url.pathname);
    expect(paths).toEqual(['/api/v2/result/res.2026%3A0001', '/api/v2/result/acct%40eu%2B7%3D']);
  });

  it('stores a result with such an id under its escaped key and names it exactly in the event', async () => {
    // Prepare
    const store = new FakeStore();
    const publisher = new FakePublisher();
    const deps: FetchResultDeps = {
      source: sourceOf(async () => Buffer.from(JSON.stringify({ result: 'APPROVED' }))),
      store,
      publisher,
      environment: 'staging',
      retentionDays: 30,
      logger: memoryLogger().logger,
    };

    // Act
    const outcome = await processQueueRecord(JSON.stringify({ resultId: 'R~42', source: 'poll' }), deps);

    // Assess
    expect(outcome).toBe('stored');
    expect(store.items.get('R~42')?.resultKey).toBe('results/R.7E42/result.json');
    expect(publisher.stored.map((d) => d.resultId)).toEqual(['R~42']);
  });
});

describe('token response variations', () => {
  const options = (fetchFn: typeof fetch) => ({
    baseUrl: 'http://127.0.0.1:9',
    clientId: 'c',
    clientSecret: 's',
    scopes: ['productapi.result.read'],
    fetch: fetchFn,
    now: () => 1_000_000,
  });

  it.each([
    [{ accessToken: 'a', expiresIn: 1800, tokenType: 'bearer', scope: 'x', refresh: null }, 1800],
    [{ accessToken: 'a', expiresIn: '1800' }, 1800],
    [{ accessToken: 'a', expiresIn: ' 90.5 ', tokenType: 'BEARER' }, 90.5],
  ])('accepts %j as a Bearer token of %s seconds', async (body, seconds) => {
    // Prepare
    const fake = fakeFetch(body);

    // Act
    const token = await fetchAccessToken(options(fake.fetch));

    // Assess
    expect(token).toEqual({
      accessToken: 'a',
      tokenType: 'Bearer',
      expiresAt: 1_000_000 + seconds * 1000,
      scopes: ['productapi.result.read'],
    });
    expect(JSON.parse(fake.calls[0]!.body!)).toEqual({ scopes: ['productapi.result.read'] });
    expect(fake.calls[0]!.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('c:s').toString('base64')}`,
    );
  });

  it.each([
    { accessToken: 'a', expiresIn: 'soon' },
    { accessToken: 'a', expiresIn: -5 },
    { accessToken: '', expiresIn: 60 },
    { expiresIn: 60 },
  ])('still refuses %j without echoing it', async (body) => {
    // Act
    const error = (await fetchAccessToken(options(fakeFetch(body).fetch)).catch((e: unknown) => e)) as Error;

    // Assess
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect(error.message).not.toMatch(/soon|"a"/);
  });

  it('presents a lower-case tokenType as Bearer on the next request', async () => {
    // Prepare
    const fake = fakeFetch({ accessToken: 'tok', expiresIn: 600, tokenType: 'bearer' });
    const client = new IdvClient({
      baseUrl: 'http://127.0.0.1:9',
      environment: 'staging',
      credentials: { clientId: 'c', clientSecret: 's' },
      fetch: fake.fetch,
    });

    // Act
    await client.poll();

    // Assess
    expect(fake.calls[1]!.headers.get('authorization')).toBe('Bearer tok');
  });
});

describe('base64 dialects of result data', () => {
  it.each([
    ['plain', JPEG.toString('base64')],
    ['data URL', `data:image/jpeg;base64,${JPEG.toString('base64')}`],
    ['data URL, upper case', `DATA:image/jpeg;name=x.jpg;BASE64,${JPEG.toString('base64')}`],
    ['line breaks', JPEG.toString('base64').replace(/(.{4})/g, '$1\r\n')],
    ['spaces and tabs', ` ${JPEG.toString('base64').replace(/(.{8})/g, '$1 \t')} `],
    ['URL-safe alphabet', JPEG.toString('base64url')],
    ['no padding', JPEG.toString('base64').replace(/=+$/, '')],
  ])('decodes %s byte-identically', (_name, value) => {
    // Act
    const bytes = decodeBase64Data(value);

    // Assess
    expect(bytes && sha(bytes)).toBe(sha(JPEG));
  });

  it.each(['not base64 at all!', 'data:text/plain,hello', 'abcde', 'ab+c-d=='])('refuses %j', (value) => {
    // Assess
    expect(decodeBase64Data(value)).toBeUndefined();
  });
});

/** A result body as the service streams it, in uneven chunks. */
async function* bodyOf(result: unknown): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(JSON.stringify(result));
  for (let at = 0; at < bytes.length; at += 97) yield bytes.subarray(at, at + 97);
}

describe('ResultStore with result variations', () => {
  const s3Mock = mockClient(S3Client);
  beforeEach(() => s3Mock.reset());

  it('stores every base64 dialect exactly, keeps entries without data and the unknown parts', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).resolves({});
    const store = new ResultStore({
      s3: new S3Client({ region: 'eu-west-1' }),
      dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
      bucket: 'bucket',
      table: 'table',
    });
    const result: Record<string, unknown> = {
      result: 'PENDING_REVIEW',
      images: [
        {
          data: `data:image/jpeg;base64,${JPEG.toString('base64')}`,
          documentType: 'PASSPORT',
          pageType: 'FRONT',
        },
        { data: PNG.toString('base64').replace(/(.{76})/g, '$1\r\n'), documentType: 'NEW_TYPE' },
        { documentType: 'IDENTITY_CARD', pageType: 'BACK' },
        { data: null, documentType: 'IDENTITY_CARD' },
        'not an object',
        { data: JPEG.toString('base64'), documentType: 'LIVE' },
      ],
      files: [{ data: PNG.toString('base64url') }],
      riskAssessment: { result: 'LOW' },
    };

    // Act
    const { stored } = await store.storeResult('res.2026:0001', bodyOf(result));
    const bad = { ...result, images: [{ data: 'this is %% not base64', documentType: 'LIVE' }] };
    const refused = await store.storeResult('res-bad', bodyOf(bad)).catch((error: unknown) => error);

    // Assess
    const puts = s3Mock.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    const bodies = new Map(puts.map((p) => [p.Key!, p.Body as Buffer]));
    expect([...bodies.keys()]).toEqual([
      'results/res.2E2026.3A0001/images/01-PASSPORT-FRONT.jpg',
      'results/res.2E2026.3A0001/images/02-UNKNOWN-UNKNOWN.png',
      'results/res.2E2026.3A0001/images/06-LIVE-UNKNOWN.jpg',
      'results/res.2E2026.3A0001/files/01-UNKNOWN.png',
      'results/res.2E2026.3A0001/result.json',
    ]);
    expect(sha(bodies.get('results/res.2E2026.3A0001/images/01-PASSPORT-FRONT.jpg')!)).toBe(sha(JPEG));
    expect(sha(bodies.get('results/res.2E2026.3A0001/images/02-UNKNOWN-UNKNOWN.png')!)).toBe(sha(PNG));
    expect(sha(bodies.get('results/res.2E2026.3A0001/files/01-UNKNOWN.png')!)).toBe(sha(PNG));
    expect(stored.objects).toHaveLength(4);
    // Not base64 in any form: one rule everywhere — the result is refused with a reason code (the message
    // then goes to the DLQ), its value is never stored as something else and no result.json is written.
    expect(refused).toBeInstanceOf(ResultContentError);
    expect(refused).toMatchObject({ reason: 'DATA_NOT_BASE64', transient: false });
    expect(String((refused as Error).message)).not.toContain('this is');
    expect([...bodies.keys()].some((key) => key.includes('res-bad'))).toBe(false);
    const document = JSON.parse(bodies.get('results/res.2E2026.3A0001/result.json')!.toString()) as {
      images: unknown[];
      riskAssessment: unknown;
      result: string;
    };
    expect(document.images.slice(2, 5)).toEqual([
      { documentType: 'IDENTITY_CARD', pageType: 'BACK' },
      { data: null, documentType: 'IDENTITY_CARD' },
      'not an object',
    ]);
    expect(document.riskAssessment).toEqual({ result: 'LOW' });
    expect(document.result).toBe('PENDING_REVIEW');
  });

  it('parses a result for the CLI when an image or file has no data', () => {
    // Act
    const parsed = resultSchema.safeParse({
      images: [{ documentType: 'PASSPORT' }],
      files: [{ data: null }],
    });

    // Assess
    expect(parsed.success).toBe(true);
    expect(parsed.data?.images?.[0]?.data).toBe('');
  });
});

describe('poll response variations', () => {
  const sqsMock = mockClient(SQSClient);
  beforeEach(() => sqsMock.reset());

  it.each([{}, { results: null }])('reads %j as no records', (body) => {
    // Assess
    expect(pollOf(body).results).toEqual([]);
  });

  it('reads an empty or 204 poll answer as no records', async () => {
    // Prepare
    const fake = fakeFetch({ accessToken: 't', expiresIn: 60 }, () => new Response(null, { status: 204 }));
    const client = new IdvClient({
      baseUrl: 'http://127.0.0.1:9',
      environment: 'staging',
      credentials: { clientId: 'c', clientSecret: 's' },
      fetch: fake.fetch,
    });

    // Act
    const response = await client.poll();

    // Assess
    expect(response).toEqual({ results: [] });
  });

  it('skips and counts records that are not objects or have no usable id, and keeps the others', async () => {
    // Prepare
    sqsMock.on(SendMessageBatchCommand).resolves({ Failed: [] });
    const body = {
      results: [
        { resultId: 'res.2026:0001', completed: 1786364400000, transactionId: 7, extra: { a: 1 } },
        'garbage',
        null,
        42,
        { resultId: 90817, completed: '2026-08-10 11:00:00' },
        { resultId: 1.5 },
        { resultId: 2 ** 60 },
        { resultId: '../etc' },
        { resultId: 'R~42', completed: '10/08/2026 12:00', product: ['x'] },
      ],
      nextPage: null,
    };
    const parsed = pollOf(body);
    const { logger, lines } = memoryLogger();

    // Act
    const summary = await pollAndEnqueue({
      source: { poll: async () => parsed },
      sqs: new SQSClient({ region: 'eu-west-1' }),
      queueUrl: 'https://queue',
      logger,
      now: () => new Date('2026-08-10T12:00:00.000Z'),
    });

    // Assess
    expect(parsed.results[0]).toMatchObject({ extra: { a: 1 } });
    expect(summary).toEqual({ pending: 9, enqueued: 3, invalid: 6, oldestAgeSeconds: 3600 });
    const sent = sqsMock
      .commandCalls(SendMessageBatchCommand)
      .flatMap((c) => c.args[0].input.Entries!.map((e) => JSON.parse(e.MessageBody!)));
    expect(sent).toEqual([
      { resultId: 'res.2026:0001', source: 'poll' },
      { resultId: '90817', source: 'poll', completed: '2026-08-10 11:00:00' },
      { resultId: 'R~42', source: 'poll', completed: '10/08/2026 12:00' },
    ]);
    expect(lines.join('\n')).not.toContain('garbage');
  });

  it('reads only ISO 8601 completion times, without an offset as UTC', () => {
    // Assess
    expect(parseCompleted('2026-08-10T12:00:00Z')).toBe(Date.UTC(2026, 7, 10, 12));
    expect(parseCompleted('2026-08-10 12:00:00')).toBe(Date.UTC(2026, 7, 10, 12));
    expect(parseCompleted('2026-08-10T14:00:00.250+02:00')).toBe(Date.UTC(2026, 7, 10, 12, 0, 0, 250));
    expect(parseCompleted('2026-08-10T14:00:00+0200')).toBe(Date.UTC(2026, 7, 10, 12));
    expect(parseCompleted('2026-08-10')).toBe(Date.UTC(2026, 7, 10));
    expect(parseCompleted('10/08/2026 12:00')).toBeUndefined();
    expect(parseCompleted(1786364400000)).toBeUndefined();
    expect(parseCompleted('yesterday')).toBeUndefined();
  });

  it('falls back to storedAt for a completed time it cannot read', () => {
    // Act
    const item = buildStoredItem({
      hints: { resultId: 'r', completed: '10/08/2026 12:00' },
      document: {},
      stored: { resultKey: resultJsonKey('r'), objects: [], documentBytes: 2 },
      bucket: 'b',
      storedAt: '2026-08-11T00:00:00.000Z',
      retentionDays: 1,
    });

    // Assess
    expect(item).toMatchObject({ completed: '2026-08-11T00:00:00.000Z', completedKnown: false });
  });
});

describe('statuses of another implementation', () => {
  function deps(error: Error): { deps: FetchResultDeps; store: FakeStore; lines: string[] } {
    const store = new FakeStore();
    const { logger, lines } = memoryLogger();
    return {
      store,
      lines,
      deps: {
        source: sourceOf(async () => {
          throw error;
        }),
        store,
        publisher: new FakePublisher(),
        environment: 'staging',
        retentionDays: 30,
        logger,
      },
    };
  }

  it('maps 410 to a GoneError, which is a NotFoundError', async () => {
    // Prepare
    const fake = fakeFetch({ accessToken: 't', expiresIn: 60 }, () =>
      Response.json({ code: 5, message: 'Expired' }, { status: 410 }),
    );
    const client = new IdvClient({
      baseUrl: 'http://127.0.0.1:9',
      environment: 'staging',
      credentials: { clientId: 'c', clientSecret: 's' },
      fetch: fake.fetch,
    });

    // Act
    const error = await client.getResult('expired.0001').catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(GoneError);
    expect(error).toBeInstanceOf(NotFoundError);
  });

  it('records a result the service answers 410 to as UNAVAILABLE, like a 404', async () => {
    // Prepare
    const { deps: d, store } = deps(new GoneError('service answered 410', { status: 410 }));

    // Act
    const outcome = await processMessage({ resultId: 'expired.0001', source: 'poll' }, d);

    // Assess
    expect(outcome).toBe('unavailable');
    expect(store.items.get('expired.0001')).toMatchObject({ status: 'UNAVAILABLE', reason: 'NOT_FOUND' });
  });

  it.each([
    [
      new ForbiddenError('service answered 403: Forbidden', { status: 403 }),
      'refused the result request (403)',
    ],
    [new UnauthorizedError('service answered 401', { status: 401 }), 'even after a refresh (401)'],
  ])('leaves a %s for redelivery and the DLQ with a clear line', async (error, text) => {
    // Prepare
    const { deps: d, store, lines } = deps(error);

    // Act
    const outcome = processQueueRecord(JSON.stringify({ resultId: 'r-1', source: 'poll' }), d);

    // Assess
    await expect(outcome).rejects.toBe(error);
    expect(store.items.size).toBe(0);
    expect(lines.join('\n')).toContain(text);
  });

  it('retries a result body that is not JSON, naming its size but never its content', async () => {
    // Prepare
    const store = new FakeStore();
    const { logger, lines } = memoryLogger();
    const d: FetchResultDeps = {
      source: sourceOf(async () => Buffer.from('<html>Jantje Testpersoon</html>')),
      store,
      publisher: new FakePublisher(),
      environment: 'staging',
      retentionDays: 30,
      logger,
    };

    // Act
    const outcome = processQueueRecord(JSON.stringify({ resultId: 'r-1', source: 'poll' }), d);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(ResponseFormatError);
    expect(store.items.size).toBe(0);
    expect(lines.join('\n')).toContain('not JSON (31 bytes)');
    expect(lines.join('\n')).not.toContain('Jantje');
  });

  it('reads a result body with a byte order mark', async () => {
    // Prepare
    const store = new FakeStore();
    const d: FetchResultDeps = {
      source: sourceOf(async () => Buffer.from(`\uFEFF${JSON.stringify({ result: 'APPROVED' })}`)),
      store,
      publisher: new FakePublisher(),
      environment: 'staging',
      retentionDays: 30,
      logger: memoryLogger().logger,
    };

    // Act
    const outcome = await processMessage({ resultId: 'r-1', source: 'poll' }, d);

    // Assess
    expect(outcome).toBe('stored');
    expect(store.items.get('r-1')?.result).toBe('APPROVED');
  });

  it('says a freshly issued token was refused too when a 401 survives the refresh', async () => {
    // Prepare
    const fake = fakeFetch({ accessToken: 'secret-tok-value', expiresIn: 60 }, () =>
      Response.json({ code: 16, message: 'Unauthorized' }, { status: 401 }),
    );
    const client = new IdvClient({
      baseUrl: 'http://127.0.0.1:9',
      environment: 'staging',
      credentials: { clientId: 'c', clientSecret: 's' },
      fetch: fake.fetch,
    });

    // Act
    const error = await client.getResult('r-1').catch((e: unknown) => e as Error);

    // Assess
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error.message).toContain('401 after one refresh');
    expect(error.message).not.toContain('secret-tok-value');
  });
});
