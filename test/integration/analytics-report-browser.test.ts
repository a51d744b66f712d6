/**
 * The report people look at (docs/analytics.md, "Using it"): `idv analytics report --local --html` over
 * 1,000,000 projected results (the bench's generator: products, outcomes, reasons and days mixed as in
 * bench/analytics.ts) writes one self-contained page, and headless Chromium renders its charts. The
 * screenshot is kept in bench/results/ for a person to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProjection } from '../../bench/analytics';
import { CHROMIUM_MISSING, screenshotUrl } from '../support/chromium';
import { run } from '../support/run-process';

const RESULTS = 1_000_000;
const SCREENSHOT = join(import.meta.dirname, '..', '..', 'bench', 'results', 'analytics-report.png');

const title = `analytics report in headless Chromium at ${RESULTS} results${CHROMIUM_MISSING ? ` (skipped: ${CHROMIUM_MISSING})` : ''}`;

describe.skipIf(CHROMIUM_MISSING !== undefined)(title, () => {
  let dataDir: string;
  let html: string;
  let report: Awaited<ReturnType<typeof run>>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-report-browser-'));
    await generateProjection(dataDir, RESULTS);
    html = join(dataDir, 'report.html');
    report = await run(process.execPath, [
      '--import',
      'tsx',
      'bin/idv.ts',
      'analytics',
      'report',
      '--local',
      '--data-dir',
      dataDir,
      '--html',
      html,
    ]);
  }, 600_000);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes a self-contained page with every chart', () => {
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(`${RESULTS} result(s)`);
    const page = readFileSync(html, 'utf8');
    for (const heading of [
      'Approval rate per day and product',
      'Top reject reasons',
      'Completed → stored: median and 90th percentile',
      'Section outcomes',
    ]) {
      expect(page).toContain(heading);
    }
    expect(page).not.toMatch(/\b(src|href)\s*=|@import|url\(|<script/i);
  });

  it('renders the charts in headless Chromium', async () => {
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await screenshotUrl(pathToFileURL(html).href, SCREENSHOT, { width: 1100, height: 2600 });
    expect(existsSync(SCREENSHOT)).toBe(true);
    const png = readFileSync(SCREENSHOT);
    // IHDR: width and height at bytes 16 and 20.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1100, 2600]);
    // A blank page of that size compresses to a few kilobytes; charts and text do not.
    expect(png.length).toBeGreaterThan(60_000);
  }, 120_000);
});
