import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BULK_CSV_COLUMNS, KNOWN_SCOPES } from '../../shared/api/enums';
import { IdvClient } from '../../shared/client/client';
import {
  BadRequestError,
  MockTestNotAllowedError,
  NotFoundError,
  RequestValidationError,
  UnauthorizedError,
} from '../../shared/client/errors';
import { encodeBulkCsv } from '../../shared/client/validate';
import { generateJpeg, generatePng } from '../../simulator/images';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

const CREDENTIALS = { clientId: 'demo', clientSecret: 'demo-secret' };
const jpeg = (w: number, h: number) => generateJpeg(w, h, 7).toString('base64');
const png = (w: number, h: number) => generatePng(w, h, 7).toString('base64');

let sim: RunningSimulator;
let client: IdvClient;

beforeAll(async () => {
  sim = await startSimulator({ ...CREDENTIALS, seed: 42, users: ['api-user', 'alice'] });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.requests.length = 0;
  sim.control.setFaults(undefined);
  client = new IdvClient({ baseUrl: sim.url, environment: 'staging', credentials: CREDENTIALS });
});

/** Method, path and query of the requests the simulator saw, token requests included. */
const wire = () => sim.requests.map((r) => `${r.method} ${r.path}${r.query.size > 0 ? `?${r.query}` : ''}`);

describe('client against the simulator: every endpoint', () => {
  it('requestToken: Basic credentials, scopes in the JSON body, expiresIn seconds', async () => {
    // Act
    const before = Date.now();
    const token = await client.requestToken(['productapi.poll.read']);

    // Assess
    const [request] = sim.requests;
    expect(request?.path).toBe('/api/v2/oauth/token');
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from('demo:demo-secret').toString('base64')}`,
    );
    expect(request?.body).toEqual({ scopes: ['productapi.poll.read'] });
    expect(token.tokenType).toBe('Bearer');
    expect(token.expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
  });

  it('createSecureLink with disableCommunication returns the link; Bearer on the wire, no mock-test', async () => {
    // Act
    const link = await client.createSecureLink({
      product: 'IDV_STANDARD',
      disableCommunication: true,
      languagePrefix: 'nl',
      customerReference: 'ref-1',
    });

    // Assess
    expect(link.transactionId).toEqual(expect.any(String));
    expect(link.link).toEqual(expect.any(String));
    const request = sim.requests.find((r) => r.path === '/api/v2/secureidlink');
    expect(request?.headers.authorization).toMatch(/^Bearer .+/);
    expect(request?.headers['mock-test']).toBeUndefined();
    expect(request?.body).toEqual({
      product: 'IDV_STANDARD',
      disableCommunication: true,
      languagePrefix: 'nl',
      customerReference: 'ref-1',
    });
  });

  it('createBulkSecureLinks sends the base64 CSV and the product', async () => {
    // Prepare
    const csv = `${BULK_CSV_COLUMNS.join(';')}\nA B;a@example.com;+31612345678;nl;bulk-1\n`;

    // Act
    const response = await client.createBulkSecureLinks({ product: 'IDV_LITE', file: encodeBulkCsv(csv) });

    // Assess
    expect(response.success).toBe(true);
    expect(wire()).toContain('POST /api/v2/secureidlinks');
  });

  it('getSdkToken sends services repeated and the camelCase query names', async () => {
    // Act
    const token = await client.getSdkToken({
      services: ['FACE_VERIFY', 'AUTO_CAPTURE'],
      numberOfChallenges: 2,
      validateWatermark: false,
    });

    // Assess
    expect(token.token).toEqual(expect.any(String));
    expect(wire()).toContain(
      'GET /api/v2/sdk/token?services=FACE_VERIFY&services=AUTO_CAPTURE&numberOfChallenges=2&validateWatermark=false',
    );
  });

  it('verifyFace uploads a COMPARE and LIVE images for an SDK transaction', async () => {
    // Prepare
    const { transactionId } = await client.getSdkToken({ services: ['FACE_VERIFY'] });

    // Act
    const response = await client.verifyFace({
      transactionId,
      images: [
        { type: 'COMPARE', data: png(320, 240) },
        { type: 'LIVE', data: png(320, 240) },
        { type: 'LIVE', data: png(320, 240) },
      ],
    });

    // Assess
    expect(response.success).toBe(true);
  });

  it('verifyIdentity uploads JPEG and PNG documents of at least 640×480', async () => {
    // Act
    const response = await client.verifyIdentity({
      product: 'RTW_STANDARD',
      rtwType: 'RTW_NL',
      images: [
        { type: 'PASSPORT', data: jpeg(640, 480) },
        { type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE', data: png(800, 600) },
      ],
    });

    // Assess
    expect(response.transactionId).toEqual(expect.any(String));
  });

  it('checkFaceQuality and checkQuality', async () => {
    // Act
    const face = await client.checkFaceQuality({ image: png(400, 500), customerReference: 'q-1' });
    const quality = await client.checkQuality({ images: [jpeg(640, 480), png(800, 600)] });

    // Assess
    expect(face).toEqual(expect.any(Object));
    expect(['UNKNOWN', 'APPROVED', 'DISAPPROVED', 'TECHNICAL_REJECT']).toContain(quality.result);
    expect(wire()).toEqual(expect.arrayContaining(['POST /api/v2/facequality', 'POST /api/v2/quality']));
  });

  it('createVog', async () => {
    // Act
    const response = await client.createVog({
      givenNames: 'Test',
      surname: 'Person',
      emailAddress: 'test@example.com',
      language: 'nl',
      vogRequest: {
        companyName: 'Example BV',
        jobTitle: 'Engineer',
        profiles: ['11', '12'],
        profileType: 'SPECIFIC',
      },
      hasExistingVog: false,
    });

    // Assess
    expect(response.transactionId).toEqual(expect.any(String));
  });

  it('getReasons', async () => {
    // Act
    const response = await client.getReasons();

    // Assess
    expect(response.reasons.length).toBeGreaterThan(0);
    expect(response.reasons[0]?.key).toEqual(expect.any(String));
  });

  it('getFaceLinkPackage returns the package once, then 404', async () => {
    // Prepare
    const premium = await client.createSecureLink({ product: 'IDV_PREMIUM' }, { mockTest: 'APPROVED' });
    const faceLink = await client.createSecureLink({
      product: 'FACE_LINK',
      linkedTransactionId: premium.transactionId,
    });
    const token = sim.control.faceLinkToken(faceLink.transactionId);
    expect(token).toEqual(expect.any(String));

    // Act
    const pkg = await client.getFaceLinkPackage({ token: token! });
    const again = client.getFaceLinkPackage({ token: token! });

    // Assess
    expect(pkg.transactionId).toBe(faceLink.transactionId);
    expect(pkg.packageData).toEqual(expect.any(String));
    await expect(again).rejects.toBeInstanceOf(NotFoundError);
    expect(wire().filter((w) => w === 'POST /api/v2/facelinkpackage')).toHaveLength(2);
  });

  it('poll → getResult → poll record gone; the result stays retrievable', async () => {
    // Prepare
    const { transactionId } = await client.createSecureLink(
      { product: 'IDV_STANDARD', disableCommunication: true, customerReference: 'life-1' },
      { mockTest: 'APPROVED' },
    );

    // Act
    const before = await client.poll();
    const record = before.results.find((r) => r.transactionId === transactionId);
    const result = await client.getResult(record!.resultId);
    const after = await client.poll();
    const again = await client.getResult(record!.resultId);

    // Assess
    expect(record).toMatchObject({ product: 'IDV_STANDARD', customerReference: 'life-1' });
    expect(result).toMatchObject({ transactionId, result: 'APPROVED', customerReference: 'life-1' });
    expect(after.results.find((r) => r.transactionId === transactionId)).toBeUndefined();
    expect(again.transactionId).toBe(transactionId);
  });

  it('getResultBody returns the raw JSON bytes', async () => {
    // Prepare
    const { transactionId } = await client.verifyIdentity(
      { product: 'IDV_LITE', images: [{ type: 'PASSPORT', data: jpeg(640, 480) }] },
      { mockTest: 'APPROVED' },
    );
    const [resultId] = sim.control.resultIdsOf(transactionId);

    // Act
    const body = await client.getResultBody(resultId!);

    // Assess
    expect(JSON.parse(body.toString('utf8')).transactionId).toBe(transactionId);
  });
});

describe('client against the simulator: §7 statuses', () => {
  it('400 on secure link creation (validation failure the service finds: unknown userId)', async () => {
    // Act
    const error = await client.createSecureLink({ product: 'IDV_LITE', userId: 'mallory' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
    expect(error.code).toEqual(expect.any(Number));
  });

  it('400 on face verify when there are not enough live photos for the challenges', async () => {
    // Prepare
    const { transactionId } = await client.getSdkToken({ services: ['FACE_VERIFY'], numberOfChallenges: 3 });

    // Act
    const error = await client
      .verifyFace({
        transactionId,
        images: [
          { type: 'COMPARE', data: png(64, 64) },
          { type: 'LIVE', data: png(64, 64) },
          { type: 'LIVE', data: png(64, 64) },
        ],
      })
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(BadRequestError);
    // Status, the service's numeric code and our reason: never the service's own words.
    expect(error.message).toMatch(/^service answered 400 \(bad request, code \d+\)$/);
  });

  it('400 on idverify; images smaller than 640×480 never leave the machine', async () => {
    // Act
    const small = await client
      .verifyIdentity({ product: 'IDV_LITE', images: [{ type: 'PASSPORT', data: jpeg(639, 480) }] })
      .catch((e) => e);
    const unknownTransaction = await client
      .verifyIdentity({ product: 'IDV_LITE', transactionId: 'nope', images: [{ data: jpeg(640, 480) }] })
      .catch((e) => e);

    // Assess
    expect(small).toBeInstanceOf(RequestValidationError);
    expect(small.message).toContain('images[0].data');
    expect(unknownTransaction).toBeInstanceOf(BadRequestError);
    expect(wire().filter((w) => w === 'POST /api/v2/idverify')).toHaveLength(1);
  });

  it('400 for an unknown SDK service is caught before sending', async () => {
    // Act
    const error = await client
      .getSdkToken({ services: ['FACE_VERIFY', 'TELEPATHY' as 'NFC'] })
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.message).toContain('services[1]');
    expect(sim.requests).toHaveLength(0);
  });

  it('401 on the token endpoint: the client credentials were rejected, the secret is never shown', async () => {
    // Prepare
    const wrong = new IdvClient({
      baseUrl: sim.url,
      environment: 'staging',
      credentials: { clientId: 'demo', clientSecret: 'wrong-secret-value' },
    });

    // Act
    const error = await wrong.poll().catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error.message).toContain('client credentials');
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(
      'wrong-secret',
    );
    expect(wire()).toEqual(['POST /api/v2/oauth/token']);
  });

  it('404 on an unknown result', async () => {
    // Act
    const error = await client.getResult('00000000-0000-0000-0000-000000000000').catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
  });
});

describe('client against the simulator: tokens', () => {
  it('requests a new token after expiry (401 → refresh once → retry once)', async () => {
    // Prepare
    await client.poll();
    sim.control.expireTokens();

    // Act
    const response = await client.poll();

    // Assess
    expect(response.results).toEqual(expect.any(Array));
    expect(wire()).toEqual([
      'POST /api/v2/oauth/token',
      'GET /api/v2/poll',
      'GET /api/v2/poll',
      'POST /api/v2/oauth/token',
      'GET /api/v2/poll',
    ]);
    const polls = sim.requests.filter((r) => r.path === '/api/v2/poll');
    expect(polls[2]?.headers.authorization).not.toBe(polls[0]?.headers.authorization);
  });

  it('asks for every known scope by default', async () => {
    // Act
    await client.getReasons();

    // Assess
    expect(sim.requests[0]?.body).toEqual({ scopes: [...KNOWN_SCOPES] });
  });

  it('shares one token between concurrent calls', async () => {
    // Act
    await Promise.all([client.poll(), client.getReasons(), client.poll()]);

    // Assess
    expect(wire().filter((w) => w.includes('oauth'))).toHaveLength(1);
  });
});

describe('client against the simulator: retries and environments', () => {
  it('retries a GET after 429 with Retry-After and 5xx, waiting as long as Retry-After asks', async () => {
    // Prepare
    const waits: number[] = [];
    const patient = new IdvClient({
      baseUrl: sim.url,
      environment: 'staging',
      credentials: CREDENTIALS,
      retry: { maxAttempts: 10, baseDelayMs: 1, maxDelayMs: 5 },
      // Records the waits instead of sitting them out, so the test stays fast.
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await patient.getReasons();
    sim.requests.length = 0;
    sim.control.setFaults({
      rateLimitRate: 0.3,
      retryAfterSeconds: 2,
      serverErrorRate: 0.3,
      paths: ['/api/v2/reasons'],
    });

    // Act
    for (let i = 0; i < 5; i++) await patient.getReasons();

    // Assess
    expect(sim.requests.length).toBeGreaterThan(5);
    const stats = sim.control.stats().faults;
    expect(stats.rateLimit).toBeGreaterThan(0);
    // Every 429 was followed by a wait of exactly the 2 s the simulator asked for; backoffs are ≤ 5 ms.
    expect(waits.filter((ms) => ms === 2000)).toHaveLength(stats.rateLimit);
    expect(waits.every((ms) => ms === 2000 || ms <= 5)).toBe(true);
  });

  it('never re-sends the SDK token GET after a 500: it starts a transaction', async () => {
    // Prepare
    await client.getReasons();
    sim.requests.length = 0;
    const before = sim.control.stats().transactions;
    sim.control.setFaults({ serverErrorRate: 1, paths: ['/api/v2/sdk/token'] });

    // Act
    const error = await client.getSdkToken({ services: ['FACE_VERIFY'] }).catch((e) => e);

    // Assess
    expect(error.status).toBeGreaterThanOrEqual(500);
    expect(wire()).toEqual(['GET /api/v2/sdk/token?services=FACE_VERIFY']);
    expect(sim.control.stats().transactions).toBe(before);
  });

  it('never re-sends a creating POST after a 500', async () => {
    // Prepare
    await client.getReasons();
    sim.requests.length = 0;
    sim.control.setFaults({ serverErrorRate: 1, paths: ['/api/v2/secureidlink'] });

    // Act
    const error = await client.createSecureLink({ product: 'IDV_LITE' }).catch((e) => e);

    // Assess
    expect(error.status).toBeGreaterThanOrEqual(500);
    expect(wire()).toEqual(['POST /api/v2/secureidlink']);
  });

  it('refuses mock-test on production before anything is sent', async () => {
    // Prepare
    const production = new IdvClient({
      baseUrl: sim.url,
      environment: 'production',
      credentials: CREDENTIALS,
    });

    // Act
    const error = await production
      .verifyIdentity({ product: 'IDV_LITE', images: [{ data: jpeg(640, 480) }] }, { mockTest: 'APPROVED' })
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(MockTestNotAllowedError);
    expect(sim.requests).toHaveLength(0);
  });
});
