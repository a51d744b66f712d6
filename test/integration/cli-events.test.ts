import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateEventBusCommand, EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeEventBridge, startFakeEventBridge } from '../../local/fake-eventbridge';
import { localReplay, runIdv } from '../support/cli';

let dir: string;

const storedEvent = (resultId: string, result: string, time = '2026-08-10T12:00:00.000Z') => ({
  id: `e-${resultId}`,
  time,
  source: 'idv.pipeline',
  'detail-type': 'VerificationResultStored',
  detail: { resultId, status: 'STORED', result, product: 'IDV_STANDARD' },
  resources: [],
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idv-events-'));
  const write = (name: string, value: unknown) =>
    writeFile(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
  await write('disapproved.json', {
    source: ['idv.pipeline'],
    'detail-type': ['VerificationResultStored'],
    detail: { result: ['DISAPPROVED'] },
  });
  await write('rule.json', {
    Name: 'r',
    EventPattern: JSON.stringify({ detail: { result: [{ 'anything-but': 'APPROVED' }] } }),
  });
  await write('bad-pattern.json', { detail: { result: 'DISAPPROVED' } });
  await write('disapproved-event.json', storedEvent('r-1', 'DISAPPROVED'));
  await write('approved-event.json', storedEvent('r-2', 'APPROVED'));
  await write('not-an-event.json', ['x']);
  await write('not-json.json', '{"source": ');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('idv events test-pattern', () => {
  /** `idv events test-pattern --pattern PATTERN --event EVENT`, both files in the test's directory. */
  const testPattern = (pattern: string, event: string) =>
    runIdv(['events', 'test-pattern', '--pattern', pattern, '--event', event], { cwd: dir });

  it('answers {"result": true} and {"result": false} as TestEventPattern does, exit 0', async () => {
    const yes = await testPattern('disapproved.json', 'disapproved-event.json');
    const no = await testPattern('disapproved.json', 'approved-event.json');

    expect([yes.code, yes.json()]).toEqual([0, { result: true }]);
    expect([no.code, no.json()]).toEqual([0, { result: false }]);
  });

  it('takes a rule file with EventPattern as a JSON string', async () => {
    const run = await testPattern('rule.json', 'disapproved-event.json');

    expect([run.code, run.json()]).toEqual([0, { result: true }]);
  });

  it('exits 1 with the reason and path for an invalid pattern', async () => {
    const run = await testPattern('bad-pattern.json', 'approved-event.json');

    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'idv: Event pattern is not valid. Reason: "result" must be an object or an array at detail.result\n',
    );
  });

  it('exits 1 with the reason for an invalid event or a file that is not JSON', async () => {
    const notEvent = await testPattern('disapproved.json', 'not-an-event.json');
    const notJson = await testPattern('not-json.json', 'approved-event.json');

    expect([notEvent.code, notEvent.stderr]).toEqual([
      1,
      expect.stringMatching(/the event must be a JSON object/),
    ]);
    expect([notJson.code, notJson.stderr]).toEqual([
      1,
      expect.stringMatching(/--pattern not-json.json is not valid JSON/),
    ]);
  });
});

describe('idv events replay --local', () => {
  let bus: FakeEventBridge;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = join(dir, 'data');
    bus = await startFakeEventBridge({ region: 'eu-west-1', accountId: '000000000000' });
    const client = new EventBridgeClient({
      region: 'eu-west-1',
      endpoint: bus.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await client.send(new CreateEventBusCommand({ Name: 'idv-local-events' }));
    client.destroy();
    await mkdir(dataDir, { recursive: true });
    // What a running `npm start` leaves: this test process stands in for it (its pid is alive).
    await writeFile(
      join(dataDir, 'stack.json'),
      JSON.stringify({
        pid: process.pid,
        startedAt: new Date().toISOString(),
        region: 'eu-west-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        endpoints: { eventBridge: bus.endpoint },
        resources: { eventBusName: 'idv-local-events' },
      }),
    );
    const lines = [
      storedEvent('day-before', 'APPROVED', '2026-08-09T23:00:00.000Z'),
      storedEvent('a', 'DISAPPROVED', '2026-08-10T00:00:00.000Z'),
      storedEvent('b', 'APPROVED', '2026-08-10T18:30:00.000Z'),
      storedEvent('day-after', 'APPROVED', '2026-08-11T00:00:00.000Z'),
    ];
    await writeFile(
      join(dataDir, 'events.jsonl'),
      `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
    );
  });
  afterAll(async () => {
    await bus.close();
  });

  it('re-publishes the chosen day through the running local bus, keeping each event’s time', async () => {
    const run = await runIdv(localReplay(dataDir, '2026-08-10', '2026-08-11'), { cwd: dir });

    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ local: true, published: 2 });
    expect(bus.entries().map((event) => [event.detail['resultId'], event.time, event.eventBusName])).toEqual([
      ['a', '2026-08-10T00:00:00.000Z', 'idv-local-events'],
      ['b', '2026-08-10T18:30:00.000Z', 'idv-local-events'],
    ]);
  });

  it('refuses a reversed range (usage, exit 2) and a data directory without npm start (exit 1)', async () => {
    const reversed = await runIdv(localReplay(dataDir, '2026-08-11', '2026-08-10'), { cwd: dir });
    const idle = join(dir, 'idle');
    await mkdir(idle, { recursive: true });
    await writeFile(join(idle, 'events.jsonl'), '');
    const notRunning = await runIdv(localReplay(idle, '2026-08-10', '2026-08-11'), { cwd: dir });

    expect([reversed.code, reversed.stderr]).toEqual([2, expect.stringMatching(/must be before --until/)]);
    expect([notRunning.code, notRunning.stderr]).toEqual([
      1,
      expect.stringMatching(/no `npm start` is running/),
    ]);
  });

  it('without --local needs an archive or the deployment whose output names it', async () => {
    const run = await runIdv(['events', 'replay', '--since', '2026-08-10', '--until', '2026-08-11'], {
      cwd: dir,
    });

    expect([run.code, run.stderr]).toEqual([
      2,
      expect.stringMatching(/no archive: pass --stack NAME .*--archive/),
    ]);
  });
});
