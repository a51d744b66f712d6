/**
 * The `idv` grammar of issue 23 over real HTTP against the simulator (and a hostile double for what the
 * simulator never says): scopes, per-image references, the service's words on a refusal, one `--image`
 * grammar, per-image quality verdicts, `success: false` as a failure, `--version`, no base64 on a terminal.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HostileService, jsonAnswer, startHostileService } from '../../bench/support/hostile-service';
import { KNOWN_SCOPES } from '../../shared/api/enums';
import { generateJpeg, generatePng } from '../../simulator/images';
import type { RunningSimulator } from '../../simulator/server';
import { runIdv, runIdvInProcess } from '../support/cli';
import { startCliSimulator } from '../support/cli-simulator';

let sim: RunningSimulator;
let dir: string;
let env: Record<string, string>;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sim, env, dir, close } = await startCliSimulator({ seed: 23, enforceScopes: true }, 'idv-grammar-', {
    'passport.jpg': generateJpeg(640, 480, 1),
    'back.png': generatePng(800, 600, 2),
    'small.jpg': generateJpeg(320, 240, 3),
    'live1.jpg': generateJpeg(640, 480, 5),
    'live2.jpg': generateJpeg(640, 480, 6),
  }));
});
afterAll(() => close());
beforeEach(() => {
  sim.requests.length = 0;
});

/** `idv ARGS` in this process, with `extra` as its environment. */
function idv(args: string[], extra: Record<string, string> = env) {
  return runIdvInProcess(args, { env: extra, cwd: dir });
}

function tokenScopes(): string[][] {
  return sim.requests
    .filter((r) => r.path === '/api/v2/oauth/token')
    .map((r) => (r.body as { scopes: string[] }).scopes);
}

describe('scopes', () => {
  it('asks for the six known scopes by default', async () => {
    // Act
    const run = await idv(['poll']);

    // Assess
    expect(run.code).toBe(0);
    expect(tokenScopes()).toEqual([[...KNOWN_SCOPES]]);
  });

  it('--scopes and IDV_SCOPES choose them (comma-separated, the flag first)', async () => {
    // Act
    const flag = await idv(['poll', '--scopes', 'productapi.poll.read, productapi.result.read']);
    const variable = await idv(['poll'], { ...env, IDV_SCOPES: 'productapi.poll.read' });

    // Assess
    expect([flag.code, variable.code]).toEqual([0, 0]);
    expect(tokenScopes()).toEqual([
      ['productapi.poll.read', 'productapi.result.read'],
      ['productapi.poll.read'],
    ]);
  });

  it('a token without the endpoint scope: exit 1 with the service code and its details', async () => {
    // Act
    const run = await idv(['sdk-token', '--service', 'NFC', '--scopes', 'productapi.poll.read']);

    // Assess
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^idv: service answered 403 \(forbidden, code 7\)\n/);
    expect(run.err).toContain('  - requiredScope=productapi.sdk.read\n');
  });

  it('an empty --scopes is a usage error', async () => {
    // Act
    const run = await idv(['poll', '--scopes', ' , ']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.err).toContain('--scopes (or IDV_SCOPES) must name at least one scope');
    expect(sim.requests).toEqual([]);
  });
});

describe('--image [TYPE=]PATH[,ref=R]', () => {
  /** The images of the request `idv` sent to `path`. */
  function imagesSentTo<T>(path: string): T[] {
    const request = sim.requests.find((r) => r.path === path);
    expect(request, path).toBeDefined();
    return (request!.body as { images: T[] }).images;
  }

  it('id-verify sends each image its own customerReference', async () => {
    // Act
    const run = await idv([
      'id-verify',
      '--product',
      'IDV_STANDARD',
      '--image',
      'PASSPORT=passport.jpg,ref=front-1',
      '--image',
      'ADDITIONAL:DRIVING_LICENSE=back.png,ref=licence,with=odd,chars',
    ]);

    // Assess
    expect(run.code).toBe(0);
    const images = imagesSentTo<{
      type: string;
      additionalDocumentType?: string;
      customerReference?: string;
    }>('/api/v2/idverify');
    expect(
      images.map(({ type, additionalDocumentType, customerReference }) => ({
        type,
        additionalDocumentType,
        customerReference,
      })),
    ).toEqual([
      { type: 'PASSPORT', additionalDocumentType: undefined, customerReference: 'front-1' },
      {
        type: 'ADDITIONAL',
        additionalDocumentType: 'DRIVING_LICENSE',
        customerReference: 'licence,with=odd,chars',
      },
    ]);
  });

  it('face-verify takes ref= too', async () => {
    // Prepare
    const token = JSON.parse((await idv(['sdk-token', '--service', 'FACE_VERIFY'])).out) as {
      transactionId: string;
    };
    sim.requests.length = 0;

    // Act
    const run = await idv([
      'face-verify',
      '--transaction-id',
      token.transactionId,
      '--image',
      'COMPARE=passport.jpg,ref=c',
      '--image',
      'LIVE=live1.jpg,ref=l1',
      '--image',
      'LIVE=live2.jpg',
    ]);

    // Assess
    expect(run.code).toBe(0);
    const images = imagesSentTo<{ customerReference?: string }>('/api/v2/faceverify');
    expect(images.map((i) => i.customerReference)).toEqual(['c', 'l1', undefined]);
  });

  it('quality takes TYPE=PATH as id-verify does, and says which image failed', async () => {
    // Act
    const run = await idv([
      'quality',
      '--image',
      'PASSPORT=passport.jpg',
      '--image',
      'small.jpg',
      '--image',
      'back.png',
    ]);

    // Assess
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({
      result: 'DISAPPROVED',
      images: [
        { image: 'PASSPORT=passport.jpg', result: 'APPROVED' },
        { image: 'small.jpg', result: 'DISAPPROVED', message: 'The image resolution is too low.' },
        { image: 'back.png', result: 'APPROVED' },
      ],
    });
  });

  it('one request when all images pass', async () => {
    // Act
    const run = await idv(['quality', '--image', 'passport.jpg', '--image', 'back.png']);

    // Assess
    expect(JSON.parse(run.out).images.map((i: { result: string }) => i.result)).toEqual([
      'APPROVED',
      'APPROVED',
    ]);
    expect(sim.requests.filter((r) => r.path === '/api/v2/quality')).toHaveLength(1);
  });

  it('a bad TYPE is exit 2 with the closest type, nothing sent', async () => {
    // Act
    const run = await idv(['quality', '--image', 'PASPORT=passport.jpg']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.err).toContain('(did you mean PASSPORT?)');
    expect(sim.requests).toEqual([]);
  });

  it('a file error names the file', async () => {
    // Act
    const run = await idv(['face-quality', '--image', 'LIVE=nope.jpg']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^idv: cannot read the file of --image nope\.jpg: no such file \(ENOENT\)\n/);
  });
});

describe('exit codes and output', () => {
  it('a bulk answer with "success": false exits 1 after printing the answer', async () => {
    // Prepare
    await writeFile(
      join(dir, 'links.csv'),
      'name;emailAddress;phoneNumber;language;customerReference\nA B;not-an-address;;nl;r1\n',
    );

    // Act
    const run = await idv(['secure-link', 'bulk', '--product', 'IDV_LITE', '--csv', 'links.csv']);

    // Assess
    expect(run.code).toBe(1);
    expect(JSON.parse(run.out)).toMatchObject({ success: false, errors: [{ row: 2 }] });
    expect(run.err).toContain('"success": false');
  });

  it('an enum typo in a service command is exit 2 with a suggestion, nothing sent', async () => {
    // Act
    const run = await idv(['secure-link', 'create', '--product', 'IDV_STANDRD']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.err).toContain('(did you mean IDV_STANDARD?)');
    expect(sim.requests).toEqual([]);
  });

  it('service result get prints images and files as notes, never base64; --out has the bytes', async () => {
    // Prepare
    const created = JSON.parse(
      (await idv(['secure-link', 'create', '--product', 'IDV_STANDARD', '--mock-test', 'APPROVED'])).out,
    ) as { transactionId: string };
    const [resultId] = sim.control.resultIdsOf(created.transactionId);

    // Act
    const run = await idv(['service', 'result', 'get', resultId!]);
    const again = await idv(['service', 'result', 'get', resultId!, '--out', 'out']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.out.length).toBeLessThan(20_000);
    const shown = JSON.parse(run.out) as { images: { data: string }[]; files: { data: string }[] };
    expect(shown.images[0]?.data).toMatch(/^JPG file, [0-9]+ bytes \(not shown; write it with --out DIR\)$/);
    expect(shown.files[0]?.data).toMatch(/^PDF file, [0-9]+ bytes/);
    expect(again.code).toBe(0);
    const written = JSON.parse(await readFile(join(dir, 'out', 'result.json'), 'utf8'));
    expect(written.images[0].data).toMatch(/^01-.*\.jpg$/);
  });

  it('the old "result get" is exit 2, pointing at both new names', async () => {
    // Act
    const run = await idv(['result', 'get', 'r-1']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.err).toContain('"idv result get" is now "idv service result get"');
    expect(run.err).toContain('did you mean "idv results get"');
    expect(sim.requests).toEqual([]);
  });

  it('--version prints the version (the real process)', async () => {
    // Act
    const run = await runIdv(['--version']);

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^idv [0-9]+\.[0-9]+\.[0-9]+\n$/);
  });

  it('analytics report --html into a missing directory is exit 2 before any query', async () => {
    // Act
    const run = await idv(['analytics', 'report', '--local', '--data-dir', dir, '--html', '/nope/r.html']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toContain(
      'cannot write --html /nope/r.html (its directory does not exist); nothing was run',
    );
  });

  it('setup credentials without an AWS region says so', async () => {
    // Act
    const run = await runIdv(['setup', 'credentials', '--secret-id', 'x', '--skip-verify'], {
      input: 'id\nsecret\n',
      env: {
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'x',
        AWS_EC2_METADATA_DISABLED: 'true',
      },
      cwd: dir,
    });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('writing x failed: no AWS region: set AWS_REGION');
  });
});

describe('facelink-package --package-out', () => {
  it('writes the one copy to a private file, opened before the request', async () => {
    // Prepare
    const premium = JSON.parse(
      (await idv(['secure-link', 'create', '--product', 'RTW_PREMIUM', '--mock-test', 'APPROVED'])).out,
    ) as { transactionId: string };
    const faceLink = JSON.parse(
      (
        await idv([
          'secure-link',
          'create',
          '--product',
          'FACE_LINK',
          '--linked-transaction-id',
          premium.transactionId,
        ])
      ).out,
    ) as { transactionId: string };
    const token = sim.control.faceLinkToken(faceLink.transactionId)!;
    sim.requests.length = 0;

    // Act
    // `--token=VALUE`: a random base64url token starts with "-" one time in 64, which `--token VALUE` refuses.
    const refused = await idv(['facelink-package', `--token=${token}`, '--package-out', 'passport.jpg/pkg']);
    const run = await idv(['facelink-package', `--token=${token}`, '--package-out', 'package.txt']);

    // Assess
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      'cannot write the file of --package-out passport.jpg/pkg (ENOTDIR); nothing was fetched',
    );
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.out) as { packageFile: string; packageData?: string };
    expect(answer.packageData).toBeUndefined();
    expect(answer.packageFile).toBe(join(dir, 'package.txt'));
    expect((await readFile(answer.packageFile, 'utf8')).length).toBeGreaterThan(0);
    expect(sim.requests.filter((r) => r.path === '/api/v2/facelinkpackage')).toHaveLength(1);
  });
});

describe('the service words of a hostile refusal', () => {
  let hostile: HostileService;
  beforeAll(async () => {
    hostile = await startHostileService({
      any: ({ path }) =>
        path.endsWith('/oauth/token')
          ? jsonAnswer(200, { accessToken: 'tok', expiresIn: '3600', tokenType: 'Bearer' })
          : jsonAnswer(400, {
              code: 3,
              message: `\u001b[2J\u001b]0;pwned\u0007Invalid \u001b[31mrequest\u001b[0m Bearer abcdefghijklmnopqrstuvwxyz0123456789${'!'.repeat(10_000)}`,
              details: [
                { field: 'images[0].data', description: 'too \r\nsmall\u0000' },
                ...Array.from({ length: 30 }, (_, i) => ({ field: `x${i}`, description: 'y'.repeat(1_000) })),
              ],
            }),
    });
  });
  afterAll(() => hostile.close());

  it('prints code, message and each detail bounded, printable and scrubbed', async () => {
    // Act
    const run = await idv(['id-verify', '--product', 'IDV_LITE', '--image', 'PASSPORT=passport.jpg'], {
      IDV_BASE_URL: hostile.url,
      IDV_CLIENT_ID: 'a',
      IDV_CLIENT_SECRET: 'b',
    });

    // Assess
    expect(run.code).toBe(1);
    expect(run.err.length).toBeLessThan(4_000);
    expect(run.err).toMatch(/^[\x20-\x7e\n]*$/);
    expect(run.err).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    const lines = run.err.split('\n');
    expect(lines[0]).toBe('idv: service answered 400 (bad request, code 3)');
    expect(lines[1]).toMatch(/^ {2}service message: Invalid request Bearer \[redacted\]!+\.\.\.$/);
    expect(lines[2]).toBe('  - images[0].data (--image PASSPORT=passport.jpg): too small');
    expect(run.err).toContain('(21 more details not shown)');
  });

  it('a token request refused for its scopes says which scopes were asked for, and the service words', async () => {
    // Prepare
    const refusing = await startHostileService({
      any: () =>
        jsonAnswer(400, {
          code: 3,
          message: 'invalid_scope',
          details: [{ field: 'scopes[2]', description: 'not granted' }],
        }),
    });

    // Act
    const run = await idv(
      ['poll', '--scopes', 'productapi.poll.read,productapi.result.read,productapi.sdk.read'],
      {
        IDV_BASE_URL: refusing.url,
        IDV_CLIENT_ID: 'a',
        IDV_CLIENT_SECRET: 'b',
      },
    );
    await refusing.close();

    // Assess
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      'idv: the service refused the token request for the scopes productapi.poll.read, productapi.result.read, ' +
        'productapi.sdk.read (400, code 3); ask only for the scopes the client is granted\n' +
        '  service message: invalid_scope\n' +
        '  - scopes[2]: not granted\n',
    );
  });
});
