/**
 * Process tests of `idv secure-link create --qr-out`, `idv secure-link bulk` with a real CSV and
 * `idv id-verify` with the document formats the spec allows: the real `idv` process against the
 * simulator (scopes enforced, as `npm run simulator` does).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateJpeg } from '../../simulator/images';
import { buildPdf } from '../../simulator/pdf';
import type { RunningSimulator } from '../../simulator/server';
import { runIdv } from '../support/cli';
import { startCliSimulator } from '../support/cli-simulator';

let sim: RunningSimulator;
let dir: string;
let env: Record<string, string>;
let close: () => Promise<void>;
const HEADER = 'name;emailAddress;phoneNumber;language;customerReference';

beforeAll(async () => {
  ({ sim, env, dir, close } = await startCliSimulator({ seed: 12, enforceScopes: true }, 'idv-cli-link-', {
    'card.jpg': generateJpeg(640, 480, 1),
    'statement.pdf': buildPdf('statement', ['page 1']),
  }));
});
afterAll(() => close());
beforeEach(() => {
  sim.requests.length = 0;
});

const linkRequests = () => sim.requests.filter((r) => r.path === '/api/v2/secureidlink');

describe('idv secure-link create and the QR code', () => {
  it('--qr-out writes the QR code as a PNG holding the link and prints the link, not the image', async () => {
    // Act
    const run = await runIdv(
      ['secure-link', 'create', '--product', 'IDV_STANDARD', '--disable-communication', '--qr-out', 'qr.png'],
      { env, cwd: dir },
    );

    // Assess
    expect(run.code).toBe(0);
    const out = run.json<{ link: string; qrCodeFile: string; qrCode?: string }>();
    expect(out.qrCode).toBeUndefined();
    expect(out.qrCodeFile).toBe(join(dir, 'qr.png'));
    expect(run.stdout.length).toBeLessThan(1000);
    const png = PNG.sync.read(await readFile(join(dir, 'qr.png')));
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(out.link);
    expect(((await stat(join(dir, 'qr.png'))).mode & 0o777).toString(8)).toBe('600');
  });

  it('without --qr-out shows the size of the QR code instead of its base64', async () => {
    // Act
    const run = await runIdv(['secure-link', 'create', '--product', 'IDV_LITE', '--disable-communication'], {
      env,
    });

    // Assess
    expect(run.code).toBe(0);
    const out = run.json<{ link: string; qrCode: string }>();
    expect(out.link).toMatch(/^http:\/\//);
    expect(out.qrCode).toMatch(/^PNG image, \d+ bytes \(not shown; save it with --qr-out FILE\)$/);
  });

  it.each([
    ['without --disable-communication', ['--qr-out', 'x.png'], '--qr-out needs --disable-communication'],
    [
      'into a missing directory',
      ['--disable-communication', '--qr-out', 'no/such/dir/x.png'],
      'cannot write the file of --qr-out no/such/dir/x.png (ENOENT)',
    ],
  ])('refuses --qr-out %s with exit 2 and sends nothing', async (_name, flags, message) => {
    // Act
    const run = await runIdv(['secure-link', 'create', '--product', 'IDV_LITE', ...flags], { env, cwd: dir });

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(linkRequests()).toEqual([]);
  });
});

describe('idv secure-link bulk and the CSV', () => {
  it('sends a CSV with a BOM, CRLF and quoted fields holding ; (the BOM dropped)', async () => {
    // Prepare
    const csv = `\uFEFF${HEADER}\r\n"Jansen; Jan";jan@example.test;;nl;"ref ""1"""\r\nPiet;piet@example.test;;en;ref-2\r\n`;
    await writeFile(join(dir, 'quoted.csv'), csv);

    // Act
    const run = await runIdv(['secure-link', 'bulk', '--product', 'IDV_LITE', '--csv', 'quoted.csv'], {
      env,
      cwd: dir,
    });

    // Assess
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ success: true, errors: [] });
    const body = sim.requests.find((r) => r.path === '/api/v2/secureidlinks')?.body as { file: string };
    expect(Buffer.from(body.file, 'base64').toString('utf8')).toBe(csv.slice(1));
  });

  it('names a bad row by its row in the file (header = row 1) and sends nothing', async () => {
    // Prepare
    await writeFile(join(dir, 'bad.csv'), `${HEADER}\nA;a@example.test;;nl;r1\nB;b@example.test;nl\n`);

    // Act
    const run = await runIdv(['secure-link', 'bulk', '--product', 'IDV_LITE', '--csv', 'bad.csv'], {
      env,
      cwd: dir,
    });

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('row 3 has 3 fields, expected 5');
    expect(sim.requests.some((r) => r.path === '/api/v2/secureidlinks')).toBe(false);
  });
});

describe('idv id-verify and the document formats', () => {
  it('uploads a PDF payroll tax statement beside an identity image', async () => {
    // Act
    const run = await runIdv(
      [
        'id-verify',
        '--product',
        'RTW_STANDARD',
        '--image',
        'IDENTITY_CARD=card.jpg',
        '--image',
        'PAYROLL_TAX_STATEMENT=statement.pdf',
      ],
      { env, cwd: dir },
    );

    // Assess
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ transactionId: expect.any(String) });
  });

  it('refuses a PDF as an identity document with exit 2, naming the file, and sends nothing', async () => {
    // Act
    const run = await runIdv(
      ['id-verify', '--product', 'IDV_STANDARD', '--image', 'PASSPORT=statement.pdf'],
      {
        env,
        cwd: dir,
      },
    );

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('images[0].data (--image PASSPORT=statement.pdf)');
    expect(run.stderr).toContain('is not a readable JPEG or PNG image');
    expect(sim.requests.some((r) => r.path === '/api/v2/idverify')).toBe(false);
  });
});
