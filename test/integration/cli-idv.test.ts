import { readdir, readFile, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sniffContentType } from '../../shared/image';
import { generateJpeg, generatePng } from '../../simulator/images';
import type { RunningSimulator } from '../../simulator/server';
import { runIdv } from '../support/cli';
import { startCliSimulator } from '../support/cli-simulator';

let sim: RunningSimulator;
let dir: string;
let env: Record<string, string>;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sim, env, dir, close } = await startCliSimulator({ seed: 11 }, 'idv-cli-', {
    'passport.jpg': generateJpeg(640, 480, 1),
    'licence.png': generatePng(800, 600, 2),
    'small.jpg': generateJpeg(320, 240, 3),
    'face.png': generatePng(300, 400, 4),
    'links.csv':
      'name;emailAddress;phoneNumber;language;customerReference\nA B;a@example.com;+31612345678;nl;bulk-1\n',
  }));
});
afterAll(() => close());
beforeEach(() => {
  sim.requests.length = 0;
});

describe('idv against the simulator: the new-user walkthrough', () => {
  it('creates a link, sees it in poll, fetches it with --out, and the poll record is gone', async () => {
    // Act
    const created = await runIdv(
      [
        'secure-link',
        'create',
        '--product',
        'IDV_PREMIUM',
        '--disable-communication',
        '--mock-test',
        'APPROVED',
      ],
      { env },
    );
    const { transactionId, link } = created.json<{ transactionId: string; link: string }>();
    const polled = await runIdv(['poll'], { env });
    const record = polled
      .json<{ results: { resultId: string; transactionId: string }[] }>()
      .results.find((r) => r.transactionId === transactionId);
    const out = join(dir, 'result-out');
    const fetched = await runIdv(['service', 'result', 'get', record!.resultId, '--out', out], { env });
    const after = await runIdv(['poll'], { env });

    // Assess
    expect(created.code).toBe(0);
    expect(link).toEqual(expect.any(String));
    expect(record).toBeDefined();
    expect(fetched.code).toBe(0);
    const summary = fetched.json<{ files: string[]; out: string; result: string }>();
    expect(summary.result).toBe('APPROVED');
    expect((await readdir(out)).sort()).toEqual([...summary.files].sort());
    const resultJson = JSON.parse(await readFile(join(out, 'result.json'), 'utf8'));
    expect(resultJson.transactionId).toBe(transactionId);
    for (const image of resultJson.images) {
      expect(image.data).toMatch(/^[0-9]{2}-[A-Z_]+-[A-Z_]+\.(jpg|png)$/);
      const bytes = await readFile(join(out, image.data));
      expect(sniffContentType(bytes).extension).toBe(image.data.split('.').pop());
    }
    expect(resultJson.files[0].data).toMatch(/^[0-9]{2}-TRANSACTION_REPORT\.pdf$/);
    expect(((await stat(join(out, 'result.json'))).mode & 0o777).toString(8)).toBe('600');
    expect(
      after.json<{ results: { transactionId: string }[] }>().results.map((r) => r.transactionId),
    ).not.toContain(transactionId);
  });
});

describe('idv against the simulator: every command', () => {
  it('secure-link create maps every flag to the spec field', async () => {
    // Act
    const run = await runIdv(
      [
        'secure-link',
        'create',
        '--product',
        'RTW_STANDARD',
        '--name',
        'A B',
        '--email',
        'a@example.com',
        '--phone',
        '+31612345678',
        '--whatsapp-phone',
        '+31612345679',
        '--mode',
        'MODE_EMAIL',
        '--mode',
        'MODE_SMS',
        '--language',
        'nl',
        '--otp',
        '--additional-document',
        'DRIVING_LICENSE',
        '--customer-reference',
        'r-1',
        '--user-id',
        'api-user',
        '--rtw-type',
        'RTW_NL',
      ],
      { env },
    );

    // Assess
    expect(run.code).toBe(0);
    expect(sim.requests.find((r) => r.path === '/api/v2/secureidlink')?.body).toEqual({
      product: 'RTW_STANDARD',
      name: 'A B',
      emailAddress: 'a@example.com',
      phoneNumber: '+31612345678',
      whatsappPhoneNumber: '+31612345679',
      communicationModes: ['MODE_EMAIL', 'MODE_SMS'],
      languagePrefix: 'nl',
      enableOneTimePassword: true,
      additionalDocuments: ['DRIVING_LICENSE'],
      customerReference: 'r-1',
      userId: 'api-user',
      rtwType: 'RTW_NL',
    });
  });

  it('secure-link bulk encodes the CSV file', async () => {
    // Act
    const run = await runIdv(['secure-link', 'bulk', '--product', 'IDV_LITE', '--csv', 'links.csv'], {
      env,
      cwd: dir,
    });

    // Assess
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ success: true });
    const body = sim.requests.find((r) => r.path === '/api/v2/secureidlinks')?.body as { file: string };
    expect(Buffer.from(body.file, 'base64').toString('utf8')).toContain('bulk-1');
  });

  it('sdk-token, face-verify, id-verify (with ADDITIONAL:DRIVING_LICENSE) on one transaction', async () => {
    // Act: a token for both uploads, so the transaction waits for both however long the CLI takes.
    const token = await runIdv(
      [
        'sdk-token',
        '--service',
        'FACE_VERIFY',
        '--service',
        'AUTO_CAPTURE',
        '--challenges',
        '2',
        '--validate-watermark',
      ],
      {
        env,
      },
    );
    const { transactionId } = token.json<{ transactionId: string }>();
    const face = await runIdv(
      [
        'face-verify',
        '--transaction-id',
        transactionId,
        '--image',
        'COMPARE=face.png',
        '--image',
        'LIVE=face.png',
        '--image',
        'LIVE=face.png',
      ],
      { env, cwd: dir },
    );
    const upload = await runIdv(
      [
        'id-verify',
        '--product',
        'RTW_STANDARD',
        '--transaction-id',
        transactionId,
        '--image',
        'PASSPORT=passport.jpg',
        '--image',
        'ADDITIONAL:DRIVING_LICENSE=licence.png',
      ],
      { env, cwd: dir },
    );

    // Assess
    expect([token.code, face.code, upload.code], upload.stderr).toEqual([0, 0, 0]);
    expect(face.json()).toEqual({ success: true });
    expect(upload.json()).toEqual({ transactionId });
    expect(sim.requests.find((r) => r.path === '/api/v2/sdk/token')?.query.toString()).toBe(
      'services=FACE_VERIFY&services=AUTO_CAPTURE&numberOfChallenges=2&validateWatermark=true',
    );
    const images = (sim.requests.find((r) => r.path === '/api/v2/idverify')!.body as { images: object[] })
      .images;
    expect(images.map((i) => ({ ...i, data: undefined }))).toEqual([
      { type: 'PASSPORT', data: undefined },
      { type: 'ADDITIONAL', additionalDocumentType: 'DRIVING_LICENSE', data: undefined },
    ]);
  });

  it('face-quality, quality, vog create, reasons', async () => {
    // Act
    const runs = await Promise.all([
      runIdv(['face-quality', '--image', 'face.png', '--customer-reference', 'fq'], { env, cwd: dir }),
      runIdv(['quality', '--image', 'passport.jpg', '--image', 'licence.png'], { env, cwd: dir }),
      runIdv(
        [
          'vog',
          'create',
          '--given-names',
          'T',
          '--surname',
          'P',
          '--email',
          't@example.com',
          '--language',
          'nl',
          '--company',
          'C',
          '--job-title',
          'J',
          '--profile',
          '11',
          '--profile',
          '12',
          '--profile-type',
          'GENERIC',
          '--existing-vog',
        ],
        { env },
      ),
      runIdv(['reasons'], { env }),
    ]);

    // Assess
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(sim.requests.find((r) => r.path === '/api/v2/vog')?.body).toEqual({
      givenNames: 'T',
      surname: 'P',
      emailAddress: 't@example.com',
      language: 'nl',
      vogRequest: { companyName: 'C', jobTitle: 'J', profiles: ['11', '12'], profileType: 'GENERIC' },
      hasExistingVog: true,
    });
    expect(runs[3]?.json<{ reasons: unknown[] }>().reasons.length).toBeGreaterThan(0);
  });

  it('facelink-package', async () => {
    // Prepare
    const premium = (
      await runIdv(['secure-link', 'create', '--product', 'RTW_PREMIUM', '--mock-test', 'APPROVED'], { env })
    ).json<{ transactionId: string }>();
    const faceLink = (
      await runIdv(
        ['secure-link', 'create', '--product', 'FACE_LINK', '--linked-transaction-id', premium.transactionId],
        {
          env,
        },
      )
    ).json<{ transactionId: string }>();
    const token = sim.control.faceLinkToken(faceLink.transactionId)!;

    // Act
    // `--token=VALUE`: a random base64url token starts with "-" one time in 64, which `--token VALUE` refuses.
    const run = await runIdv(['facelink-package', `--token=${token}`], { env });

    // Assess
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      transactionId: faceLink.transactionId,
      packageData: expect.any(String),
    });
  });
});

describe('idv errors', () => {
  it('prints help for every command and exits 0', async () => {
    // Act
    const runs = await Promise.all([
      runIdv(['--help']),
      runIdv(['secure-link', '--help']),
      runIdv(['service', 'result', 'get', '--help']),
    ]);

    // Assess
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(runs[0]?.stdout).toContain('secure-link create');
    expect(runs[2]?.stdout).toContain('Usage: idv service result get RESULT_ID [--out DIR]');
  });

  it('exits 2 with a clear message on usage errors, without a stack trace', async () => {
    // Act
    const unknownFlag = await runIdv(['poll', '--bogus'], { env });
    const missing = await runIdv(['secure-link', 'bulk', '--csv', 'links.csv'], { env });
    const noConnection = await runIdv(['poll']);

    // Assess
    expect([unknownFlag.code, missing.code, noConnection.code]).toEqual([2, 2, 2]);
    expect(missing.stderr).toMatch(/^idv: missing --product\n/);
    expect(noConnection.stderr).toContain('IDV_BASE_URL');
    expect(unknownFlag.stderr).not.toMatch(/\n\s+at /);
    expect(unknownFlag.stdout).toBe('');
  });

  it('exits 1 when the service rejects the credentials, never printing the secret', async () => {
    // Act
    const run = await runIdv(['poll'], { env: { ...env, IDV_CLIENT_SECRET: 'wrong-secret-value' } });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('client credentials');
    expect(run.stderr + run.stdout).not.toContain('wrong-secret-value');
  });

  it('exits 2 on a too-small image (naming the file), 1 on mock-test on production, and sends nothing', async () => {
    // Act
    const small = await runIdv(['id-verify', '--product', 'IDV_LITE', '--image', 'PASSPORT=small.jpg'], {
      env,
      cwd: dir,
    });
    const production = await runIdv(
      ['secure-link', 'create', '--product', 'IDV_LITE', '--mock-test', 'APPROVED'],
      {
        env: { ...env, IDV_ENVIRONMENT: 'production' },
      },
    );

    // Assess
    expect(small.code).toBe(2);
    expect(small.stderr).toContain('images[0].data (--image PASSPORT=small.jpg): image is 320×240 pixels');
    expect(production.code).toBe(2);
    expect(production.stderr).toContain('mock-test');
    expect(sim.requests).toEqual([]);
  });

  it('id-verify sends an untyped image; each validation error names the flag that caused it', async () => {
    // Act
    const untyped = await runIdv(['id-verify', '--product', 'IDV_STANDARD', '--image', 'passport.jpg'], {
      env,
      cwd: dir,
    });
    const sent = sim.requests.find((r) => r.path === '/api/v2/idverify')?.body as { images: object[] };
    sim.requests.length = 0;
    const fewLive = await runIdv(
      ['face-verify', '--transaction-id', 't-1', '--image', 'COMPARE=face.png', '--image', 'LIVE=face.png'],
      { env, cwd: dir },
    );
    const badLanguage = await runIdv(
      ['secure-link', 'create', '--product', 'IDV_LITE', '--language', 'dutch'],
      {
        env,
      },
    );

    // Assess
    expect(untyped.code, untyped.stderr).toBe(0);
    expect(untyped.json()).toEqual({ transactionId: expect.any(String) });
    expect(sent.images.map((i) => ({ ...i, data: undefined }))).toEqual([{ data: undefined }]);
    expect(fewLive.code).toBe(2);
    expect(fewLive.stderr).toContain('images (--image): must contain at least 2 LIVE images');
    expect(fewLive.stderr).not.toContain('COMPARE=face.png)');
    expect(badLanguage.code).toBe(2);
    expect(badLanguage.stderr).toContain('(--language)');
    expect(sim.requests).toEqual([]);
  });

  it('exits 1 with NotFound for an unknown result', async () => {
    // Act
    const run = await runIdv(['service', 'result', 'get', 'no-such-result'], { env });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^idv: no result with resultId no-such-result \(404, code 5\): unknown, or removed after the retention period\n {2}service message: .+\n$/,
    );
  });

  it('says the service code of a rejected token request (401, code 16) and exits 1', async () => {
    // Act
    const run = await runIdv(['poll'], { env: { ...env, IDV_CLIENT_SECRET: 'wrong' } });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'the service rejected the client credentials (401, code 16 on the token request)',
    );
    expect(run.stderr).toContain('service message: Unauthorized');
  });

  it('refuses an unwritable --out before fetching, so the poll record stays', async () => {
    // Prepare
    const created = await runIdv(
      ['secure-link', 'create', '--product', 'IDV_LITE', '--mock-test', 'APPROVED'],
      {
        env,
      },
    );
    const { transactionId } = created.json<{ transactionId: string }>();
    const [resultId] = sim.control.resultIdsOf(transactionId);
    sim.requests.length = 0;

    // Act: a directory below a regular file cannot be created.
    const run = await runIdv(['service', 'result', 'get', resultId!, '--out', 'passport.jpg/out'], {
      env,
      cwd: dir,
    });

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^idv: cannot write to --out .*passport\.jpg\/out \(ENOTDIR\); nothing was fetched\n/,
    );
    expect(sim.requests.map((r) => r.path)).not.toContain(`/api/v2/result/${resultId}`);
    expect((await sim.control.stats()).pollRecords).toBeGreaterThan(0);
    const polled = await runIdv(['poll'], { env });
    expect(polled.json<{ results: { resultId: string }[] }>().results.map((r) => r.resultId)).toContain(
      resultId,
    );
  });

  it('says where it tried and why when the service is down', async () => {
    // Prepare: a port that was just free.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));

    // Act
    const run = await runIdv(['poll'], { env: { ...env, IDV_BASE_URL: `http://127.0.0.1:${port}` } });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `idv: no answer from the service for POST http://127.0.0.1:${port}/api/v2/oauth/token ` +
        '(ECONNREFUSED: connection refused, is the service running at that address?)\n',
    );
  });
});
