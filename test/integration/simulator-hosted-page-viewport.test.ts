/**
 * The hosted secure-link page works on a phone: in headless Chromium (Debian's `chromium`, driven over
 * the DevTools protocol by `test/support/chromium.ts`) at 320 × 640, 375 × 812 (a phone, where most end
 * users open the link) and 1280 × 800, the open link, a refused form and the completed link show nothing
 * past the right edge (`scrollWidth <= innerWidth`, no element's right edge beyond the viewport), the
 * two forms stack on a phone, and their buttons stay in reach. Each page is shot whole, to look at:
 * into `IDV_SCREENSHOT_DIR` when set, else a temporary directory. Skips, saying why, without Chromium.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../shared/api/enums';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { CHROMIUM_MISSING, type HeadlessPage, openShootingPage } from '../support/chromium';
import { callSim, SIM_CLIENT, tokenFor } from '../support/simulator-http';

const VIEWPORTS = [
  { name: 'phone-320', width: 320, height: 640, mobile: true },
  { name: 'phone-375', width: 375, height: 812, mobile: true },
  { name: 'desktop-1280', width: 1280, height: 800, mobile: false },
] as const;

/** What overflows the viewport horizontally, as the page measures it. */
interface Overflow {
  readonly innerWidth: number;
  readonly scrollWidth: number;
  /** Elements whose right edge is past the viewport (tag.class, at most ten). */
  readonly past: string[];
  /** Left edges of the two forms' sections, and the buttons' boxes. */
  readonly sections: number[];
  readonly buttons: { left: number; right: number; height: number }[];
}

const MEASURE = `(() => {
  const vw = window.innerWidth;
  const past = [...document.querySelectorAll('body *')]
    .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.right > vw + 0.5; })
    .slice(0, 10)
    .map((el) => el.tagName.toLowerCase() + (el.className ? '.' + el.className : ''));
  return {
    innerWidth: vw,
    scrollWidth: document.documentElement.scrollWidth,
    past,
    sections: [...document.querySelectorAll('section')].map((s) => Math.round(s.getBoundingClientRect().left)),
    buttons: [...document.querySelectorAll('button')].map((b) => {
      const r = b.getBoundingClientRect();
      return { left: r.left, right: r.right, height: r.height };
    }),
  };
})()`;

const title = `the hosted page at phone and desktop widths${CHROMIUM_MISSING ? ` (skipped: ${CHROMIUM_MISSING})` : ''}`;

describe.skipIf(CHROMIUM_MISSING !== undefined)(title, () => {
  let sim: RunningSimulator;
  let token: string;
  let page: HeadlessPage;
  let shots: string;

  beforeAll(async () => {
    sim = await startSimulator({ ...SIM_CLIENT, seed: 45, linksAwaitBrowser: true });
    token = await tokenFor(sim);
    ({ page, shots } = await openShootingPage());
  }, 60_000);
  afterAll(async () => {
    await page?.close();
    await sim?.close();
  });

  async function newLink(product: string): Promise<string> {
    const r = await callSim(sim, token, 'POST', PATHS.secureLink, {
      product,
      disableCommunication: true,
      // A long reference without spaces and every document a link can ask for: the widest facts.
      customerReference: `case-${'x'.repeat(70)}`,
      additionalDocuments: ['DRIVING_LICENSE', 'PAYROLL_TAX_STATEMENT', 'WORK_PERMIT', 'SIGNATURE'],
    });
    expect(r.status).toBe(200);
    return r.body.link as string;
  }

  /** Sets the viewport and opens `url`. */
  async function open(url: string, viewport: (typeof VIEWPORTS)[number]): Promise<void> {
    await page.send('Emulation.setDeviceMetricsOverride', {
      width: viewport.width,
      height: viewport.height,
      deviceScaleFactor: 1,
      mobile: viewport.mobile,
    });
    await page.goto(url);
  }

  /** Sets the viewport, opens `url`, shoots the whole page and measures it. */
  async function look(url: string, viewport: (typeof VIEWPORTS)[number], shot: string): Promise<Overflow> {
    await open(url, viewport);
    const measured = await page.evaluate<Overflow>(MEASURE);
    const { cssContentSize } = (await page.send('Page.getLayoutMetrics')) as {
      cssContentSize: { width: number; height: number };
    };
    const { data } = (await page.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: viewport.width, height: cssContentSize.height, scale: 1 },
    })) as { data: string };
    await writeFile(join(shots, `hosted-page-${shot}-${viewport.name}.png`), Buffer.from(data, 'base64'));
    return measured;
  }

  function expectFits(m: Overflow, where: string): void {
    expect(m.scrollWidth, where).toBeLessThanOrEqual(m.innerWidth);
    expect(m.past, where).toEqual([]);
    for (const b of m.buttons) {
      expect(b.left, where).toBeGreaterThanOrEqual(0);
      expect(b.right, where).toBeLessThanOrEqual(m.innerWidth);
      expect(b.height, where).toBeGreaterThanOrEqual(32);
    }
  }

  it.each(VIEWPORTS)('$name: the open link of a premium product fits the width', async (viewport) => {
    // Prepare
    const link = await newLink('RTW_PREMIUM');

    // Act
    const m = await look(link, viewport, 'link');

    // Assess
    expectFits(m, `${viewport.name} link`);
    expect(m.buttons).toHaveLength(2);
    // On a phone the two forms stack (same left edge); on a desktop they sit side by side.
    if (viewport.mobile) expect(new Set(m.sections).size).toBe(1);
    else expect(new Set(m.sections).size).toBe(2);
  });

  it.each(VIEWPORTS)('$name: a refused form and the completed link fit the width', async (viewport) => {
    // Prepare
    const link = await newLink('IDV_STANDARD');

    // Act: a post the flow refuses shows the form with its message; then a completed link.
    await open(link, viewport);
    await page.evaluate(
      `[...document.querySelectorAll('#upload-form input[name=document]')].forEach((i) => { i.checked = false; })`,
    );
    await page.clickAndWait('#upload-form button[type=submit]');
    const refused = await page.evaluate<string>(`document.querySelector('.error')?.textContent ?? ''`);
    const refusedMeasure = await page.evaluate<Overflow>(MEASURE);
    await page.clickAndWait('#outcome-form button[type=submit]');
    const done = await look(link, viewport, 'completed');

    // Assess
    expect(refused).toContain('Choose an identity document');
    expectFits(refusedMeasure, `${viewport.name} refused`);
    expectFits(done, `${viewport.name} completed`);
  });
});
