/**
 * The operator's view of a local run, end to end on the emulators and the simulator: a result whose
 * fetch always fails reaches the DLQ and says so in the run's output; `idv dlq list/show/redrive`,
 * `idv results trace` and `idv events replay --result-id` work on it; the console (headless Chromium)
 * shows the demo results and the DLQ entry, behind its secret path, Host check and CSRF token.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../bin/cli/main';
import type { CliIo } from '../../bin/cli/types';
import { TRACE_JOURNAL } from '../../local/console-journal';
import type { PipelineHandlers, RunOptions } from '../../local/run-contract';
import { runLocal } from '../../local/runner';
import type { StackFile } from '../../local/stack-file';
import { DETAIL_TYPES } from '../../shared/events/names';
import type { ResultTrace } from '../../shared/queries/trace';
import { startSimulator } from '../../simulator/server';
import { CHROMIUM, HEADLESS_FLAGS } from '../support/chromium';
import { localReplay } from '../support/cli';

const FAILING = 'dlq-demo-1';

const stdout: string[] = [];
const stderr: string[] = [];

async function until(condition: () => boolean, what: string, timeoutMs = 90_000): Promise<void> {
  await vi
    .waitFor(() => expect(condition()).toBe(true), { timeout: timeoutMs, interval: 50 })
    .catch(() => {
      throw new Error(
        `timed out waiting for ${what}:\n${stdout.join('\n')}\n${stderr.slice(-40).join('\n')}`,
      );
    });
}

/** `idv …` in this process (the run's stack file names this process, so `--local` finds it alive). */
async function idv(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: {},
    cwd: process.cwd(),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** A raw HTTP request, so that the Host header can be anything. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('the local run for operators (console, DLQ, trace, replay)', () => {
  let dataDir: string;
  let stop: () => void;
  let run: Promise<unknown>;
  let stack: StackFile & { consoleUrl: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-console-'));
    const interrupted = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const options: RunOptions = {
      dataDir,
      demo: 2,
      demoSpacingMs: 0,
      exitWhenDone: false,
      once: false,
      pollIntervalSeconds: 1,
      port: 0,
      environment: 'staging',
      retentionDays: 30,
      timeoutSeconds: 300,
      completionDelayMs: 0,
      seed: 7,
      logLevel: 'WARN',
      // The fetch handler needs 8 s of invocation time to start a record (FETCH_BUDGET).
      visibilityTimeoutSeconds: 10,
      maxReceiveCount: 2,
    };
    run = runLocal(
      options,
      { out: (line) => stdout.push(line), err: (line) => stderr.push(line), interrupted },
      {
        startSimulator: async (simulatorOptions) => {
          const simulator = await startSimulator(simulatorOptions);
          // Every fetch of the failing result is a 500: it is retried, redelivered, then dead-lettered.
          simulator.control.setFaults({ serverErrorRate: 1, paths: [`/api/v2/result/${FAILING}`] });
          return simulator;
        },
        loadHandlers: async () => {
          const [webhook, poll, fetchResult] = await Promise.all([
            import('../../functions/webhook/handler'),
            import('../../functions/poll/handler'),
            import('../../functions/fetch-result/handler'),
          ]);
          return {
            webhook: webhook.handler as unknown as PipelineHandlers['webhook'],
            poll: poll.handler as unknown as PipelineHandlers['poll'],
            fetchResult: fetchResult.handler as unknown as PipelineHandlers['fetchResult'],
          };
        },
      },
    );
    run.catch(() => undefined);
    await until(() => stdout.some((line) => line.startsWith('Local pipeline running')), 'the run to start');
    stack = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8'));
    const sqs = new SQSClient({
      region: stack.region,
      endpoint: stack.endpoints.sqs,
      credentials: stack.credentials,
    });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: stack.resources.queueUrl,
        MessageBody: JSON.stringify({ resultId: FAILING, source: 'webhook' }),
      }),
    );
    sqs.destroy();
    await until(
      () => stdout.filter((line) => line.startsWith('✔ stored')).length >= 2,
      'the two demo results',
    );
    await until(
      () => stdout.some((line) => line.startsWith('✖ to DLQ') && line.includes(FAILING)),
      'the DLQ line',
    );
  }, 180_000);

  afterAll(async () => {
    stop?.();
    await run;
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('prints the move to the DLQ with the receive count, the reason code and the command to look at it', () => {
    // Assess
    const line = stdout.find((text) => text.startsWith('✖ to DLQ') && text.includes(FAILING))!;
    expect(line).toContain('after 2 failed deliveries');
    expect(line).toMatch(/reason=ServerError 500|reason=\w+/);
    expect(line).not.toContain('reason=unknown');
    expect(line).toContain(`npx --no-install idv dlq show ${FAILING} --local`);
    expect(stdout.some((text) => text.startsWith('  console:  http://127.0.0.1:'))).toBe(true);
    expect(statSync(join(dataDir, TRACE_JOURNAL)).mode & 0o777).toBe(0o600);
    expect(stack.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/[\w-]{32}\/$/);
  });

  it('traces the failed result: the webhook announcement, each failed attempt with its reason, the DLQ', async () => {
    // Act
    const answer = await idv('results', 'trace', FAILING, '--local', '--data-dir', dataDir);

    // Assess
    expect(answer.code, answer.stderr).toBe(0);
    const trace = JSON.parse(answer.stdout) as ResultTrace;
    const kinds = trace.steps.map((step) => step.kind);
    expect(kinds[0]).toBe('announced');
    expect(trace.steps[0]).toMatchObject({ source: 'webhook' });
    const attempts = trace.steps.filter((step) => step.kind === 'fetch');
    expect(attempts.map((step) => step.attempt)).toEqual([1, 2]);
    expect(
      attempts.every((step) => step.outcome === 'failed' && step.reason && step.reason !== 'unknown'),
    ).toBe(true);
    expect(kinds.at(-1)).toBe('dlq');
  });

  it('traces a stored demo result: announced, fetched ok, stored, published, in order', async () => {
    // Prepare
    const stored = readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((event) => event['detail-type'] === DETAIL_TYPES.resultStored);

    // Act
    const answer = await idv('results', 'trace', stored.detail.resultId, '--local', '--data-dir', dataDir);

    // Assess
    const trace = JSON.parse(answer.stdout) as ResultTrace;
    expect(trace.status).toBe('STORED');
    const kinds = trace.steps.map((step) => step.kind);
    expect(kinds).toContain('announced');
    expect(kinds.indexOf('announced')).toBeLessThan(kinds.indexOf('stored'));
    expect(kinds.indexOf('stored')).toBeLessThanOrEqual(kinds.indexOf('published'));
    expect(trace.steps.find((step) => step.kind === 'fetch')).toMatchObject({ outcome: 'ok', attempt: 1 });
  });

  it('lists and shows the DLQ entry with its reason without consuming it', async () => {
    // Act
    const list = await idv('dlq', 'list', '--local', '--data-dir', dataDir);
    const again = await idv('dlq', 'show', FAILING, '--local', '--data-dir', dataDir);

    // Assess
    expect(list.code, list.stderr).toBe(0);
    const entries = JSON.parse(list.stdout);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ kind: 'result', resultId: FAILING, source: 'webhook' });
    expect(entries[0].reason).toBeTruthy();
    expect(entries[0].firstReceiveAt).toBeTruthy();
    expect(entries[0].lastAttemptAt).toBeTruthy();
    const shown = JSON.parse(again.stdout);
    expect(shown[0].messageId).toBe(entries[0].messageId);
    // A view is a peek: showing it again does not raise the count (the deliveries before the DLQ).
    expect(shown[0].receiveCount).toBe(entries[0].receiveCount);
    expect(shown[0].reason).toBe(entries[0].reason);
    expect(Date.parse(shown[0].firstReceiveAt)).toBeLessThanOrEqual(Date.parse(shown[0].lastAttemptAt));
  });

  it('re-announces one stored result with detail.replay and adds no unmarked line to events.jsonl', async () => {
    // Prepare
    const lines = () =>
      readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    const before = lines();
    const original = before.find((event) => event['detail-type'] === DETAIL_TYPES.resultStored);

    // Act
    const answer = await idv(
      'events',
      'replay',
      '--result-id',
      original.detail.resultId,
      '--local',
      '--data-dir',
      dataDir,
    );

    // Assess
    expect(answer.code, answer.stderr).toBe(0);
    const { replayName } = JSON.parse(answer.stdout);
    const after = lines();
    expect(after.filter((event) => event.detail.replay === undefined)).toHaveLength(
      before.filter((event) => event.detail.replay === undefined).length,
    );
    const replayed = after.filter((event) => event.detail.replay === replayName);
    expect(replayed).toHaveLength(1);
    expect(replayed[0].detail).toMatchObject({
      resultId: original.detail.resultId,
      result: original.detail.result,
    });
    await until(
      () => stdout.some((line) => line.includes(original.detail.resultId) && line.startsWith('✔')),
      'x',
    );
  });

  it('replays a time range locally with detail.replay on every line it adds, never an unmarked copy', async () => {
    // Prepare
    const lines = () =>
      readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    const unmarked = lines().filter((event) => event.detail.replay === undefined).length;
    const day = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

    // Act
    const answer = await idv(...localReplay(dataDir, day, tomorrow));

    // Assess
    expect(answer.code, answer.stderr).toBe(0);
    const { published, replayName } = JSON.parse(answer.stdout);
    expect(published).toBeGreaterThan(0);
    const after = lines();
    expect(after.filter((event) => event.detail.replay === undefined)).toHaveLength(unmarked);
    expect(after.filter((event) => event.detail.replay === replayName)).toHaveLength(published);
  });

  it('guards the console: wrong secret 404, foreign Host 404, POST without the CSRF token 403', async () => {
    // Prepare
    const url = new URL(stack.consoleUrl);
    const wrong = `${url.origin}/console/${'A'.repeat(32)}/`;

    // Act
    const wrongSecret = await raw(wrong);
    const rebound = await raw(stack.consoleUrl, { headers: { host: `evil.example:${url.port}` } });
    const noToken = await raw(`${stack.consoleUrl}redrive`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `resultId=${FAILING}`,
    });
    const crossSite = await raw(`${stack.consoleUrl}redrive`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
      body: 'csrf=x',
    });
    const page = await raw(stack.consoleUrl);

    // Assess
    expect(wrongSecret.status).toBe(404);
    expect(rebound.status).toBe(404);
    expect(noToken.status).toBe(403);
    expect(crossSite.status).toBe(403);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).not.toMatch(/<img\b/);
    expect(page.body).not.toMatch(/(src|href)="https?:/);
  });

  it.skipIf(!existsSync(CHROMIUM))(
    'shows the demo results and the DLQ entry in headless Chromium (screenshot kept for review)',
    async () => {
      // Prepare
      const profile = mkdtempSync(join(tmpdir(), 'idv-chromium-'));
      const png = join(process.env.IDV_SCREENSHOT_DIR ?? dataDir, 'console.png');
      const flags = [...HEADLESS_FLAGS, `--user-data-dir=${profile}`, '--window-size=1280,900'];
      const storedIds = readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((event) => event['detail-type'] === DETAIL_TYPES.resultStored)
        .map((event) => event.detail.resultId as string);

      // Act
      const exec = promisify(execFile);
      const dom = await exec(CHROMIUM, [...flags, '--dump-dom', stack.consoleUrl], {
        maxBuffer: 10 * 1024 * 1024,
      });
      await exec(CHROMIUM, [...flags, `--screenshot=${png}`, `${stack.consoleUrl}?trace=${FAILING}`]);
      rmSync(profile, { recursive: true, force: true });

      // Assess
      for (const id of storedIds) expect(dom.stdout).toContain(id);
      expect(dom.stdout).toContain('Dead-letter queue (1)');
      expect(dom.stdout).toContain(FAILING);
      expect(dom.stdout).toContain('Redrive');
      expect(statSync(png).size).toBeGreaterThan(10_000);
    },
    60_000,
  );

  it('redrives the one result from the console with the page token: it goes back to the queue', async () => {
    // Prepare
    const page = await raw(stack.consoleUrl);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const origin = new URL(stack.consoleUrl).origin;

    // Act
    const answer = await raw(`${stack.consoleUrl}redrive`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ csrf, resultId: FAILING }).toString(),
    });

    // Assess
    expect(answer.status).toBe(303);
    await until(
      () => readFileSync(join(dataDir, TRACE_JOURNAL), 'utf8').includes('"kind":"redriven"'),
      'the redriven delivery',
      30_000,
    );
  });
});
