import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { resultSchema } from '../../shared/api/schemas';
import { generateJpeg } from '../../simulator/images';
import { type RunningSimulator, startSimulator } from '../../simulator/server';

const CLIENT = { clientId: 'it-client', clientSecret: 'it-secret-123' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function getToken(sim: RunningSimulator): Promise<string> {
  const res = await fetch(`${sim.url}${PATHS.oauthToken}`, {
    method: 'POST',
    headers: {
      authorization: basic(CLIENT.clientId, CLIENT.clientSecret),
      'content-type': 'application/json',
    },
    body: JSON.stringify({ scopes: ['productapi.poll.read', 'productapi.result.read'] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

interface Call {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function call(
  sim: RunningSimulator,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Call> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const bigJpeg = generateJpeg(640, 480, 1).toString('base64');
const smallJpeg = generateJpeg(320, 240, 2).toString('base64');

describe('simulator over HTTP: OAuth and errors', () => {
  let sim: RunningSimulator;
  let token: string;

  beforeAll(async () => {
    sim = await startSimulator({ ...CLIENT, seed: 1, tokenTtlSeconds: 60 });
    token = await getToken(sim);
  });
  afterAll(() => sim.close());

  it('issues a token with expiresIn as a string', async () => {
    // Act
    const res = await fetch(`${sim.url}${PATHS.oauthToken}`, {
      method: 'POST',
      headers: { authorization: basic(CLIENT.clientId, CLIENT.clientSecret) },
      body: JSON.stringify({ scopes: ['productapi.poll.read'] }),
    });

    // Assess
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      accessToken: expect.any(String),
      expiresIn: '60',
      tokenType: 'Bearer',
    });
  });

  it.each([
    ['wrong secret', basic(CLIENT.clientId, 'nope')],
    ['wrong id', basic('other', CLIENT.clientSecret)],
    ['no credentials', undefined],
  ])('answers 401 code 16 for %s on the token endpoint', async (_name, authorization) => {
    // Act
    const res = await fetch(`${sim.url}${PATHS.oauthToken}`, {
      method: 'POST',
      headers: authorization ? { authorization } : {},
      body: JSON.stringify({ scopes: ['productapi.poll.read'] }),
    });

    // Assess
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 16, message: 'Unauthorized', details: [] });
  });

  it('answers 400 when scopes are missing', async () => {
    // Act
    const res = await fetch(`${sim.url}${PATHS.oauthToken}`, {
      method: 'POST',
      headers: { authorization: basic(CLIENT.clientId, CLIENT.clientSecret) },
      body: JSON.stringify({}),
    });

    // Assess
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('scopes');
  });

  it.each([
    ['missing', undefined],
    ['unknown', 'not-a-token'],
  ])('answers 401 for a %s bearer token', async (_name, bad) => {
    // Act
    const r = await call(sim, bad, 'GET', PATHS.poll);

    // Assess
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ code: 16, message: 'Unauthorized', details: [] });
  });

  it('answers 401 for an expired token, by virtual time and by control', async () => {
    // Prepare
    const t1 = await getToken(sim);
    const t2 = await getToken(sim);

    // Act
    const before = await call(sim, t1, 'GET', PATHS.poll);
    sim.control.advanceTime(61_000);
    const afterAdvance = await call(sim, t1, 'GET', PATHS.poll);
    const t3 = await getToken(sim);
    await fetch(`${sim.url}/__sim/expire-tokens`, { method: 'POST' });
    const afterExpire = await call(sim, t3, 'GET', PATHS.poll);

    // Assess
    expect(before.status).toBe(200);
    expect(afterAdvance.status).toBe(401);
    expect(afterExpire.status).toBe(401);
    expect((await call(sim, t2, 'GET', PATHS.poll)).status).toBe(401);
    token = await getToken(sim);
  });

  it('answers 404 for an unknown path, 405 for a wrong method and 400 for malformed JSON', async () => {
    // Act
    const unknown = await call(sim, token, 'GET', '/api/v2/nothing');
    const wrongMethod = await call(sim, token, 'DELETE', PATHS.poll);
    const malformed = await call(sim, token, 'POST', PATHS.secureLink, '{"product":');

    // Assess
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(5);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe(3);
  });

  it('answers 404 code 5 NotFound for an unknown resultId', async () => {
    // Act
    const r = await call(sim, token, 'GET', PATHS.result('does-not-exist'));

    // Assess
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 5, message: 'NotFound', details: [] });
  });

  it('records what was on the wire, a large body by its shape (its long strings cut)', async () => {
    // Act
    await call(sim, token, 'POST', PATHS.quality, { images: [bigJpeg] });
    await call(sim, token, 'POST', PATHS.secureLink, { product: 'IDV_LITE', customerReference: 'wire' });

    // Assess
    const [quality, link] = sim.requests.slice(-2);
    expect(quality!.method).toBe('POST');
    expect(quality!.path).toBe(PATHS.quality);
    expect(quality!.headers.authorization).toBe(`Bearer ${token}`);
    expect(quality!.body).toEqual({ images: [`[${bigJpeg.length} characters omitted]`] });
    expect(link!.body).toEqual({ product: 'IDV_LITE', customerReference: 'wire' });
  });
});

describe('simulator over HTTP: endpoints', () => {
  let sim: RunningSimulator;
  let token: string;

  beforeAll(async () => {
    sim = await startSimulator({ ...CLIENT, seed: 2, completionDelayMs: 60_000 });
    token = await getToken(sim);
  });
  afterAll(() => sim.close());

  it('creates a secure link: link and QR code only with disableCommunication', async () => {
    // Act
    const silent = await call(sim, token, 'POST', PATHS.secureLink, {
      product: 'IDV_STANDARD',
      disableCommunication: true,
    });
    const sent = await call(sim, token, 'POST', PATHS.secureLink, {
      product: 'IDV_STANDARD',
      emailAddress: 'user@example.test',
      phoneNumber: '+31612345678',
      whatsappPhoneNumber: '+31612345678',
      communicationModes: ['MODE_EMAIL', 'MODE_SMS', 'MODE_WHATSAPP'],
    });

    // Assess
    expect(silent.status).toBe(200);
    expect(silent.body).toMatchObject({ secureId: expect.any(String), transactionId: expect.any(String) });
    expect(silent.body.link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(
      Buffer.from(silent.body.qrCode as string, 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect(sent.body.link).toBeUndefined();
    expect(sent.body.communicationsResponse).toEqual([
      { communicationMode: 'MODE_EMAIL', status: 'SENT' },
      { communicationMode: 'MODE_SMS', status: 'SENT' },
    ]);
    expect(sent.body.whatsappRedirectUrl).toEqual(expect.any(String));
  });

  it('answers 400 naming the field for an invalid secure link', async () => {
    // Act
    const r = await call(sim, token, 'POST', PATHS.secureLink, { product: 'NOPE', emailAddress: 'x' });

    // Assess
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(3);
    expect(r.body.message).toContain('product');
    expect(r.body.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'emailAddress' })]),
    );
  });

  it('creates bulk secure links and reports bad rows', async () => {
    // Prepare
    const csv = [
      'name;emailAddress;phoneNumber;language;customerReference',
      'Test One;one@example.test;;nl;bulk-1',
      'Test Two;not-an-address;;en;bulk-2',
    ].join('\n');

    // Act
    const r = await call(sim, token, 'POST', PATHS.bulkSecureLinks, {
      file: Buffer.from(csv).toString('base64'),
      product: 'IDV_LITE',
    });

    // Assess
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(false);
    expect(r.body.errors).toEqual([{ message: expect.stringContaining('emailAddress'), row: 3 }]);
  });

  it('issues SDK tokens from camelCase or snake_case queries and rejects an unknown service', async () => {
    // Act
    const camel = await call(
      sim,
      token,
      'GET',
      `${PATHS.sdkToken}?services=FACE_VERIFY&numberOfChallenges=3`,
    );
    const snake = await call(
      sim,
      token,
      'GET',
      `${PATHS.sdkToken}?services=FACE_VERIFY,AUTO_CAPTURE&number_of_challenges=2&customer_reference=r&validate_watermark=true`,
    );
    const unknown = await call(sim, token, 'GET', `${PATHS.sdkToken}?services=TELEPATHY`);

    // Assess
    expect(camel.status).toBe(200);
    expect(camel.body).toEqual({ token: expect.any(String), transactionId: expect.any(String) });
    expect(snake.status).toBe(200);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('services');
  });

  it('checks face verify uploads: LIVE count from the SDK token, a COMPARE image', async () => {
    // Prepare
    const sdk = await call(sim, token, 'GET', `${PATHS.sdkToken}?services=FACE_VERIFY&numberOfChallenges=3`);
    const transactionId = sdk.body.transactionId as string;
    const live = { data: bigJpeg, type: 'LIVE' };
    const compare = { data: bigJpeg, type: 'COMPARE' };

    // Act
    const tooFew = await call(sim, token, 'POST', PATHS.faceVerify, {
      transactionId,
      images: [live, live, compare],
    });
    const noCompare = await call(sim, token, 'POST', PATHS.faceVerify, {
      transactionId,
      images: [live, live, live],
    });
    const ok = await call(sim, token, 'POST', PATHS.faceVerify, {
      transactionId,
      images: [live, live, live, compare],
    });

    // Assess
    expect(tooFew.status).toBe(400);
    expect(tooFew.body.message).toContain('LIVE');
    expect(noCompare.status).toBe(400);
    expect(noCompare.body.message).toContain('COMPARE');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true });
  });

  it('accepts an identity upload and rejects images smaller than 640 x 480', async () => {
    // Act
    const ok = await call(sim, token, 'POST', PATHS.idVerify, {
      product: 'IDV_STANDARD',
      images: [{ data: bigJpeg, type: 'IDENTITY_CARD' }],
    });
    const small = await call(sim, token, 'POST', PATHS.idVerify, {
      product: 'IDV_STANDARD',
      images: [{ data: bigJpeg }, { data: smallJpeg }],
    });

    // Assess
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ transactionId: expect.any(String) });
    expect(small.status).toBe(400);
    expect(small.body.message).toContain('images.1.data');
    expect(small.body.message).toContain('640 x 480');
  });

  it('checks image quality and face quality', async () => {
    // Act
    const good = await call(sim, token, 'POST', PATHS.quality, { images: [bigJpeg] });
    const bad = await call(sim, token, 'POST', PATHS.quality, { images: [bigJpeg, smallJpeg] });
    const face = await call(sim, token, 'POST', PATHS.faceQuality, {
      image: bigJpeg,
      customerReference: 'f',
    });

    // Assess
    expect(good.body).toEqual({ result: 'APPROVED' });
    expect(bad.body).toEqual({ result: 'DISAPPROVED', message: expect.any(String) });
    expect(face.status).toBe(200);
  });

  it('creates a VOG request', async () => {
    // Act
    const r = await call(sim, token, 'POST', PATHS.vog, {
      givenNames: 'Erika',
      surname: 'Mustermann',
      emailAddress: 'erika@example.test',
      language: 'nl',
      vogRequest: { companyName: 'Sample BV', jobTitle: 'Tester', profiles: ['11'], profileType: 'GENERIC' },
    });

    // Assess
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ transactionId: expect.any(String) });
  });

  it('lists reject reasons with translations', async () => {
    // Act
    const r = await call(sim, token, 'GET', PATHS.reasons);

    // Assess
    const reasons = r.body.reasons as { key: string; translations: Record<string, string> }[];
    expect(reasons.length).toBeGreaterThan(5);
    expect(reasons[0]).toEqual({
      key: expect.any(String),
      translations: { en: expect.any(String), nl: expect.any(String) },
    });
  });
});

describe('simulator over HTTP: mock-test', () => {
  let staging: RunningSimulator;
  let production: RunningSimulator;
  let stagingToken: string;

  beforeAll(async () => {
    staging = await startSimulator({ ...CLIENT, seed: 3, completionDelayMs: 60_000 });
    production = await startSimulator({
      ...CLIENT,
      seed: 3,
      environment: 'production',
      completionDelayMs: 60_000,
    });
    stagingToken = await getToken(staging);
  });
  afterAll(async () => {
    await staging.close();
    await production.close();
  });

  async function mockedResult(sim: RunningSimulator, token: string, transactionId: string) {
    const poll = await call(sim, token, 'GET', PATHS.poll);
    const record = (poll.body.results as { resultId: string; transactionId: string }[]).find(
      (r) => r.transactionId === transactionId,
    );
    expect(record).toBeDefined();
    const r = await call(sim, token, 'GET', PATHS.result(record!.resultId));
    expect(r.status).toBe(200);
    return resultSchema.parse(r.body);
  }

  it.each([
    ['IDV_STANDARD', { identity: true, rightToWork: false, faceVerify: false }],
    ['RTW_STANDARD', { identity: true, rightToWork: true, faceVerify: false }],
    ['IDV_PREMIUM', { identity: true, rightToWork: false, faceVerify: true }],
    ['RTW_PREMIUM', { identity: true, rightToWork: true, faceVerify: true }],
  ] as const)('secure link %s with mock-test gives the §1 sections at once', async (product, sections) => {
    // Act
    const link = await call(
      staging,
      stagingToken,
      'POST',
      PATHS.secureLink,
      { product },
      { 'mock-test': 'APPROVED' },
    );
    const doc = await mockedResult(staging, stagingToken, link.body.transactionId as string);

    // Assess
    expect(doc.result).toBe('APPROVED');
    expect(doc.identity !== undefined).toBe(sections.identity);
    expect(doc.rightToWork !== undefined).toBe(sections.rightToWork);
    expect(doc.faceVerify !== undefined).toBe(sections.faceVerify);
  });

  it.each([
    ['IDV_LITE', false],
    ['RTW_STANDARD', true],
  ] as const)(
    'identity upload %s with mock-test has no faceVerify (secure link only)',
    async (product, rtw) => {
      // Act
      const up = await call(
        staging,
        stagingToken,
        'POST',
        PATHS.idVerify,
        { product, images: [{ data: bigJpeg }], rtwType: 'RTW_BE' },
        { 'mock-test': 'APPROVED' },
      );
      const doc = await mockedResult(staging, stagingToken, up.body.transactionId as string);

      // Assess
      expect(doc.identity).toBeDefined();
      expect(doc.faceVerify).toBeUndefined();
      expect(doc.rightToWork?.rtwType).toBe(rtw ? 'RTW_BE' : undefined);
    },
  );

  it.each([
    ['APPROVED_EU', 'APPROVED', 'PASSPORT'],
    ['APPROVED_NON_EU', 'APPROVED', 'PASSPORT'],
    ['APPROVED_RP', 'APPROVED', 'RESIDENCE_PERMIT'],
    ['DISAPPROVED', 'DISAPPROVED', undefined],
    ['TECHNICAL_REJECT', 'TECHNICAL_REJECT', undefined],
  ] as const)('mock-test %s gives a %s result', async (value, result, documentType) => {
    // Act
    const link = await call(
      staging,
      stagingToken,
      'POST',
      PATHS.secureLink,
      { product: 'IDV_STANDARD' },
      { 'mock-test': value },
    );
    const doc = await mockedResult(staging, stagingToken, link.body.transactionId as string);

    // Assess
    expect(doc.result).toBe(result);
    if (documentType) expect(doc.identity?.data?.documentType).toBe(documentType);
    else expect(doc.messages?.length).toBeGreaterThan(0);
  });

  it('rejects an unknown mock-test value on staging', async () => {
    // Act
    const r = await call(staging, stagingToken, 'POST', PATHS.secureLink, {}, { 'mock-test': 'MAYBE' });

    // Assess
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('mock-test');
  });

  it('ignores mock-test in production: nothing completes at once', async () => {
    // Prepare
    const token = await getToken(production);

    // Act
    const link = await call(
      production,
      token,
      'POST',
      PATHS.secureLink,
      { product: 'IDV_STANDARD' },
      { 'mock-test': 'MAYBE' },
    );
    const poll = await call(production, token, 'GET', PATHS.poll);

    // Assess
    expect(link.status).toBe(200);
    expect(poll.body.results).toEqual([]);
    expect(production.control.stats().pending).toBe(1);
  });
});
