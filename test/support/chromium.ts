/**
 * Headless Chromium for end-to-end page tests, without a browser library: Debian's `chromium` driven
 * over the DevTools protocol on a pipe (`--remote-debugging-pipe`: NUL-separated JSON on file
 * descriptors 3 and 4, no WebSocket, no port). Clicks are real mouse events at an element's centre.
 * Tests skip when `/usr/bin/chromium` is absent (`CHROMIUM_MISSING` says why).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM = '/usr/bin/chromium';

/** Why browser tests skip, or undefined when Chromium is there. */
export const CHROMIUM_MISSING = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is absent (install Debian's chromium: apt-get install -y chromium)`;

/**
 * Headless, no sandbox (root), and nothing that reaches for the network on its own: without the
 * background-networking flags this machine's closed network refuses Chromium's connections many at a time.
 */
export const HEADLESS_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

const FLAGS = [...HEADLESS_FLAGS, '--window-size=1200,900'];

type Message = { id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string };
type Reply = { id: number; result?: Record<string, unknown>; error?: { message: string } };

/** One browser with one page. */
export class HeadlessPage {
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (r: Reply) => void }>();
  readonly #listeners = new Set<(m: Message) => void>();
  #sessionId = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {
    const out = child.stdio[4] as Readable;
    let buffer = '';
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\0'); end >= 0; end = buffer.indexOf('\0')) {
        const message = JSON.parse(buffer.slice(0, end)) as Message & Reply;
        buffer = buffer.slice(end + 1);
        if (message.id !== undefined) this.#pending.get(message.id)?.resolve(message);
        else for (const l of this.#listeners) l(message);
      }
    });
  }

  /** Starts Chromium with a fresh profile and attaches to a blank page. */
  static async open(): Promise<HeadlessPage> {
    const dir = await mkdtemp(join(tmpdir(), 'idv-chromium-'));
    const child = spawn(
      CHROMIUM,
      [...FLAGS, `--user-data-dir=${dir}`, '--remote-debugging-pipe', 'about:blank'],
      {
        stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
      },
    );
    const page = new HeadlessPage(child, dir);
    const { targetInfos } = (await page.send('Target.getTargets')) as {
      targetInfos: { targetId: string; type: string }[];
    };
    const target = targetInfos.find((t) => t.type === 'page');
    if (!target) throw new Error('chromium has no page');
    const { sessionId } = (await page.send('Target.attachToTarget', {
      targetId: target.targetId,
      flatten: true,
    })) as { sessionId: string };
    page.#sessionId = sessionId;
    await page.send('Page.enable');
    return page;
  }

  /** Sends one protocol command (to the page once attached) and resolves with its result. */
  async send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const reply = new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`chromium: no answer to ${method}`)), 20_000);
      this.#pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          this.#pending.delete(id);
          resolve(r);
        },
      });
    });
    const message: Message = {
      id,
      method,
      params,
      ...(this.#sessionId ? { sessionId: this.#sessionId } : {}),
    };
    (this.child.stdio[3] as Writable).write(`${JSON.stringify(message)}\0`);
    const r = await reply;
    if (r.error) throw new Error(`chromium: ${method}: ${r.error.message}`);
    return r.result ?? {};
  }

  /** Resolves at the next event `method` of the page. */
  next(method: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#listeners.delete(listener);
        reject(new Error(`chromium: no ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (m: Message) => {
        if (m.method !== method) return;
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve(m.params ?? {});
      };
      this.#listeners.add(listener);
    });
  }

  /** Opens `url` and waits for its load event. */
  async goto(url: string): Promise<void> {
    const loaded = this.next('Page.loadEventFired');
    await this.send('Page.navigate', { url });
    await loaded;
  }

  /** Evaluates `expression` in the page and returns its value (JSON-serialisable values only). */
  async evaluate<T>(expression: string): Promise<T> {
    const r = (await this.send('Runtime.evaluate', { expression, returnByValue: true })) as {
      result: { value: T };
    };
    return r.result.value;
  }

  /** Clicks the centre of the first element matching `selector` with the mouse, as a person would. */
  async click(selector: string): Promise<void> {
    const box = await this.evaluate<{ x: number; y: number } | null>(`(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      if (!el) return null;
      el.scrollIntoView({ block: 'center' });
      const r = el.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    })()`);
    if (!box) throw new Error(`no element ${selector}`);
    for (const type of ['mousePressed', 'mouseReleased']) {
      await this.send('Input.dispatchMouseEvent', {
        type,
        x: box.x,
        y: box.y,
        button: 'left',
        clickCount: 1,
      });
    }
  }

  /** Clicks `selector` and waits for the page that the click loads (a form post and its redirect). */
  async clickAndWait(selector: string): Promise<void> {
    const loaded = this.next('Page.loadEventFired');
    await this.click(selector);
    await loaded;
  }

  /** Writes a PNG screenshot of the viewport to `path`. */
  async screenshot(path: string): Promise<void> {
    const { data } = (await this.send('Page.captureScreenshot', { format: 'png' })) as { data: string };
    await writeFile(path, Buffer.from(data, 'base64'));
  }

  /** Stops Chromium and removes its profile. */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * Runs `chromium --headless … --screenshot=path URL` (the command-line way, no protocol); `size` sets the
 * window (default 1200 × 900) so a long page can be shot whole.
 */
export async function screenshotUrl(
  url: string,
  path: string,
  size?: { readonly width: number; readonly height: number },
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'idv-chromium-'));
  try {
    await new Promise<void>((resolve, reject) => {
      const flags = size ? [...HEADLESS_FLAGS, `--window-size=${size.width},${size.height}`] : FLAGS;
      const child = spawn(CHROMIUM, [...flags, `--user-data-dir=${dir}`, `--screenshot=${path}`, url], {
        stdio: 'ignore',
      });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`chromium exited ${code}`))));
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Opens a {@link HeadlessPage}, with the directory its screenshots go to: `IDV_SCREENSHOT_DIR` when set
 * (to look at them), else a new temporary one.
 */
export async function openShootingPage(): Promise<{ page: HeadlessPage; shots: string }> {
  const page = await HeadlessPage.open();
  const shots = process.env['IDV_SCREENSHOT_DIR'] ?? (await mkdtemp(join(tmpdir(), 'idv-shots-')));
  await mkdir(shots, { recursive: true });
  return { page, shots };
}
