import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IdvClient } from '../../shared/client';
import { DETAIL_TYPES } from '../../shared/events/names';
import { type RunningSimulator, startSimulator } from '../../simulator/server';
import { npmStartOnce, run, startLocalRun } from '../support/run-process';

const npmStart = (...args: string[]) => run('npm', ['start', '--silent', '--', '--port', '0', ...args]);
const npmStartEnv = (env: Record<string, string>, ...args: string[]) =>
  run('npm', ['start', '--silent', '--', '--port', '0', ...args], 120_000, env);

/** Resolves once `condition` holds (checked every 10 ms); fails after `timeoutMs`. */
function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  return vi.waitFor(() => expect(condition()).toBe(true), { timeout: timeoutMs, interval: 10 });
}

/** A TCP server on a free 127.0.0.1 port: something that holds a port, or (closed) a port nobody serves. */
async function listening(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}
const idv = (...args: string[]) => run('npx', ['tsx', 'bin/idv.ts', ...args]);

/** The start script itself, resolved once it printed that the pipeline runs (`{ env }` adds variables). */
function startedRun(...args: (string | { env: Record<string, string> })[]) {
  const env = args.find((arg) => typeof arg !== 'string')?.env ?? {};
  return startLocalRun(
    args.filter((arg) => typeof arg === 'string'),
    env,
  );
}

describe('npm start with the simulator', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-local-run-'));
  });

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates, stores and announces every demo transaction and exits 0 with --exit-when-done', async () => {
    // Act
    const result = await npmStart(
      '--demo',
      '4',
      '--exit-when-done',
      '--data-dir',
      dataDir,
      '--timeout',
      '90',
    );

    // Assess
    expect(result.code, result.stderr).toBe(0);
    expect(result.summary).toMatchObject({ created: 4, stored: 4, unavailable: 0, dlq: 0, exit: 'done' });
    expect(result.stdout).toContain('✔ stored');
    const events = readFileSync(join(dataDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((event) => event['detail-type'] === DETAIL_TYPES.resultStored)).toHaveLength(4);
    expect(events[0]).toHaveProperty('source');
    expect(events[0]).toHaveProperty('detail');
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
    // The run's own --timeout bounds it; the test waits that long, and a little more for the exit.
  }, 120_000);

  it('answers idv results list, by-transaction, by-reference and get --out from the persisted data', async () => {
    // Act
    const list = await idv('results', 'list', '--local', '--data-dir', dataDir);
    const items = JSON.parse(list.stdout) as {
      resultId: string;
      transactionId: string;
      customerReference: string;
    }[];
    const first = items[0]!;
    const byTransaction = await idv(
      'results',
      'by-transaction',
      first.transactionId,
      '--local',
      '--data-dir',
      dataDir,
    );
    const byReference = await idv(
      'results',
      'by-reference',
      first.customerReference,
      '--local',
      '--data-dir',
      dataDir,
    );
    const out = join(dataDir, 'out');
    const get = await idv('results', 'get', first.resultId, '--local', '--data-dir', dataDir, '--out', out);

    // Assess
    expect(list.code, list.stderr).toBe(0);
    expect(items).toHaveLength(4);
    expect(JSON.parse(byTransaction.stdout).map((item: { resultId: string }) => item.resultId)).toEqual([
      first.resultId,
    ]);
    expect(JSON.parse(byReference.stdout).map((item: { resultId: string }) => item.resultId)).toEqual([
      first.resultId,
    ]);
    expect(get.code, get.stderr).toBe(0);
    const item = JSON.parse(get.stdout) as { objects?: unknown[] };
    expect(readdirSync(out)).toContain('result.json');
    expect(readdirSync(out)).toHaveLength(1 + (item.objects?.length ?? 0));
    // Results hold personal data: only the current user may read what was written.
    expect(statSync(out).mode & 0o777).toBe(0o700);
    expect(statSync(join(out, 'result.json')).mode & 0o777).toBe(0o600);
  });

  it('says that dlq redrive --local needs a running npm start, whose queues hold the messages', async () => {
    // Act
    const result = await idv('dlq', 'redrive', '--local', '--data-dir', dataDir);

    // Assess: nothing to redrive is a failure a script sees, with the reason.
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('no `npm start` is running');
    expect(result.stderr).toContain('Start it, then run this again');
  });

  it('stops cleanly on Ctrl-C even when the signal arrives twice at once', async () => {
    // Prepare
    const started = await startedRun('--port', '0', '--demo', '0', '--data-dir', dataDir);

    // Act: what a terminal plus tsx's relay deliver for one Ctrl-C: a second SIGINT moments after the
    // first (sent once the first was handled; two pending signals would merge into one).
    started.child.kill('SIGINT');
    await until(() => started.stderr().includes('Stopping'));
    started.child.kill('SIGINT');
    const code = await started.exited;

    // Assess
    expect(code, started.stderr()).toBe(0);
    expect(started.stderr()).not.toContain('Forced stop');
    expect(JSON.parse(started.stdout().trim().split('\n').at(-1)!)).toMatchObject({ exit: 'signal' });
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
  });

  it('runs past --timeout until Ctrl-C when neither --once nor --exit-when-done is given', async () => {
    // Prepare: a one-second timeout, which limits only runs that are meant to end by themselves.
    const started = await startedRun('--port', '0', '--demo', '0', '--timeout', '1', '--data-dir', dataDir);

    // Act: the run must outlive its one-second timeout; an exit ends the wait at once.
    const outlived = delay(2_500).then(() => true);
    const stillRunning = await Promise.race([started.exited.then(() => false), outlived]);
    started.child.kill('SIGINT');
    const code = await started.exited;

    // Assess
    expect(stillRunning, started.stderr()).toBe(true);
    expect(code, started.stderr()).toBe(0);
    const lines = started.stdout().trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ exit: 'signal' });
    expect(started.stderr()).not.toContain('gave up');
    // Only the summary is JSON: handler log lines are turned into readable ones.
    expect(lines.slice(0, -1).filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
  });

  it('stops with what to do when the webhook port is taken', async () => {
    // Prepare
    const { server, port } = await listening();

    // Act
    const result = await run('npm', [
      'start',
      '--silent',
      '--',
      '--port',
      String(port),
      '--demo',
      '0',
      '--data-dir',
      dataDir,
    ]).finally(() => server.close());

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`port ${port} is taken`);
    expect(result.stderr).toContain('--port 0');
    expect(result.summary).toMatchObject({ exit: 'error' });
  });

  it('polls once, finds nothing new and exits 0 with --once', async () => {
    // Act
    const result = await npmStart('--demo', '0', '--once', '--data-dir', dataDir, '--timeout', '60');

    // Assess
    expect(result.code, result.stderr).toBe(0);
    expect(result.summary).toMatchObject({ created: 0, polled: 1, stored: 0, exit: 'once' });
  });
});

describe('npm start against an external service', () => {
  let service: RunningSimulator;
  let dataDir: string;
  const credentials = { clientId: 'external-client', clientSecret: 'external-secret' };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-local-external-'));
    service = await startSimulator({ ...credentials, seed: 7 });
    const client = new IdvClient({ baseUrl: service.url, environment: 'staging', credentials });
    for (const mockTest of ['APPROVED', 'DISAPPROVED', 'APPROVED_RP'] as const) {
      await client.createSecureLink({ product: 'IDV_STANDARD', disableCommunication: true }, { mockTest });
    }
  });

  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores every pending result once with --once, and a second --once fetches nothing again', async () => {
    // Prepare
    const access = { url: service.url, ...credentials };

    // Act
    const first = await npmStartOnce(access, dataDir);
    const second = await npmStartOnce(access, dataDir);

    // Assess
    expect(first.code, first.stderr).toBe(0);
    expect(first.summary).toMatchObject({ created: 0, polled: 1, stored: 3, events: 3, dlq: 0 });
    expect(second.summary).toMatchObject({ stored: 0, events: 0 });
    expect(Object.values(service.control.stats().resultFetches)).toEqual([1, 1, 1]);
  });

  it('loses nothing when the run is killed with SIGKILL mid-way and started again', async () => {
    // Prepare: a data directory of its own, eight finished transactions, and result fetches that take 1.5 s,
    // so the kill lands while fetched results are not yet stored (their poll records are gone by then).
    const killDir = mkdtempSync(join(tmpdir(), 'idv-local-kill-'));
    const slow = await startSimulator({ ...credentials, seed: 11 });
    const client = new IdvClient({ baseUrl: slow.url, environment: 'staging', credentials });
    const transactions = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const link = await client.createSecureLink(
        { product: 'IDV_STANDARD', disableCommunication: true },
        { mockTest: i % 2 ? 'DISAPPROVED' : 'APPROVED' },
      );
      transactions.add(link.transactionId);
    }
    slow.control.setFaults({ slowRate: 1, slowMs: 1500, paths: ['/api/v2/result'] });
    const flags = ['--port', '0', '--service-url', slow.url, '--client-id', credentials.clientId];
    const env = { IDV_CLIENT_SECRET: credentials.clientSecret };
    try {
      // Act: a plain run, killed while the service works on its second result request (it removes that
      // result's poll record all the same); then a --once run on the same directory.
      const first = await startedRun(...flags, '--data-dir', killDir, { env });
      const resultRequests = () => slow.requests.filter((r) => r.path.startsWith('/api/v2/result/')).length;
      await until(() => resultRequests() >= 2);
      first.child.kill('SIGKILL');
      await first.exited;
      await until(() => slow.control.stats().pollRecords <= 6);
      slow.control.setFaults(undefined);
      const second = await npmStartEnv(env, ...flags.slice(2), '--once', '--data-dir', killDir);

      // Assess: every transaction's result stored and announced, nothing dead-lettered.
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('taking over');
      expect(second.summary).toMatchObject({ dlq: 0, exit: 'once' });
      const stored = readFileSync(join(killDir, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((event) => event['detail-type'] === DETAIL_TYPES.resultStored);
      expect(new Set(stored.map((event) => event.detail.transactionId))).toEqual(transactions);
      expect(statSync(killDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(killDir, 'events.jsonl')).mode & 0o777).toBe(0o600);
    } finally {
      await slow.close();
      rmSync(killDir, { recursive: true, force: true });
    }
  });

  it('stops with a message that says what to do when the service is down', async () => {
    // Prepare: a port that was just free and is closed again.
    const { server, port } = await listening();
    await new Promise((resolve) => server.close(resolve));

    // Act
    const result = await npmStartOnce({ url: `http://127.0.0.1:${port}`, ...credentials }, dataDir);

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the service');
    expect(result.stderr).toContain('check --service-url');
    expect(result.stderr).not.toContain(credentials.clientSecret);
    expect(result.summary).toMatchObject({ exit: 'error' });
  });

  it('stops with a message that says what to do when the credentials are wrong', async () => {
    // Act
    const result = await npmStartOnce({ ...credentials, url: service.url, clientSecret: 'wrong' }, dataDir);

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'refused the client credentials (401, code 16): check --client-id and --client-secret',
    );
    expect(result.stderr).not.toContain('wrong');
    expect(result.summary).toMatchObject({ exit: 'error' });
  });
});

describe('npm start: the deliberate demo failure', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'idv-demo-failure-'));
  });

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows one labelled failure reaching the DLQ with its reason, lists it, and a redrive stores it', async () => {
    // Prepare: a plain run (no --exit-when-done / --once), as a newcomer starts it, with a short demo.
    const started = await startedRun('--port', '0', '--demo', '3', '--data-dir', dataDir);
    const dlqLine = () =>
      started
        .stdout()
        .split('\n')
        .find((line) => line.startsWith('✖ to DLQ'));
    // Three receives a visibility timeout apart, after the run's start: well under a minute on an idle
    // machine, over 90 s with both cores busy.
    await until(() => dlqLine() !== undefined, 150_000);
    const resultId = /✖ to DLQ\s+(\S+)/.exec(dlqLine() ?? '')?.[1] ?? '';

    // Act
    const list = await idv('dlq', 'list', '--local', '--data-dir', dataDir);
    const redrive = await idv('dlq', 'redrive', '--result-id', resultId, '--local', '--data-dir', dataDir);
    await until(
      () =>
        started
          .stdout()
          .split('\n')
          .some((line) => line.startsWith('✔ stored') && line.includes(resultId)),
      30_000,
    );
    const trace = await idv('results', 'trace', resultId, '--local', '--data-dir', dataDir);
    started.child.kill('SIGINT');
    const code = await started.exited;

    // Assess
    const lines = started.stdout().split('\n');
    const created = lines.filter((line) => line.startsWith('+ created'));
    expect(created, started.stderr()).toHaveLength(3);
    expect(created.filter((line) => line.includes('(demo: fails first, redrive it)'))).toHaveLength(1);
    // The webhook's message, and the poll's when it carried the result too: each of that result, refused.
    const dlqLines = lines.filter((line) => line.startsWith('✖ to DLQ'));
    expect(dlqLines.length).toBeGreaterThanOrEqual(1);
    expect(dlqLines.length).toBeLessThanOrEqual(2);
    expect(dlqLines[0]).toMatch(new RegExp(`${resultId}.*reason=DATA_NOT_BASE64`));
    for (const line of dlqLines) {
      expect(line).toContain(resultId);
      expect(line).not.toContain('reason=unknown');
    }
    expect(lines.filter((line) => line.startsWith('  demo: this failure was deliberate'))).toHaveLength(1);
    expect(started.stdout()).toContain(`npx --no-install idv dlq redrive --result-id ${resultId} --local`);
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout) as { resultId: string; reason: string }[];
    expect(listed.length).toBeGreaterThanOrEqual(1);
    expect(listed[0]).toMatchObject({ resultId, reason: 'DATA_NOT_BASE64' });
    for (const entry of listed)
      expect(entry).toMatchObject({ resultId, reason: expect.not.stringMatching(/^unknown$/) });
    expect(redrive.code, redrive.stderr).toBe(0);
    const storedLines = lines.filter((line) => line.startsWith('✔ stored') && line.includes(resultId));
    expect(storedLines).toHaveLength(1);
    // Its polling record went with the first (broken) fetch: the kept copy still names the product.
    expect(storedLines[0]).toContain('RTW_STANDARD');
    const kinds = (JSON.parse(trace.stdout) as { steps: { kind: string }[] }).steps.map((step) => step.kind);
    expect(kinds.indexOf('dlq')).toBeGreaterThan(-1);
    expect(kinds.lastIndexOf('stored')).toBeGreaterThan(kinds.indexOf('dlq'));
    expect(code, started.stderr()).toBe(0);
    expect(JSON.parse(lines.filter(Boolean).at(-1)!)).toMatchObject({ created: 3, stored: 3, dlq: 0 });
  }, 240_000);
});
