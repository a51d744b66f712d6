/**
 * The hosted flow behind the simulator's secure link, over plain HTTP (the browser test drives the same
 * pages in Chromium): the link opens a page instead of `{"code":5,"message":"NotFound"}`; a form post
 * or a JSON post completes the transaction as the real flow would (upload webhook, then poll record and
 * result webhook); sample uploads come back as their document types; everything shown is escaped and
 * every input bounded; the samples and the result's portrait pass the 640 × 480 and face-quality rules;
 * with `linksAwaitBrowser` a link waits for its end user.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { imageDimensions, sniffContentType } from '../../shared/image';
import { pooledImage } from '../../simulator/images';
import { SAMPLES } from '../../simulator/samples';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import {
  callSim,
  completedResult,
  newSecureLink,
  SIM_CLIENT,
  startHookedSimulator,
  tokenFor,
  type WebhookRecorder,
} from '../support/simulator-http';

let sim: RunningSimulator;
let token: string;
let hooks: WebhookRecorder;

beforeAll(async () => {
  ({ sim, token, hooks } = await startHookedSimulator({ seed: 24, completionDelayMs: 60_000 }));
});
afterAll(async () => {
  await sim.close();
  await hooks.close();
});
beforeEach(() => {
  hooks.received.length = 0;
});

function newLink(body: Record<string, unknown> = {}): Promise<{ link: string; transactionId: string }> {
  return newSecureLink(sim, token, { product: 'IDV_STANDARD', ...body });
}

function postForm(link: string, fields: Record<string, string> | string, accept?: string) {
  return fetch(`${link}/complete`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(accept ? { accept } : {}),
    },
    body: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
  });
}

describe('the secure link page', () => {
  it('opens an HTML page with both forms, no script, and the reference escaped', async () => {
    // Prepare
    const { link, transactionId } = await newLink({ customerReference: '<script>alert("x")</script>&' });

    // Act
    const res = await fetch(link);
    const html = await res.text();

    // Assess
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html).toContain(transactionId);
    expect(html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;');
    expect(html).not.toContain('<script');
    expect(html).toMatch(
      /<form id="outcome-form" method="post" action="\/link\/[0-9a-f-]+\/[A-Za-z0-9_-]+\/complete">/,
    );
    expect(html).toMatch(/<form id="upload-form" method="post"/);
    for (const o of [
      'APPROVED',
      'APPROVED_EU',
      'APPROVED_NON_EU',
      'APPROVED_RP',
      'DISAPPROVED',
      'TECHNICAL_REJECT',
    ]) {
      expect(html).toContain(`value="${o}"`);
    }
  });

  it('an unknown link is a 404 page; a wrong method a 405', async () => {
    // Act
    const unknown = await fetch(`${sim.url}/link/00000000-0000-0000-0000-000000000000`);
    const { link } = await newLink();
    const wrong = await fetch(link, { method: 'POST' });

    // Assess
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('Link not found');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });
});

describe('completing through the link', () => {
  it('a picked outcome completes the transaction: upload webhook, then poll record and result webhook', async () => {
    // Prepare
    const { link, transactionId } = await newLink({ product: 'RTW_STANDARD', customerReference: 'hf-1' });

    // Act
    const res = await postForm(link, { action: 'outcome', outcome: 'APPROVED_RP' });
    const page = await (await fetch(link)).text();

    // Assess
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!, link).href).toBe(link);
    expect(page).toContain('Verification complete');
    expect(page).toContain('<b id="result">APPROVED</b>');
    await sim.control.webhooksIdle();
    expect(hooks.received.map((h) => [h.path, h.body.transactionId, h.body.customerReference])).toEqual([
      ['/upload', transactionId, 'hf-1'],
      ['/result', transactionId, 'hf-1'],
    ]);
    const poll = await callSim(sim, token, 'GET', PATHS.poll);
    expect((poll.body.results as { transactionId: string }[]).map((r) => r.transactionId)).toContain(
      transactionId,
    );
    const doc = await completedResult(sim, token, transactionId);
    expect(doc.result).toBe('APPROVED');
    expect(doc.identity?.data?.documentType).toBe('RESIDENCE_PERMIT');
    expect(doc.rightToWork?.result).toBe('APPROVED');
  });

  it('sample uploads come back as their document types and pages, without references', async () => {
    // Prepare
    const { link, transactionId } = await newLink({
      product: 'RTW_PREMIUM',
      additionalDocuments: ['DRIVING_LICENSE'],
    });

    // Act
    const res = await postForm(link, {
      action: 'upload',
      document: 'passport',
      drivingLicense: 'on',
      face: 'on',
      outcome: 'DISAPPROVED',
    });

    // Assess
    expect(res.status).toBe(303);
    const doc = await completedResult(sim, token, transactionId);
    expect(doc.result).toBe('DISAPPROVED');
    expect(doc.identity?.data?.documentType).toBe('PASSPORT');
    expect(doc.drivingLicense).toBeDefined();
    expect(doc.images?.map((i) => [i.documentType, i.pageType, i.customerReference])).toEqual([
      ['PASSPORT', 'FRONT', undefined],
      ['DRIVING_LICENSE', 'FRONT', undefined],
      ['DRIVING_LICENSE', 'BACK', undefined],
      ['COMPARE', 'ANY', undefined],
      ['LIVE', 'ANY', undefined],
      ['LIVE', 'ANY', undefined],
      ['PORTRAIT', 'ANY', undefined],
    ]);
  });

  it('a JSON post (what idv simulator trigger sends) answers the result; a second one is a 409', async () => {
    // Prepare
    const { link, transactionId } = await newLink();
    const post = () =>
      fetch(`${link}/complete`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ action: 'outcome', outcome: 'TECHNICAL_REJECT' }),
      });

    // Act
    const first = await post();
    const second = await post();

    // Assess
    const body = (await first.json()) as Record<string, unknown>;
    expect(body).toEqual({ transactionId, resultId: expect.any(String), result: 'TECHNICAL_REJECT' });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ code: 9 });
    expect(sim.control.resultIdsOf(transactionId)).toEqual([body.resultId]);
  });

  it('a FACE_LINK link completes with the selfie alone', async () => {
    // Prepare
    const premium = await newLink({ product: 'IDV_PREMIUM' });
    const { link, transactionId } = await newLink({
      product: 'FACE_LINK',
      linkedTransactionId: premium.transactionId,
    });

    // Act
    const res = await postForm(link, { action: 'upload', face: 'on', outcome: 'APPROVED' });

    // Assess
    expect(res.status).toBe(303);
    const doc = await completedResult(sim, token, transactionId);
    expect(doc.faceLink?.result).toBe('APPROVED');
    expect(doc.identity).toBeUndefined();
    expect(doc.images?.map((i) => i.documentType)).toEqual(['COMPARE', 'LIVE', 'LIVE']);
  });
});

describe('bounded inputs', () => {
  it.each([
    ['an unknown outcome', { action: 'outcome', outcome: '<b>NOPE</b>' }, 400, 'The outcome must be one of'],
    ['an unknown document', { action: 'upload', document: 'diploma' }, 400, 'The document must be one of'],
    ['no document', { action: 'upload' }, 400, 'Choose an identity document'],
    ['an unknown action', { action: 'delete', outcome: 'APPROVED' }, 400, 'The action must be'],
    ['a value over 64 characters', { action: 'outcome', outcome: 'A'.repeat(65) }, 400, 'longer than 64'],
  ])(
    'refuses %s with the form again and a message, leaving the link open',
    async (_, fields, status, text) => {
      // Prepare
      const { link, transactionId } = await newLink();

      // Act
      const res = await postForm(link, fields as Record<string, string>);
      const html = await res.text();

      // Assess
      expect(res.status).toBe(status);
      expect(html).toContain(text);
      expect(html).not.toContain('<b>NOPE');
      expect(html).toContain('id="outcome-form"');
      expect(sim.control.resultIdsOf(transactionId)).toEqual([]);
    },
  );

  it('refuses more than 16 fields, a body over 8 KiB, and a body of another type', async () => {
    // Prepare
    const { link } = await newLink();
    const many = Array.from({ length: 17 }, (_, i) => `f${i}=x`).join('&');

    // Act
    const tooMany = await postForm(link, many);
    const tooBig = await postForm(link, `action=outcome&outcome=APPROVED&pad=${'x'.repeat(9000)}`);
    const other = await fetch(`${link}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'outcome=APPROVED',
    });

    // Assess
    expect([tooMany.status, tooBig.status, other.status]).toEqual([400, 413, 415]);
  });
});

describe('sample images', () => {
  it.each(SAMPLES.map((s) => [s.name]))('%s is a JPEG of at least 640 × 480', async (name) => {
    // Act
    const res = await fetch(`${sim.url}/samples/${name}.jpg`);
    const bytes = Buffer.from(await res.arrayBuffer());

    // Assess
    expect(res.status).toBe(200);
    expect(sniffContentType(bytes).contentType).toBe('image/jpeg');
    const dims = imageDimensions(bytes)!;
    expect(dims.width).toBeGreaterThanOrEqual(640);
    expect(dims.height).toBeGreaterThanOrEqual(480);
  });

  it('face-quality approves the selfie, a live frame and the portrait results carry', async () => {
    // Prepare
    const images = await Promise.all(
      ['selfie', 'live-1'].map(async (n) =>
        Buffer.from(await (await fetch(`${sim.url}/samples/${n}.jpg`)).arrayBuffer()).toString('base64'),
      ),
    );
    images.push(pooledImage('portrait', 0).base64);

    // Act
    const answers = await Promise.all(
      images.map((image) => callSim(sim, token, 'POST', PATHS.faceQuality, { image })),
    );

    // Assess
    expect(answers.map((a) => a.body.result)).toEqual(['APPROVED', 'APPROVED', 'APPROVED']);
  });

  it('an unknown sample is a 404', async () => {
    expect((await fetch(`${sim.url}/samples/nobody.jpg`)).status).toBe(404);
  });
});

describe('linksAwaitBrowser', () => {
  it('a secure link waits for its end user instead of completing after the delay', async () => {
    // Prepare
    const waiting = await startSimulator({
      ...SIM_CLIENT,
      seed: 5,
      completionDelayMs: 1000,
      linksAwaitBrowser: true,
    });
    try {
      const t = await tokenFor(waiting);
      const r = await callSim(waiting, t, 'POST', PATHS.secureLink, {
        product: 'IDV_LITE',
        disableCommunication: true,
      });

      // Act
      waiting.control.advanceTime(10_000);
      const before = waiting.control.resultIdsOf(r.body.transactionId as string);
      const done = await postForm(r.body.link as string, { action: 'outcome', outcome: 'APPROVED' });

      // Assess
      expect(before).toEqual([]);
      expect(done.status).toBe(303);
      expect(waiting.control.resultIdsOf(r.body.transactionId as string)).toHaveLength(1);
    } finally {
      await waiting.close();
    }
  });
});
