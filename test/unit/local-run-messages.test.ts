/**
 * The start screen's hints: every command runs the project's own `idv` (`npx --no-install`, never a
 * download of a same-named package), and the screen says how links can wait for the browser.
 */
import { describe, expect, it } from 'vitest';
import { printBanner, printHints } from '../../local/run-messages';

function lines() {
  const out: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => out.push(l) }, out };
}

const HINTS = { serviceUrl: 'http://127.0.0.1:4010', clientId: 'c', clientSecret: 's', dirFlag: '' };
const BANNER = {
  once: false,
  timeoutSeconds: 300,
  pollIntervalSeconds: 60,
  visibilityTimeoutSeconds: 10,
  maxReceiveCount: 3,
};
const PLACES = {
  dataDir: '.local',
  consoleUrl: 'http://c',
  service: 'simulator',
  webhooksUrl: 'http://w',
  rules: [],
};

describe('start screen', () => {
  it('prints idv commands only as npx --no-install idv, and how to let links wait', () => {
    // Prepare
    const plain = lines();
    const waiting = lines();

    // Act
    printHints(plain.io, HINTS);
    printHints(waiting.io, HINTS, true);

    // Assess
    const commands = plain.out.filter((l) => /\bidv\b/.test(l));
    expect(commands.length).toBeGreaterThan(3);
    for (const line of commands) expect(line).toMatch(/npx --no-install idv /);
    expect(plain.out.join('\n')).toContain('npm start -- --links-await-browser');
    expect(plain.out.join('\n')).toContain(
      'idv simulator trigger DISAPPROVED --checks lostAndStolen=HIT --local',
    );
    expect(waiting.out.join('\n')).toContain('waits for you at its link');
  });

  it('says on the banner that links wait for the browser', () => {
    // Prepare
    const on = lines();
    const off = lines();

    // Act
    printBanner(on.io, { ...BANNER, linksAwaitBrowser: true }, PLACES);
    printBanner(off.io, BANNER, PLACES);

    // Assess
    expect(on.out.join('\n')).toContain('(--links-await-browser)');
    expect(off.out.join('\n')).not.toContain('links-await-browser');
  });
});
