/**
 * How the simulator reads requests, as a server would: unknown fields ignored (and logged at debug),
 * only what the spec requires or forbids refused, scopes enforced per endpoint, the secure link's QR
 * code holding the link, and the bulk CSV read with quotes, BOM and CRLF. Real HTTP.
 */
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { generateJpeg } from '../../simulator/images';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { callSim, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const document = generateJpeg(640, 480, 1).toString('base64');
const debugLines: string[] = [];

let sim: RunningSimulator;
let token: string;

beforeAll(async () => {
  sim = await startSimulator({
    ...SIM_CLIENT,
    seed: 31,
    enforceScopes: true,
    completionDelayMs: 60_000,
    onDebug: (line) => debugLines.push(line),
  });
  token = await tokenFor(sim);
});
afterAll(() => sim.close());

describe('tolerant reading', () => {
  it('accepts face verify with an extra valid_challenges field and logs the ignored name', async () => {
    // Prepare
    const sdk = await callSim(sim, token, 'GET', `${PATHS.sdkToken}?services=FACE_VERIFY`);
    const live = { data: document, type: 'LIVE' };

    // Act
    const r = await callSim(sim, token, 'POST', PATHS.faceVerify, {
      transactionId: sdk.body.transactionId,
      images: [live, live, { data: document, type: 'COMPARE', quality_score: 0.9 }],
      valid_challenges: ['TURN_LEFT', 'SMILE'],
    });

    // Assess
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true });
    expect(debugLines.join('\n')).toContain('valid_challenges');
    expect(debugLines.join('\n')).toContain('images.2.quality_score');
    expect(debugLines.join('\n')).not.toContain('TURN_LEFT');
  });

  it('accepts the snake_case SDK token query names', async () => {
    // Act
    const r = await callSim(
      sim,
      token,
      'GET',
      `${PATHS.sdkToken}?services=FACE_VERIFY&number_of_challenges=3&customer_reference=c&validate_watermark=true`,
    );

    // Assess
    expect(r.status).toBe(200);
  });

  it('still refuses what the spec requires or forbids, naming the field', async () => {
    // Act
    const missing = await callSim(sim, token, 'POST', PATHS.idVerify, {
      images: [{ data: document }],
      extra: 1,
    });
    const badEnum = await callSim(sim, token, 'POST', PATHS.idVerify, {
      product: 'IDV_STANDARD',
      images: [{ data: document, type: 'SELFIE' }],
    });

    // Assess
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('product');
    expect(missing.body.message).not.toContain('extra');
    expect(badEnum.status).toBe(400);
    expect(badEnum.body.message).toContain('images.0.type');
  });
});

describe('scopes per endpoint', () => {
  const cases = [
    ['productapi.poll.read', 'GET', PATHS.poll, undefined],
    ['productapi.result.read', 'GET', PATHS.result('none'), undefined],
    ['productapi.secureidlink.write', 'POST', PATHS.secureLink, { product: 'IDV_LITE' }],
    ['productapi.secureidlink.write', 'POST', PATHS.bulkSecureLinks, { product: 'IDV_LITE', file: 'YQ==' }],
    [
      'productapi.idverify.write',
      'POST',
      PATHS.idVerify,
      { product: 'IDV_LITE', images: [{ data: document }] },
    ],
    [
      'productapi.faceverify.write',
      'POST',
      PATHS.faceVerify,
      { transactionId: 'x', images: [{ data: document }] },
    ],
    ['productapi.sdk.read', 'GET', `${PATHS.sdkToken}?services=NFC`, undefined],
  ] as const;

  it.each(cases)(
    '%s: refused without it (403, error body), served with just it',
    async (scope, method, path, body) => {
      // Prepare
      const other = await tokenFor(sim, [
        scope === 'productapi.poll.read' ? 'productapi.result.read' : 'productapi.poll.read',
      ]);
      const just = await tokenFor(sim, [scope]);

      // Act
      const refused = await callSim(sim, other, method, path, body);
      const served = await callSim(sim, just, method, path, body);

      // Assess
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        code: 7,
        message: 'PermissionDenied',
        details: [{ requiredScope: scope }],
      });
      expect(served.status).not.toBe(403);
      expect(served.status).not.toBe(401);
    },
  );

  it('endpoints without a known scope take any live token', async () => {
    // Prepare
    const pollOnly = await tokenFor(sim, ['productapi.poll.read']);

    // Act
    const reasons = await callSim(sim, pollOnly, 'GET', PATHS.reasons);
    const quality = await callSim(sim, pollOnly, 'POST', PATHS.quality, { images: [document] });

    // Assess
    expect(reasons.status).toBe(200);
    expect(quality.status).toBe(200);
  });
});

describe('secure links', () => {
  it('returns a QR code that holds the link', async () => {
    // Act
    const r = await callSim(sim, token, 'POST', PATHS.secureLink, {
      product: 'IDV_LITE',
      disableCommunication: true,
    });

    // Assess
    const png = PNG.sync.read(Buffer.from(r.body.qrCode as string, 'base64'));
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(decoded?.data).toBe(r.body.link);
  });

  it('reads a bulk CSV with a BOM, CRLF and quoted fields holding ; and quotes', async () => {
    // Prepare
    const csv =
      '\uFEFFname;emailAddress;phoneNumber;language;customerReference\r\n' +
      '"Jansen; Jan";jan@example.test;;nl;"ref ""a"""\r\n' +
      'Piet;piet@example.test;+31612345678;en;ref-b\r\n';

    // Act
    const r = await callSim(sim, token, 'POST', PATHS.bulkSecureLinks, {
      product: 'IDV_STANDARD',
      file: Buffer.from(csv).toString('base64'),
    });

    // Assess
    expect(r.body).toEqual({ success: true, errors: [] });
  });

  it('numbers bad rows as the client does (header = row 1) and names an unclosed quote', async () => {
    // Prepare
    const header = 'name;emailAddress;phoneNumber;language;customerReference';
    const badRow = `${header}\nA;a@example.test;;nl;r\n\nB;b@example.test;;nl\n`;
    const unclosed = `${header}\nA;a@example.test;;nl;r\n"B;b@example.test;;nl;r\n`;

    // Act
    const rows = await callSim(sim, token, 'POST', PATHS.bulkSecureLinks, {
      product: 'IDV_LITE',
      file: Buffer.from(badRow).toString('base64'),
    });
    const quote = await callSim(sim, token, 'POST', PATHS.bulkSecureLinks, {
      product: 'IDV_LITE',
      file: Buffer.from(unclosed).toString('base64'),
    });

    // Assess
    expect(rows.body.errors).toEqual([{ message: 'expected 5 columns', row: 3 }]);
    expect(quote.body).toEqual({
      success: false,
      errors: [{ message: 'a quoted field is not closed', row: 3 }],
    });
  });
});
