/**
 * Edges where the simulator follows the spec to the letter: the quality result over several images is
 * the worst verdict (§4.8), a userId must name a user of the account (§2.2, 400 with the default error
 * body), the whatsappRedirectUrl of a secure link answers (§2.3). Real HTTP against the simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { checkBulkCsv } from '../../shared/client/validate-bulk';
import { generateJpeg } from '../../simulator/images';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { callSim, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const big = generateJpeg(640, 480, 5).toString('base64');
const small = generateJpeg(64, 48, 5).toString('base64');
const truncated = Buffer.from([0xff, 0xd8, 0xff]).toString('base64');
const garbage = Buffer.from('no image here').toString('base64');

let sim: RunningSimulator;
let token: string;

beforeAll(async () => {
  sim = await startSimulator({ ...SIM_CLIENT, seed: 8, users: ['api-user', 'alice'] });
  token = await tokenFor(sim);
});
afterAll(() => sim.close());

describe('quality: the overall result is the worst verdict', () => {
  it.each([
    [[big, big], 'APPROVED'],
    [[big, truncated], 'UNKNOWN'],
    [[truncated, small, big], 'DISAPPROVED'],
    [[small, garbage, truncated], 'TECHNICAL_REJECT'],
    [[garbage, small], 'TECHNICAL_REJECT'],
  ])('%# gives %s', async (images, expected) => {
    // Act
    const answer = await callSim(sim, token, 'POST', PATHS.quality, { images });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.result).toBe(expected);
    expect('message' in answer.body).toBe(expected !== 'APPROVED');
  });
});

describe('userId names a user of the account', () => {
  it('accepts a user of the account and refuses another with the default error body', async () => {
    // Act
    const known = await callSim(sim, token, 'POST', PATHS.secureLink, { userId: 'alice' });
    const unknown = await callSim(sim, token, 'POST', PATHS.secureLink, { userId: 'mallory' });

    // Assess
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ code: 3, message: expect.any(String), details: expect.any(Array) });
  });

  it('without a users option only the default user exists', async () => {
    // Prepare
    const plain = await startSimulator({ ...SIM_CLIENT, seed: 9 });
    try {
      const plainToken = await tokenFor(plain);

      // Act
      const own = await callSim(plain, plainToken, 'POST', PATHS.secureLink, { userId: 'api-user' });
      const other = await callSim(plain, plainToken, 'POST', PATHS.secureLink, { userId: 'alice' });

      // Assess
      expect(own.status).toBe(200);
      expect(other.status).toBe(400);
    } finally {
      await plain.close();
    }
  });
});

describe('bulk CSV: one rule with the client, the header row optional', () => {
  const header = 'name;emailAddress;phoneNumber;language;customerReference';
  it.each([
    ['with the header', `${header}\nA;a@example.com;;nl;r1\nB;b@example;;nl;r2`, 3],
    ['without the header', 'A;a@example.com;;nl;r1\nB;b@example;;nl;r2', 2],
  ])('%s: rows numbered as in the file, and the client agrees', async (_, text, badRow) => {
    // Act
    const answer = await callSim(sim, token, 'POST', PATHS.bulkSecureLinks, {
      product: 'IDV_STANDARD',
      file: Buffer.from(text).toString('base64'),
    });
    const client = checkBulkCsv(text);

    // Assess
    expect(answer.body).toEqual({
      success: false,
      errors: [{ row: badRow, message: 'emailAddress is not an e-mail address' }],
    });
    expect(client).toEqual([]);
  });

  it('a one-row file without the header succeeds', async () => {
    // Act
    const answer = await callSim(sim, token, 'POST', PATHS.bulkSecureLinks, {
      product: 'IDV_STANDARD',
      file: Buffer.from('A;a@example.com;;nl;r1').toString('base64'),
    });

    // Assess
    expect(answer.body).toEqual({ success: true, errors: [] });
    expect(checkBulkCsv('A;a@example.com;;nl;r1')).toEqual([]);
  });
});

describe('whatsappRedirectUrl', () => {
  it('answers with the messaging hand-over page, which carries the link', async () => {
    // Prepare
    const created = await callSim(sim, token, 'POST', PATHS.secureLink, {
      communicationModes: ['MODE_WHATSAPP'],
      whatsappPhoneNumber: '+31600000000',
    });
    const url = created.body.whatsappRedirectUrl as string;

    // Act
    const res = await fetch(url);
    const html = await res.text();
    const missing = await fetch(`${sim.url}/whatsapp/00000000-0000-4000-8000-000000000000`);

    // Assess
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain(`/link/${created.body.secureId as string}`);
    expect(missing.status).toBe(404);
  });
});
