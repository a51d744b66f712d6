/**
 * Every recipe of the documentation that can run offline runs, as a reader would type it, against one
 * shared local environment: the fenced `sh` commands of every Markdown file (test/support/doc-recipes.ts),
 * in document order, one session (the reader's terminal: exported variables, the values a command printed)
 * per document. What cannot run offline is listed there with its reason, and test/unit/doc-recipes.test.ts
 * fails on a command that is neither.
 *
 * The environment: one plain `npm start` kept running (its simulator stands in for `127.0.0.1:4010`, its
 * webhook endpoint for `127.0.0.1:3000`, its data directory is `./.local` of the commands), one process per
 * other `npm start` and `npm run simulator` command line, all on free ports. `npx idv …` runs in this
 * process through the CLI's `runCli` (a process each would cost seconds); `curl` and `S=$(node -p …)` run
 * in bash. Placeholders (RESULT_ID, TX, TOKEN, …) take the values earlier commands printed, else those of a
 * stored result of the running run. Expected: exit 0; the running `npm start` ends with 130 on Ctrl-C, as
 * the README says a shell sees.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runIdvInProcess } from '../support/cli';
import {
  allRecipeBlocks,
  classify,
  commandParts,
  type RecipeBlock,
  type RecipeCommand,
  shellWords,
  withoutOptionalParts,
} from '../support/doc-recipes';
import { ROOT } from '../support/run-process';
import { waitForMatch } from '../support/wait';

/** A process the environment started: its output so far and its exit. */
interface Started {
  readonly child: ChildProcess;
  /** stdout and stderr as they came. */
  output: string;
  stdout: string;
  readonly exited: Promise<number | null>;
}

/** Starts `command args` in the repository root in a process group of its own (Ctrl-C reaches all of it). */
function startProcess(command: string, args: readonly string[]): Started {
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: Started = {
    child,
    output: '',
    stdout: '',
    // What a shell shows as $?: 128 + the signal's number for a process a signal ended.
    exited: new Promise((resolve) =>
      child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + constants.signals[signal] : null))),
    ),
  };
  // Detached, so Ctrl-C can reach its whole group; never left behind when this worker ends early.
  process.once('exit', () => {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
  const keep = (chunk: Buffer) => {
    started.output += chunk.toString();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    started.stdout += chunk.toString();
  });
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return started;
}

/** Waits until `pattern` shows in the process's output; its first group. */
async function waitFor(started: Started, pattern: RegExp, timeoutMs: number): Promise<string> {
  const match = await waitForMatch(() => started.output, pattern, { timeoutMs, ended: started.exited });
  return match[1] ?? match[0];
}

/** Ctrl-C in the terminal: SIGINT to the whole process group. */
function ctrlC(started: Started): void {
  if (started.child.pid !== undefined && started.child.exitCode === null) {
    try {
      process.kill(-started.child.pid, 'SIGINT');
    } catch {
      // Already gone.
    }
  }
}

/** `idv ARGS` through the CLI's own entry, in this process. */
function idv(args: readonly string[], env: Record<string, string>, cwd: string) {
  return runIdvInProcess(args, { env, cwd });
}

/** `line` in bash with the session's variables; for `NAME=$(…)` also the value NAME got. */
function bash(line: string, env: Record<string, string>, cwd: string) {
  const assigned = /^([A-Z_][A-Z0-9_]*)=\$\(/.exec(line)?.[1];
  const script = assigned ? `${line}\nprintf '%s' "$${assigned}"` : line;
  return new Promise<{ code: number; out: string; err: string }>((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      {
        cwd,
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
        timeout: 30_000,
      },
      (error, out, err) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err }),
    );
  });
}

const work = mkdtempSync(join(tmpdir(), 'idv-recipes-'));
/** The running run's data directory: `./.local` of every document's working directory. */
const dataDir = join(work, 'data');

/** A working directory of its own for a document (files like ./result), whose `./.local` is {@link dataDir}. */
function workingDirectory(file: string): string {
  const dir = join(work, file.replaceAll('/', '-'));
  mkdirSync(dir);
  symlinkSync(dataDir, join(dir, '.local'));
  return dir;
}

/** The plain `npm start`, running while the recipes run. */
let running: Started;
let runningSimulator: string;
let runningWebhooks: string;
/** Every other `npm start` command line, once each: what it is and how it ended. */
const oneShots = new Map<string, { started: Started; where: string }>();
/** Every `npm run simulator` command line, once each, with its address. */
const simulators = new Map<string, { started: Started; url: Promise<string> }>();

const PLACEHOLDER_FIELDS: Readonly<Record<string, string>> = {
  RESULT_ID: 'resultId',
  ID: 'resultId',
  TRANSACTION_ID: 'transactionId',
  TX: 'transactionId',
  CUSTOMER_REFERENCE: 'customerReference',
  REF: 'customerReference',
  TOKEN: 'token',
};

const ID = /^[A-Za-z0-9][A-Za-z0-9._:~+=@-]*$/;

/** The first id-like value of each field in JSON output (a document or JSON lines). */
function fieldsOf(output: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) for (const v of value) walk(v);
    else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        // Only ids as a reader would paste them (not the keys of records kept beside an item, `id#erasure`).
        if (typeof v === 'string' && ID.test(v)) {
          if (!found.has(key)) found.set(key, v);
        } else walk(v);
      }
    }
  };
  const documents: unknown[] = [];
  try {
    documents.push(JSON.parse(output));
  } catch {
    for (const line of output.split('\n')) {
      try {
        documents.push(JSON.parse(line));
      } catch {
        // Not JSON: a table or a message.
      }
    }
  }
  for (const document of documents) walk(document);
  return found;
}

/** The reader's terminal for one document. */
class Session {
  constructor(readonly cwd: string) {}
  readonly env: Record<string, string> = {};
  readonly values = new Map<string, string>();
  /** The simulator `127.0.0.1:4010` means in this document: the last one started here, else the running run's. */
  simulatorUrl: string | undefined;

  /** The command with this environment's addresses and the values of its placeholders. */
  async prepare(text: string): Promise<string> {
    let command = withoutOptionalParts(text)
      .replaceAll('http://127.0.0.1:4010', this.simulatorUrl ?? runningSimulator)
      .replaceAll('http://127.0.0.1:3000', runningWebhooks);
    for (const name of new Set([...Object.keys(PLACEHOLDER_FIELDS), ...this.values.keys()])) {
      const pattern = new RegExp(`(?<![-\\w./])${name}(?![\\w])`, 'g');
      if (!pattern.test(command) || /^npm run simulator\b|^export\b/.test(command)) continue;
      command = command.replace(pattern, await this.value(name));
    }
    return command;
  }

  /** A placeholder's value: printed by an earlier command of this document, else a stored result's. */
  private async value(name: string): Promise<string> {
    const known = this.values.get(name);
    if (known !== undefined) return known;
    const field = PLACEHOLDER_FIELDS[name];
    if (!field) throw new Error(`no value for ${name}`);
    const listed = await idv(['results', 'list', '--local', '--data-dir', dataDir], {}, this.cwd);
    const items = JSON.parse(listed.out) as Record<string, unknown>[];
    const item = items.find((i) => i['status'] === 'STORED' && typeof i[field] === 'string');
    if (!item) throw new Error(`no stored result with a ${field} for ${name}: ${listed.err}`);
    return String(item[field]);
  }

  /** Keeps the values a command printed for the placeholders of later commands. */
  remember(output: string, comment: string): void {
    const fields = fieldsOf(output);
    for (const [name, field] of Object.entries(PLACEHOLDER_FIELDS)) {
      const value = fields.get(field);
      if (value !== undefined) this.values.set(name, value);
    }
    // `# its transactionId: T` names the value a later command uses as T.
    const declared = /transactionId: ([A-Z])\b/.exec(comment)?.[1];
    const transactionId = fields.get('transactionId');
    if (declared && transactionId) this.values.set(declared, transactionId);
  }
}

/** Runs one command of a recipe; throws with what it printed when it fails. */
async function runCommand(session: Session, command: RecipeCommand, part: string): Promise<void> {
  const where = `${command.file}:${command.line}`;
  const classified = classify(part);
  if (classified.kind !== 'run') return;
  const text = await session.prepare(part);
  switch (classified.runner) {
    case 'export': {
      for (const word of shellWords(text.replace(/^export\s+/, ''), session.env)) {
        const at = word.indexOf('=');
        session.env[word.slice(0, at)] = word.slice(at + 1);
      }
      return;
    }
    case 'idv': {
      const words = shellWords(text, session.env);
      const env = { ...session.env };
      while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
        const word = words.shift()!;
        env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
      }
      // Every printed command runs the project's own idv: npx never fetches a same-named package.
      expect(words.slice(0, 3), where).toEqual(['npx', '--no-install', 'idv']);
      const run = await idv(words.slice(3), env, session.cwd);
      expect(run.code, `${where}: ${text}\n${run.err}${run.out.slice(0, 2000)}`).toBe(0);
      session.remember(run.out, command.comment);
      return;
    }
    case 'shell': {
      // curl fails on an HTTP error status, so a recipe answered 404 fails here.
      const line = text.replace(/^curl /, 'curl --fail ');
      const run = await bash(line, session.env, session.cwd);
      expect(run.code, `${where}: ${text}\n${run.err}${run.out}`).toBe(0);
      const assigned = /^([A-Z_][A-Z0-9_]*)=\$\(/.exec(line)?.[1];
      if (assigned) {
        expect(run.out, `${where}: ${assigned} is empty`).not.toBe('');
        session.env[assigned] = run.out;
      } else session.remember(run.out, command.comment);
      return;
    }
    case 'simulator': {
      // Started in beforeAll: "terminal 1" of the recipe.
      const simulator = simulators.get(simulatorKey(text));
      expect(simulator, `${where}: ${text} was not started`).toBeDefined();
      session.simulatorUrl = await simulator!.url;
      return;
    }
    case 'npm-start': {
      const args = shellWords(text, {}).slice(2);
      if (!args.includes('--once') && !args.includes('--exit-when-done')) {
        // The plain run, running in "another terminal": its simulator is this document's 4010 from now on.
        expect(
          running.child.exitCode,
          `${where}: the running npm start stopped:\n${running.output}`,
        ).toBeNull();
        session.simulatorUrl = runningSimulator;
        return;
      }
      // Started in beforeAll; how it ended is checked by the last test.
      expect(oneShots.has(text), `${where}: ${text} was not started`).toBe(true);
      return;
    }
  }
}

/** The documents with a command to run, in the order their sessions run (the DLQ recipe last: it waits). */
const documents = (() => {
  const byFile = new Map<string, RecipeBlock[]>();
  for (const block of allRecipeBlocks()) {
    const runnable = block.commands.some((c) =>
      commandParts(c.text).some((part) => classify(part).kind === 'run'),
    );
    if (runnable) byFile.set(block.file, [...(byFile.get(block.file) ?? []), block]);
  }
  return [...byFile].sort(
    ([a], [b]) => Number(a === 'docs/local-run.md') - Number(b === 'docs/local-run.md'),
  );
})();

/** A simulator command line on a free port: the same line in two documents is one simulator. */
function simulatorKey(text: string): string {
  return withoutOptionalParts(text).replace(/--port \d+/, '--port 0');
}

/** The commands of one runner, without optional parts, once each, with where each is first documented. */
function commandsOf(runner: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, blocks] of documents) {
    for (const block of blocks) {
      for (const command of block.commands) {
        for (const part of commandParts(command.text)) {
          const classified = classify(part);
          if (classified.kind !== 'run' || classified.runner !== runner) continue;
          const text = withoutOptionalParts(part);
          if (!found.has(text)) found.set(text, `${command.file}:${command.line}`);
        }
      }
    }
  }
  return found;
}

beforeAll(async () => {
  running = startProcess('npm', ['start', '--', '--data-dir', dataDir, '--port', '0']);
  for (const text of commandsOf('simulator').keys()) {
    const key = simulatorKey(text);
    if (simulators.has(key)) continue;
    const started = startProcess('npm', ['run', 'simulator', ...shellWords(key, {}).slice(3)]);
    const url = waitFor(started, /Simulator listening on (http:\/\/\S+)/, 60_000);
    url.catch(() => undefined); // reported by the recipe that uses it
    simulators.set(key, { started, url });
  }
  for (const [text, where] of commandsOf('npm-start')) {
    // The plain run is `running`; the others end by themselves.
    if (!/--once|--exit-when-done/.test(text)) continue;
    const dir = join(work, `run-${oneShots.size + 1}`);
    const rest = shellWords(text, {}).slice(2);
    const flags = rest[0] === '--' ? rest.slice(1) : rest;
    const started = startProcess('npm', [
      'start',
      '--',
      ...flags,
      '--data-dir',
      join(dir, '.local'),
      '--port',
      '0',
    ]);
    oneShots.set(text, { where, started });
  }
  runningSimulator = await waitFor(running, /service: +simulator (http:\/\/\S+)/, 60_000);
  runningWebhooks = (await waitFor(running, /webhooks: +(http:\/\/[^/\s]+)\/webhooks\//, 5_000)).trim();
}, 90_000);

afterAll(async () => {
  ctrlC(running);
  for (const { started } of simulators.values()) ctrlC(started);
  for (const { started } of oneShots.values()) ctrlC(started);
  await Promise.all([running, ...[...simulators.values()].map((s) => s.started)].map((s) => s?.exited));
  rmSync(work, { recursive: true, force: true });
}, 30_000);

for (const [file, blocks] of documents) {
  describe(`the recipes of ${file}`, () => {
    const session = new Session(workingDirectory(file));
    for (const block of blocks) {
      const first = block.commands.find((c) => commandParts(c.text).some((p) => classify(p).kind === 'run'));
      it(`${file}:${block.line} runs as documented: ${first?.text.slice(0, 80)}`, async () => {
        if (
          file === 'docs/local-run.md' &&
          block.commands.some((c) => /^npx --no-install idv dlq list\b/.test(c.text))
        ) {
          await deadLettered();
        }
        for (const command of block.commands) {
          for (const part of commandParts(command.text)) await runCommand(session, command, part);
        }
      }, 120_000);
    }
  });
}

/** Waits until the running run's deliberate demo failure is in the DLQ, where docs/local-run.md finds it. */
async function deadLettered(): Promise<void> {
  // The run says so (cheaper to watch than listing the DLQ every second), then the DLQ shows it.
  await waitFor(running, /✖ (to|in) DLQ/, 100_000);
  await vi.waitFor(
    async () => {
      const listed = await idv(['dlq', 'list', '--local', '--data-dir', dataDir], {}, work);
      expect(
        listed.code === 0 && (JSON.parse(listed.out) as unknown[]).length,
        'DLQ entries',
      ).toBeGreaterThan(0);
    },
    { timeout: 20_000, interval: 1_000 },
  );
}

describe('the documented npm start runs', () => {
  it('end as documented: --once and --exit-when-done with 0, a plain run with 130 on Ctrl-C', async () => {
    // Act
    const ended = await Promise.all(
      [...oneShots].map(async ([text, { started, where }]) => ({
        where,
        text,
        code: await started.exited,
        started,
      })),
    );
    ctrlC(running);
    const plain = await running.exited;

    // Assess
    for (const run of ended)
      expect(run.code, `${run.where}: ${run.text}\n${run.started.output.slice(-2000)}`).toBe(0);
    expect(plain, running.output.slice(-2000)).toBe(130);
    // The run's own summary line, last on stdout, says it stopped on the signal.
    expect(running.stdout.trim().split('\n').at(-1), running.output.slice(-3000)).toContain(
      '"exit":"signal"',
    );
  }, 120_000);
});
