/**
 * The secure link in a real browser, end to end: headless Chromium (Debian's `chromium`, not a project
 * dependency) opens the link the simulator returned, a mouse click submits an outcome or sample
 * uploads, and the simulator then holds the completed result (poll record, result GET, webhooks in the
 * order upload → result). Skips, saying why, where `/usr/bin/chromium` is absent. Screenshots go to
 * `IDV_SCREENSHOT_DIR` when set (to look at them), else to a temporary directory.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../simulator/server';
import { CHROMIUM_MISSING, type HeadlessPage, openShootingPage, screenshotUrl } from '../support/chromium';
import {
  completedResult,
  newSecureLink,
  startHookedSimulator,
  type WebhookRecorder,
} from '../support/simulator-http';

const title = `hosted flow in headless Chromium${CHROMIUM_MISSING ? ` (skipped: ${CHROMIUM_MISSING})` : ''}`;

describe.skipIf(CHROMIUM_MISSING !== undefined)(title, () => {
  let sim: RunningSimulator;
  let token: string;
  let page: HeadlessPage;
  let hooks: WebhookRecorder;
  let shots: string;

  beforeAll(async () => {
    ({ sim, token, hooks } = await startHookedSimulator({ seed: 24, linksAwaitBrowser: true }));
    ({ page, shots } = await openShootingPage());
  }, 60_000);
  afterAll(async () => {
    await page?.close();
    await sim?.close();
    await hooks?.close();
  });
  beforeEach(() => {
    hooks.received.length = 0;
  });

  function newLink(body: Record<string, unknown>): Promise<{ link: string; transactionId: string }> {
    return newSecureLink(sim, token, body);
  }

  it('opens the link, picks DISAPPROVED with a click, and the simulator holds that result', async () => {
    // Prepare
    const { link, transactionId } = await newLink({
      product: 'RTW_PREMIUM',
      customerReference: '<img src=x onerror=alert(1)>',
      additionalDocuments: ['DRIVING_LICENSE'],
    });
    await screenshotUrl(link, join(shots, 'hosted-flow-link.png'));

    // Act
    await page.goto(link);
    const before = await page.evaluate<{ scripts: number; shown: string; images: number[] }>(`({
      scripts: document.scripts.length,
      shown: document.querySelector('.facts').innerText,
      images: [...document.images].map((i) => i.complete ? i.naturalWidth : 0),
    })`);
    await page.click('input[name=outcome][value=DISAPPROVED]');
    await page.clickAndWait('#outcome-form button[type=submit]');
    await page.screenshot(join(shots, 'hosted-flow-done.png'));
    const after = await page.evaluate<{ heading: string; result: string }>(`({
      heading: document.querySelector('h1').innerText,
      result: document.getElementById('result')?.innerText ?? '',
    })`);

    // Assess
    expect(before.scripts).toBe(0);
    expect(before.shown).toContain('<img src=x onerror=alert(1)>');
    expect(before.images.length).toBe(10);
    expect(before.images.every((w) => w >= 640)).toBe(true);
    expect(after).toEqual({ heading: 'Verification complete', result: 'DISAPPROVED' });
    const doc = await completedResult(sim, token, transactionId);
    expect(doc.result).toBe('DISAPPROVED');
    await sim.control.webhooksIdle();
    expect(hooks.received.map((h) => [h.path, h.body.transactionId])).toEqual([
      ['/upload', transactionId],
      ['/result', transactionId],
    ]);
    expect((await readFile(join(shots, 'hosted-flow-link.png'))).subarray(1, 4).toString()).toBe('PNG');
  }, 60_000);

  it('uploads the sample identity card and selfie with clicks; the result shows those uploads', async () => {
    // Prepare
    const { link, transactionId } = await newLink({ product: 'IDV_PREMIUM' });
    await page.goto(link);

    // Act
    await page.click('input[name=document][value=identity-card]');
    await page.evaluate(`document.querySelector('select[name=outcome]').value = 'APPROVED'`);
    await page.clickAndWait('#upload-form button[type=submit]');

    // Assess
    expect(await page.evaluate<string>(`document.getElementById('result')?.innerText ?? ''`)).toBe(
      'APPROVED',
    );
    const doc = await completedResult(sim, token, transactionId);
    expect(doc.identity?.data?.documentType).toBe('IDENTITY_CARD');
    expect(doc.faceVerify?.result).toBe('APPROVED');
    expect(doc.images?.map((i) => `${i.documentType}/${i.pageType}`)).toEqual([
      'IDENTITY_CARD/FRONT',
      'IDENTITY_CARD/BACK',
      'COMPARE/ANY',
      'LIVE/ANY',
      'LIVE/ANY',
      'PORTRAIT/ANY',
      'SIGNATURE/ANY',
    ]);
    expect(doc.images?.some((i) => i.customerReference !== undefined)).toBe(false);
  }, 60_000);
});
